package app

import (
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/internal/testwait"
)

// newKey makes an API key with tok and returns it with its secret.
func (s *testServer) newKey(tok string, body map[string]any) auth.NewAPIKey {
	s.t.Helper()
	r := s.do(req{method: "POST", path: "/api/resources/api-keys", token: tok, body: body})
	expect(s.t, r, 201, "")
	var k auth.NewAPIKey
	r.decode(s.t, &k)
	if !strings.HasPrefix(k.Secret, auth.APIKeyPrefix) || k.ID == "" {
		s.t.Fatalf("new key: %s", r.Body)
	}
	return k
}

// API keys end to end: scopes, a tenant's key kept to its tenant, an operator's key
// kept to one tenant, the account routes closed to keys, revocation, expiry, allowed
// addresses, and the owner's standing (disabled, deleted) ending its keys.
func TestAPIKeys(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a, b := s.tenant(admin, "Keyed", nil), s.tenant(admin, "Unkeyed", nil)
	bm := s.provision(b.Token, smallMachine)

	// An operator's read key reads everything and changes nothing.
	read := s.newKey(admin, map[string]any{"name": "dashboards", "scopes": []string{"read"}})
	expect(t, s.do(req{method: "GET", path: "/api/resources/tenants", token: read.Secret}), 200, "")
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: read.Secret}), 200, "")
	expect(t, s.do(req{method: "POST", path: "/api/resources/tenants", token: read.Secret, body: map[string]any{"name": "Nope"}}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: "/api/resources/api-keys", token: read.Secret, body: map[string]any{"name": "more", "scopes": []string{"admin"}}}), 403, "forbidden")
	expect(t, s.do(req{method: "POST", path: "/api/auth/password", token: read.Secret,
		body: map[string]any{"current_password": testAdminPassword, "new_password": "whatever-else"}}), 403, "forbidden")
	// tenants:write makes tenants; a billing system's key.
	billing := s.newKey(admin, map[string]any{"name": "billing", "scopes": []string{"read", "tenants:write"}})
	expect(t, s.do(req{method: "POST", path: "/api/resources/tenants", token: billing.Secret, body: map[string]any{"name": "From billing"}}), 201, "")
	expect(t, s.do(req{method: "POST", path: "/api/virt/sync", token: billing.Secret}), 403, "forbidden")

	// A tenant user's key: within its tenant, never beyond the user's rights.
	mine := s.newKey(a.Token, map[string]any{"name": "deploys", "scopes": []string{"read", "machines:write"}})
	if mine.TenantID == nil || *mine.TenantID != a.ID {
		t.Fatalf("a tenant user's key: %+v; want it kept to the user's tenant", mine.APIKey)
	}
	expect(t, s.do(req{method: "POST", path: "/api/resources/api-keys", token: a.Token,
		body: map[string]any{"name": "elsewhere", "scopes": []string{"read"}, "tenant_id": b.ID}}), 403, "forbidden")
	r := s.do(req{method: "POST", path: "/api/client/machines", token: mine.Secret, body: smallMachine})
	expect(t, r, 202, "")
	expect(t, s.do(req{method: "GET", path: "/api/client/machines/" + bm.ID, token: mine.Secret}), 404, "not_found")
	expect(t, s.do(req{method: "GET", path: "/api/resources/tenants", token: mine.Secret}), 403, "forbidden")
	// An operator's key kept to one tenant acts as that tenant's user.
	kept := s.newKey(admin, map[string]any{"name": "for a", "scopes": []string{"read"}, "tenant_id": a.ID})
	expect(t, s.do(req{method: "GET", path: "/api/resources/tenants", token: kept.Secret}), 403, "forbidden")
	expect(t, s.do(req{method: "GET", path: "/api/resources/machines/" + bm.ID, token: kept.Secret}), 404, "not_found")

	// Lists: a user sees its own keys; an operator every key; never a secret.
	var own struct{ Items []map[string]any }
	r = s.do(req{method: "GET", path: "/api/resources/api-keys", token: a.Token})
	expect(t, r, 200, "")
	r.decode(t, &own)
	if len(own.Items) != 1 || own.Items[0]["id"] != mine.ID || own.Items[0]["secret"] != nil || strings.Contains(string(r.Body), mine.Secret) {
		t.Fatalf("the user's keys: %s", r.Body)
	}
	expect(t, s.do(req{method: "GET", path: "/api/resources/api-keys/" + read.ID, token: a.Token}), 404, "not_found")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/api-keys/" + read.ID, token: a.Token}), 404, "not_found")
	var used auth.APIKey
	r = s.do(req{method: "GET", path: "/api/resources/api-keys/" + read.ID, token: admin})
	expect(t, r, 200, "")
	r.decode(t, &used)
	if used.LastUsedAt == nil {
		t.Fatalf("a used key without last_used_at: %s", r.Body)
	}

	// Revoked: refused at once.
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/api-keys/" + read.ID, token: admin}), 204, "")
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: read.Secret}), 401, "unauthorized")
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: read.Secret[:len(read.Secret)-1] + "x"}), 401, "unauthorized")

	// Expired.
	soon := s.newKey(admin, map[string]any{"name": "short", "scopes": []string{"read"}, "expires_at": time.Now().Add(2 * time.Second).Format(time.RFC3339Nano)})
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: soon.Secret}), 200, "")
	testwait.Eventually(t, "the key to expire", func() bool {
		return s.do(req{method: "GET", path: "/api/auth/me", token: soon.Secret}).Status == 401
	})
	expect(t, s.do(req{method: "POST", path: "/api/resources/api-keys", token: admin,
		body: map[string]any{"name": "past", "scopes": []string{"read"}, "expires_at": "2001-01-01T00:00:00Z"}}), 400, "invalid_request")

	// Allowed addresses.
	far := s.newKey(admin, map[string]any{"name": "far", "scopes": []string{"read"}, "allowed_cidrs": []string{"192.0.2.0/24"}})
	near := s.newKey(admin, map[string]any{"name": "near", "scopes": []string{"read"}, "allowed_cidrs": []string{"127.0.0.1"}})
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: far.Secret}), 401, "unauthorized")
	expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: near.Secret}), 200, "")

	// The owner disabled, then deleted: its keys stop.
	u := s.sessionUser(admin, a.ID, "scripted@example.test")
	ut := s.login(u.Email, u.Password).Token
	uk := s.newKey(ut, map[string]any{"name": "script", "scopes": []string{"read"}})
	expect(t, s.do(req{method: "GET", path: "/api/client/machines", token: uk.Secret}), 200, "")
	expect(t, s.patchUser(admin, u.ID, map[string]any{"disabled": true}), 200, "")
	expect(t, s.do(req{method: "GET", path: "/api/client/machines", token: uk.Secret}), 401, "unauthorized")
	expect(t, s.patchUser(admin, u.ID, map[string]any{"disabled": false}), 200, "")
	expect(t, s.do(req{method: "GET", path: "/api/client/machines", token: uk.Secret}), 200, "")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/users/" + u.ID, token: admin}), 204, "")
	expect(t, s.do(req{method: "GET", path: "/api/client/machines", token: uk.Secret}), 401, "unauthorized")
	// and its keys are gone with it.
	expect(t, s.do(req{method: "GET", path: "/api/resources/api-keys/" + uk.ID, token: admin}), 404, "not_found")
}

