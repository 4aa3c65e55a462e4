package sso

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadFileDefaults(t *testing.T) {
	secret := writeFile(t, "secret", "s3cret\n")
	p := writeFile(t, "oidc.toml", `
[[provider]]
id = "corp"
issuer = "https://login.example.test"
client_id = "vmplane"
client_secret_file = "`+secret+`"
scopes = ["email"]
create_users = true
tenant_claim = "groups"
tenant_map = { "staff" = "operator" }

[[provider]]
id = "public"
issuer = "https://other.example.test/realm"
client_id = "vmplane"
redirect_base_url = "https://panel.example.test:8443/"
`)
	cs, err := ReadFile(p, "https://panel.example.test/")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("got %d providers; want 2", len(cs))
	}
	c := cs[0]
	if c.Name != "corp" || c.ClientSecret != "s3cret" || c.EmailClaim != "email" || strings.Join(c.Scopes, " ") != "openid email" ||
		c.RedirectURL != "https://panel.example.test/api/auth/oidc/corp/callback" {
		t.Fatalf("corp %+v", c)
	}
	c = cs[1]
	if c.ClientSecret != "" || strings.Join(c.Scopes, " ") != "openid email profile" || c.RedirectURL != "https://panel.example.test:8443/api/auth/oidc/public/callback" {
		t.Fatalf("public %+v", c)
	}

	j := writeFile(t, "oidc.json", `{"providers": [{"id": "j", "issuer": "https://login.example.test", "client_id": "x"}]}`)
	if cs, err := ReadFile(j, "https://panel.example.test"); err != nil || len(cs) != 1 || cs[0].ID != "j" {
		t.Fatalf("json: %+v %v", cs, err)
	}
}

func TestReadFileRefuses(t *testing.T) {
	f := func(body, public, want string) {
		t.Helper()
		_, err := ReadFile(writeFile(t, "oidc.toml", body), public)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v; want an error with %q", err, want)
		}
	}
	const ok = "issuer = \"https://login.example.test\"\nclient_id = \"c\"\n"
	f("", "https://p.test", "no provider")
	f("[[provider]]\nid = \"a b\"\n"+ok, "https://p.test", "id must be")
	f("[[provider]]\nid = \"a\"\nissuer = \"login.example.test\"\nclient_id = \"c\"\n", "https://p.test", "issuer must be")
	f("[[provider]]\nid = \"a\"\nissuer = \"https://login.example.test\"\n", "https://p.test", "client_id must be set")
	f("[[provider]]\nid = \"a\"\n"+ok, "", "redirect_base_url")
	f("[[provider]]\nid = \"a\"\ncreate_users = true\n"+ok, "https://p.test", "create_users needs tenant_claim")
	f("[[provider]]\nid = \"a\"\ntenant_claim = \"groups\"\n"+ok, "https://p.test", "tenant_claim needs tenant_map")
	f("[[provider]]\nid = \"a\"\n"+ok+"[[provider]]\nid = \"a\"\n"+ok, "https://p.test", "twice")
	f("[[provider]]\nid = \"a\"\nclient_secret = \"inline\"\n"+ok, "https://p.test", "unknown setting")
	f("[[provider]]\nid = \"a\"\nclient_secret_file = \"/no/such/file\"\n"+ok, "https://p.test", "client secret")
}

// A claim places the user by the first values the map knows; two places at once are
// refused, none places nobody.
func TestIdentityMapping(t *testing.T) {
	p := &Provider{cfg: Config{ProviderConfig: ProviderConfig{EmailClaim: "email", TenantClaim: "groups",
		TenantMap: map[string]string{"ops": Operator, "acme": "t-acme", "acme-too": "t-acme", "other": "t-other"}}}}
	f := func(groups any, wantOp bool, wantTenant string, wantErr *apierr.Error) {
		t.Helper()
		id, err := p.identity("sub", map[string]any{"email": "a@b.test", "email_verified": true, "groups": groups})
		if wantErr != nil {
			if !errors.Is(err, wantErr) {
				t.Fatalf("groups %v: got %v; want %s", groups, err, wantErr.Code)
			}
			return
		}
		if err != nil || !id.Mapped || id.Operator != wantOp || id.TenantID != wantTenant {
			t.Fatalf("groups %v: got %+v, %v", groups, id, err)
		}
	}
	f("ops", true, "", nil)
	f([]any{"everyone", "acme", "acme-too"}, false, "t-acme", nil)
	f([]any{"everyone"}, false, "", nil)
	f(nil, false, "", nil)
	f([]any{"acme", "other"}, false, "", apierr.ErrOIDCNotMapped)
	f([]any{"acme", "ops"}, false, "", apierr.ErrOIDCNotMapped)

	if _, err := p.identity("sub", map[string]any{"email": "a@b.test"}); !errors.Is(err, apierr.ErrOIDCLoginFailed) {
		t.Fatalf("unverified e-mail: %v", err)
	}
	if _, err := p.identity("sub", map[string]any{"email_verified": true}); !errors.Is(err, apierr.ErrOIDCLoginFailed) {
		t.Fatalf("no e-mail: %v", err)
	}
	p.cfg.AllowUnverifiedEmail = true
	if id, err := p.identity("sub", map[string]any{"email": "a@b.test", "name": "A"}); err != nil || id.Email != "a@b.test" || id.Name != "A" {
		t.Fatalf("allowed unverified: %+v %v", id, err)
	}
}
