package app

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

	"github.com/vmplane/vmplane/actors/auth"
)

// The OpenID Connect provider of these tests: zitadel/oidc's provider (package op)
// with the in-memory storage of its example, served on loopback. Its users sign in
// through its login form, which the tests post to as a browser would. The storage is
// wrapped for what the example lacks: a groups claim (the tenant claim), the
// redirect URI of a vmplane whose port is known only at run time, and a client whose
// ID tokens the provider issues for another audience.
type testIDP struct {
	t   *testing.T
	srv *httptest.Server
	st  *idpStorage
}

// confusedClient is the client whose ID tokens name another audience.
const confusedClient = "confused"

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
	exchanging bool // confusedClient's code is being exchanged
}

// redirectClient is a client whose redirect URIs are the test's.
type redirectClient struct {
	op.Client
	uris []string
}

func (c redirectClient) RedirectURIs() []string { return c.uris }

func (s *idpStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c = redirectClient{Client: c, uris: append([]string(nil), s.redirects...)}
	if id == confusedClient && s.exchanging {
		// The token endpoint looks the client up after the code's authorization.
		s.exchanging = false
		c = otherClient{c}
	}
	return c, nil
}

// otherAudience is the authorization of confusedClient as its code's exchange sees
// it: made for another client, so that its ID token names that client alone (the
// provider names the authorization's client in every ID token's aud and azp).
type otherAudience struct{ op.AuthRequest }

func (otherAudience) GetClientID() string   { return "someone-else" }
func (otherAudience) GetAudience() []string { return []string{"someone-else"} }

// otherClient is confusedClient as the exchange sees it, consistent with its
// authorization (the provider checks that the two agree).
type otherClient struct{ op.Client }

func (otherClient) GetID() string { return "someone-else" }

