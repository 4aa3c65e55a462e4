package app

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/tenants"
)

// External ids of users: set at create and by a change, unique (409), found with
// ?external_id=, freed by a change and by a delete.
func TestUserExternalIDs(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	tenant := s.newTenant(admin, "Billed")
	create := func(email, ext string) *response {
		return s.do(req{method: "POST", path: "/api/resources/users", token: admin, body: map[string]any{
			"email": email, "name": "Billed user", "role": "user", "password": "billed-password", "tenant_id": tenant, "external_id": ext}})
	}
	r := create("first@example.test", "whmcs-client-17")
	expect(t, r, 201, "")
	var u auth.User
	r.decode(t, &u)
	if u.ExternalID == nil || *u.ExternalID != "whmcs-client-17" {
		t.Fatalf("created: %s", r.Body)
	}
	expect(t, create("second@example.test", "whmcs-client-17"), 409, "conflict")
	expect(t, create("second@example.test", "a/b"), 400, "invalid_request")
	r = create("second@example.test", "whmcs-client-18")
	expect(t, r, 201, "")
	var second auth.User
	r.decode(t, &second)

	found := listOf[auth.User](s, admin, "/api/resources/users?external_id=whmcs-client-17")
	if len(found) != 1 || found[0].ID != u.ID {
		t.Fatalf("by external id: %+v", found)
	}
	if none := listOf[auth.User](s, admin, "/api/resources/users?external_id=nobody"); len(none) != 0 {
		t.Fatalf("an unknown external id: %+v", none)
	}
	expect(t, s.patchUser(admin, second.ID, map[string]any{"external_id": "whmcs-client-17"}), 409, "conflict")
	expect(t, s.patchUser(admin, u.ID, map[string]any{"external_id": "whmcs-client-99"}), 200, "")
	expect(t, s.patchUser(admin, second.ID, map[string]any{"external_id": "whmcs-client-17"}), 200, "")
	if found := listOf[auth.User](s, admin, "/api/resources/users?external_id=whmcs-client-17"); len(found) != 1 || found[0].ID != second.ID {
		t.Fatalf("after the move: %+v", found)
	}
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/users/" + u.ID, token: admin}), 204, "")
	expect(t, create("third@example.test", "whmcs-client-99"), 201, "")

	// null removes it, and frees it for another user.
	r = s.patchUser(admin, second.ID, map[string]any{"external_id": nil})
	expect(t, r, 200, "")
	if strings.Contains(string(r.Body), "whmcs-client-17") {
		t.Fatalf("after null: %s", r.Body)
	}
	if found := listOf[auth.User](s, admin, "/api/resources/users?external_id=whmcs-client-17"); len(found) != 0 {
		t.Fatalf("a removed external id still finds %+v", found)
	}
	expect(t, create("fourth@example.test", "whmcs-client-17"), 201, "")
}

// External ids of tenants, likewise.
func TestTenantExternalIDs(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	admin := s.adminToken()
	create := func(name, ext string) *response {
		return s.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": name, "external_id": ext}})
	}
	r := create("Acme", "crm-acme")
	expect(t, r, 201, "")
	var acme tenants.Tenant
	r.decode(t, &acme)
	if acme.ExternalID == nil || *acme.ExternalID != "crm-acme" {
		t.Fatalf("created: %s", r.Body)
	}
	expect(t, create("Globex", "crm-acme"), 409, "conflict")
	r = create("Globex", "crm-globex")
	expect(t, r, 201, "")
	var globex tenants.Tenant
	r.decode(t, &globex)
	if found := listOf[tenants.Tenant](s, admin, "/api/resources/tenants?external_id=crm-acme"); len(found) != 1 || found[0].ID != acme.ID {
		t.Fatalf("by external id: %+v", found)
	}
	patch := func(id, ext string) *response {
		return s.do(req{method: "PATCH", path: "/api/resources/tenants/" + id, token: admin, body: map[string]any{"external_id": ext}})
	}
	expect(t, patch(globex.ID, "crm-acme"), 409, "conflict")
	expect(t, patch(acme.ID, "crm-acme-2"), 200, "")
	expect(t, patch(globex.ID, "crm-acme"), 200, "")
	if found := listOf[tenants.Tenant](s, admin, "/api/resources/tenants?external_id=crm-acme"); len(found) != 1 || found[0].ID != globex.ID {
		t.Fatalf("after the move: %+v", found)
	}
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/tenants/" + acme.ID, token: admin}), 204, "")
	expect(t, create("Initech", "crm-acme-2"), 201, "")

	// null removes it, and frees it for another tenant.
	r = s.do(req{method: "PATCH", path: "/api/resources/tenants/" + globex.ID, token: admin, body: map[string]any{"external_id": nil}})
	expect(t, r, 200, "")
	var cleared tenants.Tenant
	r.decode(t, &cleared)
	if cleared.ExternalID != nil {
		t.Fatalf("after null: %s", r.Body)
	}
	if found := listOf[tenants.Tenant](s, admin, "/api/resources/tenants?external_id=crm-acme"); len(found) != 0 {
		t.Fatalf("a removed external id still finds %+v", found)
	}
	expect(t, create("Hooli", "crm-acme"), 201, "")
}
