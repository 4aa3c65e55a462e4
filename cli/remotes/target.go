package remotes

import (
	"fmt"
	"net/http"

	"github.com/vmplane/vmplane/cli/cmdline"
)

// Target is the server a command talks to, and the remote it is known as, whose
// stored login goes with it.
type Target struct {
	Name string // the remote's name; "" for a URL that names no remote
	Base string // the server's base URL, without a trailing slash
}

// Target resolves the server of a command: url when given (--url, VMPLANE_URL), as the
// remote of that URL (the one called name, when given) if there is one; else the
// remote called name (--remote, VMPLANE_REMOTE); else the current remote. No remote
// to talk to is a usage error.
func (c *Config) Target(url, name string) (Target, error) {
	if url != "" {
		t := Target{Base: TrimBase(url)}
		for _, r := range c.Remotes {
			if TrimBase(r.URL) == t.Base && (name == "" || name == r.Name) {
				t.Name = r.Name // its login goes with it
				break
			}
		}
		return t, nil
	}
	if name == "" {
		name = c.Current
	}
	if name == "" {
		return Target{}, cmdline.Usagef("no remote: add one with 'vmplane remote add NAME URL', or give --url (env VMPLANE_URL)")
	}
	r, ok := c.Remote(name)
	if !ok {
		return Target{}, cmdline.Usagef("no remote %q (see 'vmplane remote list')", name)
	}
	return Target{Name: r.Name, Base: TrimBase(r.URL)}, nil
}

// Connect is an HTTP client that puts a login on every request to t: token when
// given (--token, VMPLANE_TOKEN), else the remote's stored login, as a Session (also
// returned, nil for a token) that renews it. The Go client is given no token of its
// own: this transport sets it.
func (s Store) Connect(t Target, token string) (*http.Client, *Session, error) {
	if token != "" {
		return &http.Client{Transport: Bearer(token, NewTransport())}, nil, nil
	}
	creds, err := s.LoadCredentials()
	if err != nil {
		return nil, nil, err
	}
	if t.Name == "" {
		// A --url no remote names has no stored login to use.
		return nil, nil, fmt.Errorf("no login for %s: give --token (env VMPLANE_TOKEN), or add it as a remote "+
			"('vmplane remote add NAME %s') and run 'vmplane login NAME'", t.Base, t.Base)
	}
	cr, ok := creds[t.Name]
	if !ok {
		return nil, nil, fmt.Errorf("not logged in to %s: run 'vmplane login %s', or give --token (env VMPLANE_TOKEN)", t.Name, t.Name)
	}
	sess := NewSession(s, t.Name, t.Base, NewTransport(), cr)
	return &http.Client{Transport: sess}, sess, nil
}

// NewTransport is the transport under the client's requests: a copy of the default
// one (a pool of its own), HTTP/1.1 only (ForceAttemptHTTP2 off).
func NewTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ForceAttemptHTTP2 = false
	return t
}

// Bearer is a transport that sends every request through next with token as its
// bearer token: how --token (and VMPLANE_TOKEN) sign requests.
func Bearer(token string, next http.RoundTripper) http.RoundTripper { return bearer{token, next} }

// bearer sends every request with a fixed token.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
