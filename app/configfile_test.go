package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeConfig writes a configuration file in a fresh directory and returns its path.
func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "vmplane.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func envOfMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// A flag beats its variable, which beats the file, which beats the default; and the
// sources are reported as such.
func TestConfigFilePrecedence(t *testing.T) {
	t.Parallel()
	f := writeConfig(t, `
rate-global = 50
rate-auth = 7
addr = "127.0.0.1:1"
shutdown-timeout = "5s"
node-usage-threshold = 1
store-sync-each-write = true
`)
	l, err := Load([]string{"--config", f, "--addr", "127.0.0.1:2"}, envOfMap(map[string]string{"VMPLANE_RATE_AUTH": "8"}))
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if c.RateGlobal != 50 || c.RateAuth != 8 || c.Addr != "127.0.0.1:2" || c.ShutdownTimeout != 5*time.Second ||
		c.NodeUsageThreshold != 1 || !c.StoreSyncEach || c.RateLogin != 10 {
		t.Fatalf("got rate-global %v rate-auth %v addr %q shutdown %v threshold %v sync-each %v rate-login %v",
			c.RateGlobal, c.RateAuth, c.Addr, c.ShutdownTimeout, c.NodeUsageThreshold, c.StoreSyncEach, c.RateLogin)
	}
	want := map[string]string{"rate-global": SourceFile, "rate-auth": SourceEnv, "addr": SourceFlag, "rate-login": SourceDefault}
	for _, s := range l.Effective() {
		if w, ok := want[s.Name]; ok && s.Source != w {
			t.Errorf("%s: source %s, want %s", s.Name, s.Source, w)
		}
	}
	if l.File != f {
		t.Errorf("File = %q, want %q", l.File, f)
	}
	// VMPLANE_CONFIG names the file when --config does not; the flag beats it.
	other := writeConfig(t, "rate-global = 60\n")
	l, err = Load(nil, envOfMap(map[string]string{"VMPLANE_CONFIG": other}))
	if err != nil || l.Config.RateGlobal != 60 {
		t.Fatalf("VMPLANE_CONFIG: rate-global %v, err %v", l.Config.RateGlobal, err)
	}
	l, err = Load([]string{"--config", f}, envOfMap(map[string]string{"VMPLANE_CONFIG": other}))
	if err != nil || l.Config.RateGlobal != 50 {
		t.Fatalf("--config over VMPLANE_CONFIG: rate-global %v, err %v", l.Config.RateGlobal, err)
	}
}

// The default file is read only when it exists; a file named explicitly must exist.
// Not parallel: it sets DefaultConfigFile, which every Load without --config reads
// (sequential tests end before the parallel ones start).
func TestConfigFileDefaultPath(t *testing.T) {
	saved := DefaultConfigFile
	t.Cleanup(func() { DefaultConfigFile = saved })
	DefaultConfigFile = filepath.Join(t.TempDir(), "missing.toml")
	if l, err := Load(nil, envOfMap(nil)); err != nil || l.File != "" {
		t.Fatalf("missing default file: File %q, err %v", l.File, err)
	}
	DefaultConfigFile = writeConfig(t, "sim-nodes = 5\n")
	if l, err := Load(nil, envOfMap(nil)); err != nil || l.Config.SimNodes != 5 {
		t.Fatalf("default file: sim-nodes %d, err %v", l.Config.SimNodes, err)
	}
	missing := filepath.Join(t.TempDir(), "nope.toml")
	_, err := Load([]string{"--config", missing}, envOfMap(nil))
	if err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("explicit missing file: %v", err)
	}
}

// Unknown keys, values of the wrong type and values out of range are one-line
// ConfigError values naming the key, the value and the file; secrets are not shown.
func TestConfigFileErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body string
		want []string
	}{
		{"rate-globl = 100\n", []string{"rate-globl", `"100"`, "no such setting"}},
		{"bcrypt-cost = \"ten\"\n", []string{"bcrypt-cost", `"ten"`, "must be an integer"}},
		{"bcrypt-cost = 40\n", []string{"bcrypt-cost", `"40"`, "must be 4..31"}},
		{"shutdown-timeout = 30\n", []string{"shutdown-timeout", `"30"`, "quoted duration"}},
		{"shutdown-timeout = \"soon\"\n", []string{"shutdown-timeout", `"soon"`, "quoted duration"}},
		{"driver = \"xen\"\n", []string{"driver", `"xen"`, "must be sim or proxmox"}},
		{"[proxmox]\nurl = \"x\"\n", []string{"proxmox", "no such setting"}},
		{"jwt-key = 12\n", []string{"jwt-key", "[redacted]", "quoted string"}},
		{"admin-pasword = \"hunter2hunter2\"\n", []string{"admin-pasword", "[redacted]", "no such setting"}},
		{"rate-global = [1,\n", []string{"not valid TOML", "line"}},
	}
	for _, tc := range cases {
		f := writeConfig(t, tc.body)
		_, err := Load([]string{"--config", f}, envOfMap(nil))
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Fatalf("%q: err %v, want a ConfigError", tc.body, err)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, f) || strings.Contains(msg, "hunter2") {
			t.Errorf("%q: %q must be one line naming %s without the secret", tc.body, msg, f)
		}
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q: %q lacks %q", tc.body, msg, w)
			}
		}
	}
}

