package cli_test

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// A billing module's ids from a shell: a tenant and a user made with the ids another
// system knows them by, found by those ids, changed and removed.
func TestExternalIDVerbs(t *testing.T) {
	w := newWorld(t)
	w.login()
	var ten client.Tenant
	w.okJSON(&ten, "tenant", "create", "Billed", "--external-id", "whmcs-client-7")
	if out := w.ok("tenant", "list", "--external-id", "whmcs-client-7"); !strings.Contains(out, ten.ID) || strings.Count(strings.TrimSpace(out), "\n") != 1 {
		t.Fatalf("tenant list --external-id: got\n%s\nwant the one tenant %s", out, ten.ID)
	}
	r := w.run("a long enough password\n", "user", "create", "--tenant", ten.ID, "--email", "billed@acme.test", "--name", "Billed", "--external-id", "whmcs-user-9", "--password-stdin")
	if r.code != 0 || !strings.Contains(r.out, "whmcs-user-9") {
		t.Fatalf("user create --external-id: exit %d, %q %q; want the id shown", r.code, r.out, r.err)
	}
	var users []client.User
	w.okJSON(&users, "user", "list", "--external-id", "whmcs-user-9")
	if len(users) != 1 || users[0].Email != "billed@acme.test" {
		t.Fatalf("user list --external-id: %+v", users)
	}
	var u client.User
	w.okJSON(&u, "user", "update", users[0].ID, "--external-id", "whmcs-user-10")
	if u.ExternalID == nil || *u.ExternalID != "whmcs-user-10" {
		t.Fatalf("user update --external-id: %+v", u)
	}
	w.okJSON(&ten, "tenant", "update", ten.ID, "--external-id", "")
	if ten.ExternalID != nil {
		t.Fatalf("tenant update --external-id '': %+v; want the id removed", ten)
	}
	w.fails(1, "not_found", "tenant", "list", "--external-id", "whmcs-client-7")
}
