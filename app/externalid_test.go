package app

import (
	"testing"

	"github.com/vmplane/vmplane/actors/auth"
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
}
