package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"
)

// DefaultConfigFile is the configuration file read when neither --config nor
// VMPLANE_CONFIG names one and it exists; a variable only so tests can move it.
var DefaultConfigFile = "/etc/vmplane/vmplane.toml"

// Where a setting's value comes from, lowest precedence first: a flag beats its
// environment variable, which beats the configuration file, which beats the default.
const (
	SourceDefault = "default"
	SourceFile    = "file"
	SourceEnv     = "env"
	SourceFlag    = "flag"
)

var sourceRank = map[string]int{SourceDefault: 0, SourceFile: 1, SourceEnv: 2, SourceFlag: 3}

// secretSettings are the settings whose values `vmplane config check` masks; those
// with a *-file variant can be read from a file instead (systemd credentials, an image
// builder's secret file), so they need not be in the environment or argv.
var secretSettings = map[string]bool{
	"admin-password": true, "jwt-key": true, "proxmox-token-secret": true, "proxmox-console-password": true,
	"smtp-password": true, "pdns-api-key": true,
}

// secretFiles maps each secret that can come from a file to its *-file setting.
var secretFiles = [][2]string{
	{"admin-password", "admin-password-file"},
	{"jwt-key", "jwt-key-file"},
	{"proxmox-token-secret", "proxmox-token-secret-file"},
	{"smtp-password", "smtp-password-file"},
	{"pdns-api-key", "pdns-api-key-file"},
}

// Loaded is a parsed configuration together with where it came from.
type Loaded struct {
	Config Config
	// File is the configuration file that was read ("" when none).
	File string
	// Source maps each setting (flag name) to SourceFile, SourceEnv or SourceFlag;
	// a setting missing from it has its default.
	Source map[string]string
}

// EffectiveSetting is one line of `vmplane config check`.
type EffectiveSetting struct {
	Name, Env string
	// Value is the value as it would be written in the configuration file (TOML),
	// "[redacted]" for a secret that is set.
	Value  string
	Source string
}

// Effective lists every setting's value and source in the table's order, secrets masked.
func (l *Loaded) Effective() []EffectiveSetting {
	c := l.Config
	table := c.table()
	out := make([]EffectiveSetting, 0, len(table))
	for _, s := range table {
		src := l.Source[s.flag]
		if src == "" {
			src = SourceDefault
		}
		var v string
		switch x := s.get().(type) {
		case string:
			v = strconv.Quote(x)
			if secretSettings[s.flag] && x != "" {
				v = `"[redacted]"`
			}
		case time.Duration:
			v = strconv.Quote(x.String())
		default:
			v = fmt.Sprint(x)
		}
		out = append(out, EffectiveSetting{Name: s.flag, Env: s.env, Value: v, Source: src})
	}
	return out
}

// Load reads the configuration from the command line args (serve's flags, see
// AddFlags): defaults, then the configuration file (--config, VMPLANE_CONFIG, or
// DefaultConfigFile when it exists), then environment variables, then flags; then the
// *-file secrets and the checks. Errors are *ConfigError (one line, naming the setting,
// the value and, for the file's settings, the file); -h is pflag.ErrHelp.
func Load(args []string, getenv func(string) string) (Loaded, error) {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // the caller prints one line instead
	f := AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return Loaded{Source: map[string]string{}}, err
		}
		return Loaded{Source: map[string]string{}}, FlagError(err)
	}
	return f.Load(fs.Args(), getenv)
}

// Load reads the configuration with the flags of its FlagSet, parsed already (by
// cobra, or by Load): defaults, then the configuration file (--config, VMPLANE_CONFIG,
// or DefaultConfigFile when it exists), then environment variables, then the flags
// given; then the *-file secrets and the checks. args are the positional arguments
// left after the flags: serve takes none. Errors are *ConfigError.
func (f *Flags) Load(args []string, getenv func(string) string) (Loaded, error) {
	l := Loaded{Source: map[string]string{}, Config: Defaults()}
	c := &l.Config
	table := c.table()
	if len(args) > 0 {
		return l, &ConfigError{Allowed: fmt.Sprintf("unexpected arguments %q (settings are --flags, environment variables or the configuration file; see vmplane serve -h)", strings.Join(args, " "))}
	}
	path, explicit := *f.config, true
	if path == "" {
		path, explicit = getenvOr(getenv, "VMPLANE_CONFIG"), true
	}
	if path == "" {
		path, explicit = DefaultConfigFile, false
	}
	if path != "" {
		if _, err := os.Stat(path); err == nil || explicit {
			l.File = path
			if err := loadFile(path, table, l.Source); err != nil {
				return l, err
			}
		}
	}
	// Environment next, so that the flags applied afterwards override it.
	for _, s := range table {
		if v, ok := lookup(getenv, s.env); ok {
			if err := s.setFromEnv(v); err != nil {
				value := v
				if secretSettings[s.flag] {
					value = "[redacted]"
				}
				return l, &ConfigError{Flag: s.flag, Env: s.env, Value: value, Allowed: "must be " + kindOf(s.kind)}
			}
			l.Source[s.flag] = SourceEnv
		}
	}
	// The flags given last: their parsed values, written back in the text every kind
	// reads again (pflag's String of a duration, number or bool parses as itself).
	for _, s := range table {
		fl := f.set.Lookup(s.flag)
		if fl == nil || !fl.Changed {
			continue
		}
		if err := s.setFromEnv(fl.Value.String()); err != nil {
			return l, &ConfigError{Flag: s.flag, Env: s.env, Value: fl.Value.String(), Allowed: "must be " + kindOf(s.kind)}
		}
		l.Source[s.flag] = SourceFlag
	}
	if err := l.readSecretFiles(); err != nil {
		return l, err
	}
	if err := c.validate(); err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) && ce.Flag != "" && l.Source[ce.Flag] == SourceFile {
			ce.File = l.File
		}
		return l, err
	}
	return l, nil
}