func (s *idpStorage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	r, err := s.Storage.AuthRequestByCode(ctx, code)
	if err == nil && r.GetClientID() == confusedClient {
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

func startIDP(t *testing.T, users idpUsers, groups map[string][]string) *testIDP {
	t.Helper()
	cs := map[string]*storage.Client{}
	for _, id := range []string{"vmplane", confusedClient} {
		cs[id] = storage.WebClient(id, id+"-secret", "http://unused.invalid/")
	}
	st := &idpStorage{Storage: storage.NewStorageWithClients(users, cs), groups: groups}
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	h = exampleop.SetupServer(srv.URL, st, nil, false)
	return &testIDP{t: t, srv: srv, st: st}
}

func idpUser(id, email string) *storage.User {
	return &storage.User{ID: id, Username: id, Password: "idp-password", FirstName: id, LastName: "Example", Email: email,
		EmailVerified: true, PreferredLanguage: language.English}
}

// serve is the address (on loopback, free now) of the vmplane that the provider's
// clients send their users back to, through the callbacks of providers.
func (idp *testIDP) serve(providers ...string) string {
	idp.t.Helper()
	addr := freeAddr(idp.t)
	idp.st.mu.Lock()
	defer idp.st.mu.Unlock()
	for _, p := range providers {
		idp.st.redirects = append(idp.st.redirects, "http://"+addr+"/api/auth/oidc/"+p+"/callback")
	}
	return addr
}

// oidcFile writes a providers file for the vmplane at addr, naming idp twice: as corp (client vmplane, users
// created where tenantMap places their groups claim) and as confused (client
// confusedClient, whose ID tokens are for another audience).
func oidcFile(t *testing.T, idp *testIDP, addr string, tenantMap map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var m []string
	for k, v := range tenantMap {
		m = append(m, strconv.Quote(k)+" = "+strconv.Quote(v))
	}
	return write("oidc.toml", `
[[provider]]
id = "corp"
name = "Corp SSO"
issuer = "`+idp.srv.URL+`"
redirect_base_url = "http://`+addr+`"
client_id = "vmplane"
client_secret_file = "`+write("secret", "vmplane-secret\n")+`"
scopes = ["openid", "email", "profile"]
create_users = true
tenant_claim = "groups"
tenant_map = { `+strings.Join(m, ", ")+` }

[[provider]]
id = "confused"
issuer = "`+idp.srv.URL+`"
redirect_base_url = "http://`+addr+`"
client_id = "`+confusedClient+`"
client_secret_file = "`+write("confused-secret", confusedClient+"-secret")+`"
`)
}

// freeAddr is a loopback address with a port free now, for a server whose URL must
// be known before it starts (the provider's redirect URI).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// browser walks a sign-in as a browser would: from vmplane's start to the provider,
// through its login form, and back, stopping at vmplane's callback, whose URL (with
// the provider's code and state) it answers.
func browser(t *testing.T, s *testServer, provider, user string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	next := s.base + "/api/auth/oidc/" + provider + "/start?redirect_to=/machines"
	for range 10 {
		if strings.HasPrefix(next, s.base+"/api/auth/oidc/"+provider+"/callback") {
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
			form := url.Values{"id": {res.Request.URL.Query().Get("authRequestID")}, "username": {user}, "password": {"idp-password"}}
			res, err = c.PostForm(res.Request.URL.Scheme+"://"+res.Request.URL.Host+"/login/username", form)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusFound {
				t.Fatalf("login form: %d", res.StatusCode)
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

// callback GETs vmplane's callback URL as a program (asking for JSON).
func callback(s *testServer, u string) *response {
	return s.do(req{method: "GET", path: strings.TrimPrefix(u, s.base), header: map[string]string{"Accept": "application/json"}})
}

func TestOIDCLogin(t *testing.T) {
	t.Parallel()
	users := idpUsers{
		"alice":    idpUser("alice", "alice@acme.test"),
		"root":     idpUser("root", testAdminEmail),
		"stranger": idpUser("stranger", "stranger@else.test"),
		"bob":      idpUser("bob", "bob@acme.test"),
	}
	users["bob"].EmailVerified = false
	idp := startIDP(t, users, map[string][]string{
		"alice": {"acme-staff", "everyone"}, "root": {"ops"}, "stranger": {"everyone"}, "bob": {"acme-staff"},
	})

	addr := idp.serve("corp", "confused")
	s, admin := synced(t, func(c *Config) { c.Addr = addr })
	acme := s.tenant(admin, "Acme", nil)

	// No provider yet: the list is empty and a start is 404.
	var list struct{ Providers []struct{ ID, Name string } }
	r := s.do(req{method: "GET", path: "/api/auth/oidc/providers"})
	expect(t, r, 200, "")
	r.decode(t, &list)
	if len(list.Providers) != 0 {
		t.Fatalf("providers %s; want none", r.Body)
	}
	expect(t, s.do(req{method: "GET", path: "/api/auth/oidc/corp/start"}), 404, "not_found")

	file := oidcFile(t, idp, addr, map[string]string{"acme-staff": acme.ID, "ops": "operator"})
	s.stop()
	s.cfg.OIDCProvidersFile = file
	s.start()

	r = s.do(req{method: "GET", path: "/api/auth/oidc/providers"})
	expect(t, r, 200, "")
	r.decode(t, &list)
	if len(list.Providers) != 2 || list.Providers[0].ID != "confused" || list.Providers[1].Name != "Corp SSO" {
		t.Fatalf("providers %s", r.Body)
	}
	expect(t, s.do(req{method: "GET", path: "/api/auth/oidc/nope/start"}), 404, "not_found")
	expect(t, s.do(req{method: "GET", path: "/api/auth/oidc/corp/start?redirect_to=https://evil.test/"}), 400, "invalid_request")
	expect(t, s.do(req{method: "GET", path: "/api/auth/oidc/corp/start?redirect_to=//evil.test/"}), 400, "invalid_request")

	// A new user, created on its first sign-in in the tenant its claim maps to.
	cb := browser(t, s, "corp", "alice")
	if q, _ := url.Parse(cb); q.Query().Get("code") == "" || q.Query().Get("state") == "" {
		t.Fatalf("callback %s; want a code and a state", cb)
	}
	// A wrong state is refused, and leaves the right one to its callback.
	u, _ := url.Parse(cb)
	q := u.Query()
	q.Set("state", auth.RandomToken(32))
	u.RawQuery = q.Encode()
	expect(t, callback(s, u.String()), 400, "oidc_state_invalid")
	r = callback(s, cb)
	expect(t, r, 200, "")
	var tok struct {
		Token string
		User  auth.User
	}
	r.decode(t, &tok)
	if tok.User.Email != "alice@acme.test" || tok.User.Role != auth.RoleUser || tok.User.TenantID == nil || *tok.User.TenantID != acme.ID {
		t.Fatalf("signed in %+v; want a new user of tenant %s", tok.User, acme.ID)
	}
	var me auth.User
	r = s.do(req{method: "GET", path: "/api/auth/me", token: tok.Token})
	expect(t, r, 200, "")
	r.decode(t, &me)
	if me.ID != tok.User.ID {
		t.Fatalf("me %+v", me)
	}
	expect(t, s.do(req{method: "GET", path: "/api/client/machines", token: tok.Token}), 200, "")
	sessions := listOf[auth.SessionInfo](s, tok.Token, "/api/auth/sessions")
	if len(sessions) != 1 || sessions[0].Method != auth.MethodOIDC {
		t.Fatalf("sessions %+v; want one of method oidc", sessions)
	}
	// The same code and state again: the state is spent.
	expect(t, callback(s, cb), 400, "oidc_state_invalid")

	// Signing in again finds the user the first sign-in created.
	r = callback(s, browser(t, s, "corp", "alice"))
	expect(t, r, 200, "")
	var again struct{ User auth.User }
	r.decode(t, &again)
	if again.User.ID != tok.User.ID {
		t.Fatalf("second sign-in %s; want user %s", again.User.ID, tok.User.ID)
	}

	// An operator that exists, matched by e-mail, placed among the operators.
	r = callback(s, browser(t, s, "corp", "root"))
	expect(t, r, 200, "")
	var root struct {
		Token string
		User  auth.User
	}
	r.decode(t, &root)
	if root.User.Email != testAdminEmail || root.User.Role != auth.RoleAdmin {
		t.Fatalf("signed in %+v; want the admin", root.User)
	}
	expect(t, s.do(req{method: "GET", path: "/api/resources/tenants", token: root.Token}), 200, "")

	// Refused: a claim mapped nowhere, an e-mail the provider has not verified, an
	// ID token for another audience.
	expect(t, callback(s, browser(t, s, "corp", "stranger")), 403, "oidc_not_mapped")
	expect(t, callback(s, browser(t, s, "corp", "bob")), 401, "oidc_login_failed")
	expect(t, callback(s, browser(t, s, "confused", "alice")), 401, "oidc_login_failed")
	// The provider's own refusal comes back as an error with the state.
	cb = browser(t, s, "corp", "alice")
	u, _ = url.Parse(cb)
	q = u.Query()
	q.Del("code")
	q.Set("error", "access_denied")
	u.RawQuery = q.Encode()
	expect(t, callback(s, u.String()), 401, "oidc_login_failed")

	// A browser gets the page, which carries the session to the tab: never in a URL.
	r = s.do(req{method: "GET", path: strings.TrimPrefix(browser(t, s, "corp", "alice"), s.base)})
	expect(t, r, 200, "")
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.Body), `"refresh_token":`) ||
		!strings.Contains(string(r.Body), `"redirect_to":"/machines"`) || r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("page %v: %s", r.Header, r.Body)
	}
}