// Secrets are read from *_FILE variables and *-file keys, without a final newline; the
// plain secret from a higher source wins, both from the same source is an error.
func TestConfigSecretFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	secret := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pw := secret("pw", "from-a-file\n")
	key := secret("key", strings.Repeat("k", 40)+"\n")
	tok := secret("tok", "token-secret")
	f := writeConfig(t, "jwt-key-file = \""+key+"\"\nadmin-password = \"from-the-file\"\n")
	l, err := Load([]string{"--config", f}, envOfMap(map[string]string{
		"VMPLANE_ADMIN_PASSWORD_FILE": pw, "VMPLANE_PROXMOX_TOKEN_SECRET_FILE": tok}))
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	if c.AdminPassword != "from-a-file" || c.JWTKey != strings.Repeat("k", 40) || c.Proxmox.TokenSecret != "token-secret" {
		t.Fatalf("admin %q, jwt %q, token %q", c.AdminPassword, c.JWTKey, c.Proxmox.TokenSecret)
	}
	// The flag beats the file's *-file key.
	l, err = Load([]string{"--config", f, "--jwt-key", strings.Repeat("f", 32)}, envOfMap(nil))
	if err != nil || l.Config.JWTKey != strings.Repeat("f", 32) {
		t.Fatalf("flag over jwt-key-file: %q, %v", l.Config.JWTKey, err)
	}
	// Both from the environment: refused, naming both.
	_, err = Load(nil, envOfMap(map[string]string{"VMPLANE_ADMIN_PASSWORD_FILE": pw, "VMPLANE_ADMIN_PASSWORD": "x"}))
	if err == nil || !strings.Contains(err.Error(), "admin-password-file") || !strings.Contains(err.Error(), "admin-password is set too") {
		t.Fatalf("both set: %v", err)
	}
	// A missing secret file names the key and the file it was configured in.
	g := writeConfig(t, "proxmox-token-secret-file = \""+filepath.Join(dir, "absent")+"\"\n")
	_, err = Load([]string{"--config", g}, envOfMap(nil))
	if err == nil || !strings.Contains(err.Error(), "proxmox-token-secret-file") || !strings.Contains(err.Error(), g) {
		t.Fatalf("missing secret file: %v", err)
	}
}

// Effective masks the secrets that are set and shows everything else as TOML.
func TestConfigEffectiveMasksSecrets(t *testing.T) {
	t.Parallel()
	l, err := Load([]string{"--admin-password", "hunter2hunter2", "--jwt-key", strings.Repeat("s", 32),
		"--proxmox-token-secret", "tok-secret", "--proxmox-console-password", "console-pw"}, envOfMap(nil))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, s := range l.Effective() {
		seen[s.Name] = s.Value
		for _, secret := range []string{"hunter2", "sssss", "tok-secret", "console-pw"} {
			if strings.Contains(s.Value, secret) {
				t.Errorf("%s shows its secret: %s", s.Name, s.Value)
			}
		}
	}
	for _, name := range []string{"admin-password", "jwt-key", "proxmox-token-secret", "proxmox-console-password"} {
		if seen[name] != `"[redacted]"` {
			t.Errorf("%s = %s, want masked", name, seen[name])
		}
	}
	if seen["rate-global"] != "100" || seen["shutdown-timeout"] != `"20s"` || seen["proxmox-insecure"] != "false" {
		t.Errorf("rate-global %s, shutdown-timeout %s, proxmox-insecure %s", seen["rate-global"], seen["shutdown-timeout"], seen["proxmox-insecure"])
	}
	if n := len(l.Config.table()); len(seen) != n {
		t.Errorf("%d settings shown, the table has %d", len(seen), n)
	}
}

// The mail settings: a password from a file, and each combination that cannot work
// refused naming the setting at fault.
func TestConfigSMTP(t *testing.T) {
	t.Parallel()
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("relay-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := map[string]string{"VMPLANE_SMTP_HOST": "smtp.example.com", "VMPLANE_SMTP_FROM": "Example <panel@example.com>",
		"VMPLANE_PUBLIC_URL": "https://panel.example.com", "VMPLANE_SMTP_USER": "relay", "VMPLANE_SMTP_PASSWORD_FILE": pw}
	l, err := Load(nil, envOfMap(ok))
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Config; c.SMTPPassword != "relay-secret" || c.SMTPPort != 587 || c.SMTPSecurity != "starttls" {
		t.Fatalf("password %q, port %d, security %q", c.SMTPPassword, c.SMTPPort, c.SMTPSecurity)
	}
	for _, tc := range []struct {
		change map[string]string
		flag   string
	}{
		{map[string]string{"VMPLANE_SMTP_SECURITY": "ssl"}, "smtp-security"},
		{map[string]string{"VMPLANE_SMTP_PORT": "0"}, "smtp-port"},
		{map[string]string{"VMPLANE_SMTP_FROM": ""}, "smtp-from"},
		{map[string]string{"VMPLANE_PUBLIC_URL": ""}, "public-url"},
		{map[string]string{"VMPLANE_SMTP_FROM": "panel"}, "smtp-host"},
		{map[string]string{"VMPLANE_SMTP_SECURITY": "none"}, "smtp-host"}, // a password in plain text to another host
	} {
		env := map[string]string{}
		for k, v := range ok {
			env[k] = v
		}
		for k, v := range tc.change {
			env[k] = v
		}
		_, err := Load(nil, envOfMap(env))
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Flag != tc.flag {
			t.Errorf("%v: %v; want an error naming %s", tc.change, err, tc.flag)
		}
	}
	// Plain text to a relay on this host is fine.
	env := map[string]string{"VMPLANE_SMTP_HOST": "127.0.0.1", "VMPLANE_SMTP_PORT": "25", "VMPLANE_SMTP_SECURITY": "none",
		"VMPLANE_SMTP_USER": "relay", "VMPLANE_SMTP_PASSWORD": "x", "VMPLANE_SMTP_FROM": "panel@example.com", "VMPLANE_PUBLIC_URL": "http://127.0.0.1:8080"}
	if _, err := Load(nil, envOfMap(env)); err != nil {
		t.Fatal(err)
	}
}