func getenvOr(getenv func(string) string, name string) string {
	v, _ := lookup(getenv, name)
	return v
}

// loadFile applies the settings of the TOML file at path. Each key is a setting's flag
// name; its TOML type must fit the setting (a string for text and durations, an integer,
// a number, true or false).
func loadFile(path string, table []setting, source map[string]string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return &ConfigError{File: path, Allowed: "cannot read the configuration file: " + oneLine(err.Error())}
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return &ConfigError{File: path, Allowed: "not valid TOML: " + oneLine(err.Error())}
	}
	byName := map[string]setting{}
	for _, s := range table {
		byName[s.flag] = s
	}
	// In a fixed order, so the same file always reports the same first error.
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := raw[k]
		s, ok := byName[k]
		if !ok {
			return &ConfigError{File: path, Flag: k, Value: shown(k, v),
				Allowed: "no such setting (the keys are the flag names of vmplane serve -h, e.g. rate-global)"}
		}
		text, ok := tomlText(s.kind, v)
		bad := &ConfigError{File: path, Flag: k, Env: s.env, Value: shown(k, v), Allowed: "must be " + fileKind(s.kind)}
		if !ok {
			return bad
		}
		if err := s.setFromEnv(text); err != nil {
			return bad
		}
		source[k] = SourceFile
	}
	return nil
}

// tomlText converts a TOML value to the text the setting parses, if its type fits.
func tomlText(kind string, v any) (string, bool) {
	switch kind {
	case "string", "duration":
		s, ok := v.(string)
		return s, ok
	case "int", "int64":
		n, ok := v.(int64)
		return strconv.FormatInt(n, 10), ok
	case "float64":
		switch n := v.(type) {
		case int64:
			return strconv.FormatInt(n, 10), true
		case float64:
			return strconv.FormatFloat(n, 'g', -1, 64), true
		}
		return "", false
	case "bool":
		b, ok := v.(bool)
		return strconv.FormatBool(b), ok
	}
	return "", false
}

// fileKind says what a setting takes in the configuration file.
func fileKind(kind string) string {
	switch kind {
	case "string":
		return `a quoted string`
	case "duration":
		return `a quoted duration such as "30s", "5m" or "1h"`
	}
	return kindOf(kind)
}

// shown is how an error shows a file's value: secrets (and what looks like one, under
// a misspelled key) redacted, TOML strings as their text.
func shown(key string, v any) string {
	if secretSettings[key] {
		return "[redacted]"
	}
	if !strings.HasSuffix(key, "-file") {
		for _, w := range []string{"pas", "secret", "key", "token", "cred"} {
			if strings.Contains(key, w) {
				return "[redacted]"
			}
		}
	}
	if s, ok := v.(string); ok {
		return s
	}
	return oneLine(fmt.Sprint(v))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// readSecretFiles replaces each secret whose *-file setting is given by that file's
// content (without a final newline), unless the secret itself was given with a higher
// precedence; both from the same source is an error.
func (l *Loaded) readSecretFiles() error {
	c := &l.Config
	fields := map[string]*string{
		"admin-password": &c.AdminPassword, "admin-password-file": &c.AdminPasswordFile,
		"jwt-key": &c.JWTKey, "jwt-key-file": &c.JWTKeyFile,
		"proxmox-token-secret": &c.Proxmox.TokenSecret, "proxmox-token-secret-file": &c.Proxmox.TokenSecretFile,
		"smtp-password": &c.SMTPPassword, "smtp-password-file": &c.SMTPPasswordFile,
		"pdns-api-key": &c.PDNSAPIKey, "pdns-api-key-file": &c.PDNSAPIKeyFile,
	}
	for _, pair := range secretFiles {
		secret, file := pair[0], pair[1]
		path := *fields[file]
		if path == "" {
			continue
		}
		fileRank, secretRank := sourceRank[l.Source[file]], sourceRank[l.Source[secret]] // "" (default): 0
		if secretRank > fileRank {
			continue // e.g. --admin-password beats admin-password-file in the file
		}
		e := &ConfigError{Flag: file, Env: envOf(c, file), Value: path}
		if l.Source[file] == SourceFile {
			e.File = l.File
		}
		if secretRank == fileRank {
			e.Allowed = fmt.Sprintf("%s is set too; set one of them", secret)
			return e
		}
		data, err := os.ReadFile(path)
		if err != nil {
			e.Allowed = "cannot read the secret: " + oneLine(err.Error())
			return e
		}
		*fields[secret] = strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r")
		l.Source[secret] = l.Source[file]
	}
	return nil
}

func envOf(c *Config, name string) string {
	for _, s := range c.table() {
		if s.flag == name {
			return s.env
		}
	}
	return ""
}
