// Package ssotest is a real OpenID Connect provider for tests, on loopback:
// zitadel/oidc's provider (package op) with the in-memory storage of its example and
// its login form, which Browse posts to as a browser would. The storage is wrapped for
// what the example lacks: a groups claim (what a vmplane provider's tenant_claim
// reads), the redirect URIs of a vmplane whose port is known only at run time, and a
// second client, Confused, whose ID tokens the provider issues for another audience.
package ssotest

import (
	"context"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
	"golang.org/x/text/language"
)

// Clients of the provider, and the password of its users.
const (
	// Client is vmplane's client (provider "corp" of File), with secret Client+"-secret".
	Client = "vmplane"
	// Confused is the client whose ID tokens name another audience (provider
	// "confused" of File), with secret Confused+"-secret".
	Confused = "confused"
	// Password is every user's password at the provider.
	Password = "idp-password"
)

// User is a user of the provider: Browse signs in as its ID.
type User struct {
	ID, Email string
	// Unverified: the provider does not vouch for the e-mail (email_verified false).
	Unverified bool
	// Groups is the user's groups claim.
	Groups []string
}

// Provider is a running provider.
type Provider struct {
	// URL is its issuer URL.
	URL string
	t   testing.TB
	st  *idpStorage
}

// Start starts a provider with users, stopped when t ends.
func Start(t testing.TB, users ...User) *Provider {
	t.Helper()
	us := idpUsers{}
	groups := map[string][]string{}
	for _, u := range users {
		us[u.ID] = &storage.User{ID: u.ID, Username: u.ID, Password: Password, FirstName: u.ID, LastName: "Example", Email: u.Email,
			EmailVerified: !u.Unverified, PreferredLanguage: language.English}
		groups[u.ID] = u.Groups
	}
	cs := map[string]*storage.Client{}
	for _, id := range []string{Client, Confused} {
		cs[id] = storage.WebClient(id, id+"-secret", "http://unused.invalid/")
	}
	st := &idpStorage{Storage: storage.NewStorageWithClients(us, cs), groups: groups}
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	h = exampleop.SetupServer(srv.URL, st, nil, false)
	return &Provider{URL: srv.URL, t: t, st: st}
}

// Serve is an address on loopback, with a port free now, for a vmplane whose
// providers (of File) the provider then sends users back to.
func (p *Provider) Serve() string {
	p.t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		p.t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	p.st.mu.Lock()
	defer p.st.mu.Unlock()
	for _, id := range []string{"corp", "confused"} {
		p.st.redirects = append(p.st.redirects, "http://"+addr+"/api/auth/oidc/"+id+"/callback")
	}
	return addr
}

// File writes a providers file (app's --oidc-providers-file) for the vmplane at addr
// that names the provider twice: as corp (client Client, users created where
// tenantMap places their groups claim) and as confused (client Confused).
func (p *Provider) File(addr string, tenantMap map[string]string) string {
	p.t.Helper()
	dir := p.t.TempDir()
	write := func(name, body string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			p.t.Fatal(err)
		}
		return f
	}
	var m []string
	for k, v := range tenantMap {
		m = append(m, strconv.Quote(k)+" = "+strconv.Quote(v))
	}
	return write("oidc.toml", `
[[provider]]
id = "corp"
name = "Corp SSO"
issuer = "`+p.URL+`"
redirect_base_url = "http://`+addr+`"
client_id = "`+Client+`"
client_secret_file = "`+write("secret", Client+"-secret\n")+`"
scopes = ["openid", "email", "profile"]
create_users = true
tenant_claim = "groups"
tenant_map = { `+strings.Join(m, ", ")+` }

[[provider]]
id = "confused"
issuer = "`+p.URL+`"
redirect_base_url = "http://`+addr+`"
client_id = "`+Confused+`"
client_secret_file = "`+write("confused-secret", Confused+"-secret")+`"
`)
}