// A user's API keys share one rate, whatever address they call from: two keys of one
// user spend one bucket, a third address does not refill it, and neither the user's own
// login nor another user's keys draw from it.
func TestAPIKeysRateLimitedAsTheirOwner(t *testing.T) {
	t.Parallel()
	s, admin := synced(t, func(c *Config) { c.RateKeyOwner, c.RateKeyOwnerBurst = 0.01, 3 })
	a := s.tenant(admin, "Limited keys", nil)
	one := s.newKey(admin, map[string]any{"name": "one", "scopes": []string{"read"}})
	two := s.newKey(admin, map[string]any{"name": "two", "scopes": []string{"read"}})
	other := s.newKey(a.Token, map[string]any{"name": "other", "scopes": []string{"read"}})
	list := func(tok string) req { return req{method: "GET", path: "/api/resources/machines", token: tok} }
	for _, k := range []string{one.Secret, two.Secret, one.Secret} {
		expect(t, s.do(list(k)), 200, "")
	}
	r := s.do(list(two.Secret))
	expect(t, r, 429, "rate_limited")
	checkLimited(t, r, "3")
	if !strings.Contains(string(r.Body), "key_owner") {
		t.Fatalf("a refusal that does not name the key_owner bucket: %s", r.Body)
	}
	expect(t, doWith(t, clientFrom("127.0.0.6"), s.base, list(one.Secret)), 429, "rate_limited")
	expect(t, s.do(list(admin)), 200, "")
	expect(t, s.do(req{method: "GET", path: "/api/client/machines", token: other.Secret}), 200, "")
	// A refused key is not counted against its owner: a bad secret stays a 401.
	expect(t, s.do(list(one.Secret+"x")), 401, "unauthorized")
}
