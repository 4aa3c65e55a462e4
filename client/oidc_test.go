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
// back to; the login renews as any other, and the same callback does not sign in twice.
func TestOIDCSignIn(t *testing.T) {
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
	loc, err := anon.OIDCStart(ctx, "corp", "/")
	if err != nil {
		t.Fatal(err)
	}
	cb := ssotest.Browse(t, srv.Base, loc, "root")

	signed := mustClient(t, srv.Base, client.WithOIDCCallback(cb))
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
	if _, err := mustClient(t, srv.Base, client.WithOIDCCallback(cb)).Login(ctx); !errors.Is(err, client.ErrOIDCStateInvalid) {
		t.Fatalf("the callback twice: %v; want oidc_state_invalid", err)
	}
	if _, err := client.New(srv.Base, client.WithOIDCCallback("https://elsewhere.test/callback")); err == nil {
		t.Fatal("a callback URL of another route was taken")
	}
}