// Browse walks a sign-in as a browser would, from startURL (a vmplane's
// /api/auth/oidc/{provider}/start, or the provider URL it redirects to) through the
// provider's login form as user, and stops where the provider sends the browser back
// to base: it answers that URL, vmplane's callback with the provider's code and state.
func Browse(t testing.TB, base, startURL, user string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	next := startURL
	for range 10 {
		if strings.HasPrefix(next, base+"/api/auth/oidc/") && strings.Contains(next, "/callback") {
			return next
		}
		res, err := c.Get(next)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		switch {
		case res.StatusCode == http.StatusFound || res.StatusCode == http.StatusSeeOther:
			loc, err := res.Request.URL.Parse(res.Header.Get("Location"))
			if err != nil {
				t.Fatal(err)
			}
			next = loc.String()
		case res.StatusCode == http.StatusOK && res.Request.URL.Path == "/login/username":
			// The provider's login form.
			form := url.Values{"id": {res.Request.URL.Query().Get("authRequestID")}, "username": {user}, "password": {Password}}
			res, err = c.PostForm(res.Request.URL.Scheme+"://"+res.Request.URL.Host+"/login/username", form)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusFound {
				t.Fatalf("the provider's login form: %d", res.StatusCode)
			}
			loc, _ := res.Request.URL.Parse(res.Header.Get("Location"))
			next = loc.String()
		default:
			t.Fatalf("GET %s: %d", next, res.StatusCode)
		}
	}
	t.Fatalf("no callback after 10 redirects (at %s)", next)
	return ""
}

type idpUsers map[string]*storage.User

func (u idpUsers) GetUserByID(id string) *storage.User { return u[id] }
func (u idpUsers) GetUserByUsername(name string) *storage.User {
	for _, usr := range u {
		if usr.Username == name {
			return usr
		}
	}
	return nil
}
func (u idpUsers) ExampleClientID() string { return storage.ServiceUserID }

type idpStorage struct {
	*storage.Storage
	groups map[string][]string // user id → its groups claim

	mu         sync.Mutex
	redirects  []string
	exchanging bool // Confused's code is being exchanged
	wrongNonce bool // ID tokens carry a nonce other than the authorization's
}

// WrongNonce makes the provider put, while on, a nonce other than the one of the
// authorization in the ID tokens it issues: what a token minted for another sign-in
// (a replayed or injected one) looks like to the client.
func (p *Provider) WrongNonce(on bool) {
	p.st.mu.Lock()
	defer p.st.mu.Unlock()
	p.st.wrongNonce = on
}

// otherNonce is an authorization whose ID token carries a nonce it was not asked with.
type otherNonce struct{ op.AuthRequest }

func (otherNonce) GetNonce() string { return "not-the-sign-in-s-nonce" }

// redirectClient is a client whose redirect URIs are the test's.
type redirectClient struct {
	op.Client
	uris []string
}

func (c redirectClient) RedirectURIs() []string { return c.uris }

// otherAudience is the authorization of Confused as its code's exchange sees it:
// made for another client, so that its ID token names that client alone (the
// provider names the authorization's client in every ID token's aud and azp).
type otherAudience struct{ op.AuthRequest }

func (otherAudience) GetClientID() string   { return "someone-else" }
func (otherAudience) GetAudience() []string { return []string{"someone-else"} }

// otherClient is Confused as the exchange sees it, consistent with its authorization
// (the provider checks that the two agree).
type otherClient struct{ op.Client }

func (otherClient) GetID() string { return "someone-else" }

func (s *idpStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c = redirectClient{Client: c, uris: append([]string(nil), s.redirects...)}
	if id == Confused && s.exchanging {
		// The token endpoint looks the client up after the code's authorization.
		s.exchanging = false
		c = otherClient{c}
	}
	return c, nil
}

func (s *idpStorage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	r, err := s.Storage.AuthRequestByCode(ctx, code)
	s.mu.Lock()
	wrong := s.wrongNonce
	s.mu.Unlock()
	if err == nil && wrong {
		return otherNonce{r}, nil
	}
	if err == nil && r.GetClientID() == Confused {
		s.mu.Lock()
		s.exchanging = true
		s.mu.Unlock()
		return otherAudience{r}, nil
	}
	return r, err
}

func (s *idpStorage) SetUserinfoFromToken(ctx context.Context, ui *oidc.UserInfo, tokenID, subject, origin string) error {
	if err := s.Storage.SetUserinfoFromToken(ctx, ui, tokenID, subject, origin); err != nil {
		return err
	}
	if g, ok := s.groups[ui.Subject]; ok {
		ui.AppendClaims("groups", g)
	}
	return nil
}
