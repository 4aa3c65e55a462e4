// Package remotes is the command-line client's state on disk: the servers it knows by
// name (config.json) and the login kept for each (credentials.json), in a private
// directory, with the file lock that keeps concurrent token refreshes from spending a
// refresh token twice; the Session that puts a remote's stored login on requests and
// renews it, logging in and out; and the Target of a command (--url, --remote or the
// current remote) with the HTTP client that signs its requests (Store.Connect).
package remotes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Store is the CLI's state on disk, in one directory ($XDG_CONFIG_HOME/vmplane, or
// ~/.config/vmplane): config.json names the remotes and the current one,
// credentials.json holds each remote's login. The directory is 0700 and every file
// 0600, whatever the umask, since the credentials open the account.
type Store struct {
	Dir string
}

// Remote is a server the CLI knows by name.
type Remote struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// Config is the content of config.json.
type Config struct {
	// Current is the remote used when --remote and --url are not given.
	Current string   `json:"current"`
	Remotes []Remote `json:"remotes"`
}

// Credentials is the login kept for one remote: no password, only the token pair. A
// refresh spends the refresh token (the server rotates it), so the new pair is written
// back before it is used.
type Credentials struct {
	Email        string    `json:"email"`
	Role         string    `json:"role,omitempty"`
	Token        string    `json:"token"`
	RefreshToken string    `json:"refresh_token"`
	ExpiresAt    time.Time `json:"expires_at"`
	// MustEnrolTOTP is what the login's answer said: the login may only enrol the
	// second factor its user must have. Not kept: the server says it again.
	MustEnrolTOTP bool `json:"-"`
}

const (
	configFile = "config.json"
	credsFile  = "credentials.json"
	lockFile   = "credentials.lock"
)

// Dir is where the Store lives for the environment getenv reads.
func Dir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "vmplane"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither XDG_CONFIG_HOME nor HOME is set: nowhere to keep remotes and logins")
	}
	return filepath.Join(home, ".config", "vmplane"), nil
}

// Remote returns the remote called name.
func (c *Config) Remote(name string) (Remote, bool) {
	for _, r := range c.Remotes {
		if r.Name == name {
			return r, true
		}
	}
	return Remote{}, false
}

// LoadConfig reads config.json; a missing file is an empty configuration.
func (s Store) LoadConfig() (*Config, error) {
	var c Config
	if err := s.read(configFile, &c); err != nil {
		return nil, err
	}
	return &c, nil
}

// SaveConfig writes config.json, the remotes sorted by name.
func (s Store) SaveConfig(c *Config) error {
	sort.Slice(c.Remotes, func(i, j int) bool { return c.Remotes[i].Name < c.Remotes[j].Name })
	return s.write(configFile, c)
}

// LoadCredentials reads credentials.json: the login of each remote by name.
func (s Store) LoadCredentials() (map[string]Credentials, error) {
	m := map[string]Credentials{}
	if err := s.read(credsFile, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// SaveCredentials writes credentials.json.
func (s Store) SaveCredentials(m map[string]Credentials) error { return s.write(credsFile, m) }

// UpdateCredentials changes the login of one remote under the store's lock, so that
// two vmplane processes refreshing at once do not both spend the same refresh token
// (the server would take the second spend for theft and end the login). f sees the
// stored login (ok false when there is none) and returns the one to store, or nil to
// remove it.
func (s Store) UpdateCredentials(remote string, f func(cur Credentials, ok bool) (*Credentials, error)) error {
	unlock, err := s.lock()
	if err != nil {
		return err
	}
	defer unlock()
	m, err := s.LoadCredentials()
	if err != nil {
		return err
	}
	cur, ok := m[remote]
	next, err := f(cur, ok)
	if err != nil {
		return err
	}
	if next == nil {
		if !ok {
			return nil
		}
		delete(m, remote)
	} else {
		m[remote] = *next
	}
	return s.SaveCredentials(m)
}

func (s Store) read(name string, v any) error {
	b, err := os.ReadFile(filepath.Join(s.Dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(s.Dir, name), err)
	}
	return nil
}

// write replaces a file atomically (a new file renamed over the old), so that a
// crash or a concurrent reader never sees half a file, and gives it mode 0600.
func (s Store) write(name string, v any) error {
	if err := s.ensureDir(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.Dir, name+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after the rename, there is nothing left to remove
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(s.Dir, name))
}

// ensureDir creates the directory 0700, and narrows an existing one to 0700.
func (s Store) ensureDir() error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(s.Dir, 0o700)
}

// lock takes the store's exclusive lock, waiting for another process that holds it.
func (s Store) lock() (func(), error) {
	if err := s.ensureDir(); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(s.Dir, lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := lockFileExclusive(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}
