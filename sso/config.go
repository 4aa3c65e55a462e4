// Package sso signs users in through OpenID Connect providers (single sign-on): the
// providers an operator configures in a file, the authorization code flow with PKCE
// towards each (github.com/coreos/go-oidc and golang.org/x/oauth2), the checks of the
// ID token it answers, and what its claims say of the account: the e-mail, and the
// tenant (or the operators) a claim maps to. It keeps no state: the edge keeps each
// sign-in's state, nonce and verifier in the store (actors/auth), so that a callback
// may land on any member of a cluster.
package sso

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// Operator is the value of a tenant map entry that makes its users operators (role
// admin) instead of users of a tenant.
const Operator = "operator"

// ProviderConfig is one provider as the providers file describes it.
type ProviderConfig struct {
	// ID names the provider in the routes (/api/auth/oidc/{id}/...): letters, digits,
	// '-' and '_'.
	ID string `toml:"id" json:"id"`
	// Name is what a login page shows ("Sign in with ...").
	Name string `toml:"name" json:"name"`
	// Issuer is the provider's issuer URL; its discovery document is read from
	// <issuer>/.well-known/openid-configuration.
	Issuer string `toml:"issuer" json:"issuer"`
	// ClientID is vmplane's client id at the provider: the audience of its ID tokens.
	ClientID string `toml:"client_id" json:"client_id"`
	// ClientSecretFile names the file holding the client secret (a final newline is
	// dropped); none for a public client, which PKCE alone protects.
	ClientSecretFile string `toml:"client_secret_file" json:"client_secret_file"`
	// Scopes asked for; openid is always among them. Default: openid, email, profile.
	Scopes []string `toml:"scopes" json:"scopes"`
	// RedirectBaseURL is this server's external URL as the provider knows it (the
	// redirect URI is <base>/api/auth/oidc/<id>/callback). Default: --public-url.
	RedirectBaseURL string `toml:"redirect_base_url" json:"redirect_base_url"`
	// EmailClaim is the claim holding the user's e-mail. Default: email.
	EmailClaim string `toml:"email_claim" json:"email_claim"`
	// AllowUnverifiedEmail accepts an e-mail the provider does not mark verified
	// (email_verified): only for a provider that never sets it and owns its addresses.
	AllowUnverifiedEmail bool `toml:"allow_unverified_email" json:"allow_unverified_email"`
	// CreateUsers creates a user on its first sign-in, where the tenant map places it.
	CreateUsers bool `toml:"create_users" json:"create_users"`
	// TenantClaim is the claim (a string or a list of strings) whose value places the
	// user: its values are looked up in TenantMap. Without it the provider only signs
	// in users that exist, matched by e-mail.
	TenantClaim string `toml:"tenant_claim" json:"tenant_claim"`
	// TenantMap maps a value of TenantClaim to a tenant id, or to "operator" (the user
	// is an operator: role admin). A value not in the map places nobody.
	TenantMap map[string]string `toml:"tenant_map" json:"tenant_map"`
}

// File is the providers file: TOML ([[provider]] tables), or JSON ({"providers": [...]})
// when its name ends in .json.
type File struct {
	Providers []ProviderConfig `toml:"provider" json:"providers"`
}

// idPattern is what a provider id may be: it is a path segment of the routes.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ReadFile reads and checks the providers file at path. publicURL is the server's
// --public-url, the redirect base of providers that name none. The client secrets are
// read from their files.
func ReadFile(path, publicURL string) ([]Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if strings.EqualFold(filepath.Ext(path), ".json") {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		err = dec.Decode(&f)
	} else {
		var md toml.MetaData
		md, err = toml.Decode(string(data), &f)
		if err == nil && len(md.Undecoded()) > 0 {
			err = fmt.Errorf("unknown setting %s", md.Undecoded()[0])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.Providers) == 0 {
		return nil, fmt.Errorf("%s: no provider", path)
	}
	var out []Config
	seen := map[string]bool{}
	for i, pc := range f.Providers {
		c, err := pc.check(publicURL)
		if err != nil {
			return nil, fmt.Errorf("%s: provider %d (%q): %w", path, i+1, pc.ID, err)
		}
		if seen[c.ID] {
			return nil, fmt.Errorf("%s: provider id %q twice", path, c.ID)
		}
		seen[c.ID] = true
		if pc.ClientSecretFile != "" {
			raw, err := os.ReadFile(pc.ClientSecretFile)
			if err != nil {
				return nil, fmt.Errorf("%s: provider %q: client secret: %w", path, c.ID, err)
			}
			c.ClientSecret = strings.TrimSuffix(strings.TrimSuffix(string(raw), "\n"), "\r")
		}
		out = append(out, c)
	}
	return out, nil
}

// Config is a checked provider: its settings with the defaults filled in, its secret
// and its redirect URI.
type Config struct {
	ProviderConfig
	// ClientSecret is the secret read from ClientSecretFile ("" for a public client).
	ClientSecret string
	// RedirectURL is the callback the provider sends the browser back to.
	RedirectURL string
}

// CallbackPath is the path of a provider's callback route, for its id.
func CallbackPath(id string) string { return "/api/auth/oidc/" + id + "/callback" }

// check fills in the defaults and checks pc.
func (pc ProviderConfig) check(publicURL string) (Config, error) {
	c := Config{ProviderConfig: pc}
	if !idPattern.MatchString(c.ID) {
		return c, fmt.Errorf("id must be 1..64 letters, digits, '-' or '_'")
	}
	if c.Name == "" {
		c.Name = c.ID
	}
	if u, err := url.Parse(c.Issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return c, fmt.Errorf("issuer must be an http(s) URL")
	}
	if c.ClientID == "" {
		return c, fmt.Errorf("client_id must be set")
	}
	if len(c.Scopes) == 0 {
		c.Scopes = []string{"openid", "email", "profile"}
	} else if !slices.Contains(c.Scopes, "openid") {
		c.Scopes = append([]string{"openid"}, c.Scopes...)
	}
	if c.EmailClaim == "" {
		c.EmailClaim = "email"
	}
	base := c.RedirectBaseURL
	if base == "" {
		base = publicURL
	}
	if u, err := url.Parse(base); base == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return c, fmt.Errorf("redirect_base_url (or --public-url) must be this server's http(s) URL")
	}
	c.RedirectURL = strings.TrimSuffix(base, "/") + CallbackPath(c.ID)
	if c.CreateUsers && c.TenantClaim == "" {
		return c, fmt.Errorf("create_users needs tenant_claim and tenant_map: a created user goes where its claim maps it")
	}
	if c.TenantClaim != "" && len(c.TenantMap) == 0 {
		return c, fmt.Errorf("tenant_claim needs tenant_map")
	}
	for v, to := range c.TenantMap {
		if v == "" || to == "" {
			return c, fmt.Errorf("tenant_map: an empty value or tenant")
		}
	}
	return c, nil
}
