package app

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"
)

// Flags are serve's settings as command-line flags. AddFlags makes one flag per row of
// the settings table, so that a new setting is a new flag of `vmplane serve` (and of
// `vmplane config check` and `vmplane proxmox check`) with no code of its own; Load
// then applies the flags given over the configuration file and the environment.
type Flags struct {
	set    *pflag.FlagSet
	config *string
}

// AddFlags adds to fs a flag for every setting, named as the setting (its help names
// its environment variable), and --config. The flags parse into a Config of their own:
// Flags.Load reads which were given, so that the file and the environment, read later,
// do not override them.
func AddFlags(fs *pflag.FlagSet) *Flags {
	var parsed Config
	for _, s := range parsed.table() {
		s.bind(fs, s.flag, s.help+" (env "+s.env+")")
	}
	config := fs.String("config", "", "TOML configuration file; its keys are these flags' names (env VMPLANE_CONFIG; default "+
		DefaultConfigFile+" when it exists)")
	return &Flags{set: fs, config: config}
}

// SettingsHelp is what `vmplane serve -h` says about the settings before listing them.
var SettingsHelp = fmt.Sprintf(`Every flag also reads its environment variable and the configuration file's key of the
same name (--config FILE, default %s when it exists): a flag beats its variable,
which beats the file. The admin password, JWT key and Proxmox token secret can be read
from files (--admin-password-file, ...).

Drivers: --driver sim (the default) runs an embedded simulated cluster; --driver proxmox
drives a Proxmox VE cluster and needs --proxmox-url, --proxmox-token-id and
--proxmox-token-secret (the --proxmox-* settings below). Check them, and the token's
privileges, with 'vmplane proxmox check'.`, DefaultConfigFile)

// FlagError turns an error of parsing the settings' flags into a *ConfigError: a value
// that does not parse names the setting, its variable and what it takes, as a bad
// environment variable does; anything else (an unknown flag) points to serve -h.
func FlagError(err error) error {
	var invalid *pflag.InvalidValueError
	if errors.As(err, &invalid) {
		var c Config
		for _, s := range c.table() {
			if s.flag == invalid.GetFlag().Name {
				return &ConfigError{Flag: s.flag, Env: s.env, Value: invalid.GetValue(), Allowed: "must be " + kindOf(s.kind)}
			}
		}
	}
	return &ConfigError{Allowed: err.Error() + " (see vmplane serve -h)"}
}
