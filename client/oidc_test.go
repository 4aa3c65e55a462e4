package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/client"
	"github.com/vmplane/vmplane/sso/ssotest"
)

// A program signs in through an OpenID Connect provider: it starts the sign-in, walks
// the provider's login itself, and completes it with the URL the provider sends it
// back to and the sign-in's secret; the login renews as any other, and the same
// callback does not sign in twice. Without the secret, or with another sign-in's, the
// callback is refused and spends nothing.
func TestOIDCSignIn(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	idp := ssotest.Start(t, ssotest.User{ID: "root", Email: adminEmail, Groups: []string{"ops"}})
	cfg := apptest.Config(t.TempDir())
	cfg.Addr = idp.Serve()
	cfg.OIDCProvidersFile = idp.File(cfg.Addr, map[string]string{"ops": "operator"})
	srv, err := apptest.StartConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})

	anon := mustClient(t, srv.Base)
	ps, err := anon.OIDCProviders(ctx)
	if err != nil || len(ps) != 2 || ps[1] != (client.OIDCProvider{ID: "corp", Name: "Corp SSO"}) {
		t.Fatalf("providers %+v %v", ps, err)
	}
	if u := anon.OIDCStartURL("corp", "/machines"); u != srv.Base+"/api/auth/oidc/corp/start?redirect_to=%2Fmachines" {
		t.Fatalf("start URL %s", u)
	}
	if _, err := anon.OIDCStart(ctx, "nope", ""); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("an unknown provider: %v", err)
	}
	started, err := anon.OIDCStart(ctx, "corp", "/")
	if err != nil {
		t.Fatal(err)
	}
	other, err := anon.OIDCStart(ctx, "corp", "/")
	if err != nil || other.Secret == started.Secret {
		t.Fatalf("a second sign-in %+v %v; want a secret of its own", other, err)
	}
	cb := ssotest.Browse(t, srv.Base, started.URL, "root")
	for _, secret := range []string{"", other.Secret} {
		if _, err := mustClient(t, srv.Base, client.WithOIDCCallback(cb, secret)).Login(ctx); !errors.Is(err, client.ErrOIDCStateInvalid) {
			t.Fatalf("the callback with the secret %q: %v; want oidc_state_invalid", secret, err)
		}
	}

	signed := mustClient(t, srv.Base, client.WithOIDCCallback(cb, started.Secret))
	u, err := signed.Login(ctx)
	if err != nil || u.Email != adminEmail || u.Role != client.RoleAdmin {
		t.Fatalf("sign-in: %+v %v", u, err)
	}
	var method string
	for s, err := range signed.Sessions(ctx, client.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if s.Current {
			method = s.Method
		}
	}
	if method != "oidc" {
		t.Fatalf("the session's method %q; want oidc", method)
	}
	if _, err := mustClient(t, srv.Base, client.WithOIDCCallback(cb, started.Secret)).Login(ctx); !errors.Is(err, client.ErrOIDCStateInvalid) {
		t.Fatalf("the callback twice: %v; want oidc_state_invalid", err)
	}
	if _, err := client.New(srv.Base, client.WithOIDCCallback("https://elsewhere.test/callback", started.Secret)); err == nil {
		t.Fatal("a callback URL of another route was taken")
	}
}
