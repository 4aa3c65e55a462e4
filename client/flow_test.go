package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/client"
)

func mustClient(t *testing.T, base string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(base, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for it, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, it)
	}
	return out
}

// TestFlow is what an operator and a tenant's user do, through the client against a
// real server: tenant, user, machines, their tasks, power, resize, firewall, delete.
func TestFlow(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	admin := mustClient(t, base, client.WithCredentials(adminEmail, adminPassword))
	me, err := admin.Login(ctx)
	if err != nil || me.Role != client.RoleAdmin {
		t.Fatalf("login: got %+v, %v; want an admin", me, err)
	}
	if h, err := admin.Health(ctx); err != nil || h.Status != "ok" {
		t.Fatalf("health: %+v %v", h, err)
	}
	if err := admin.Sync(ctx); err != nil {
		t.Fatal(err)
	}

	// Tenants: create, get, update, list, and a typed 404.
	two := int64(2)
	ten, err := admin.CreateTenant(ctx, client.TenantCreate{Name: "Acme", Quota: &client.QuotaChange{Machines: &two}})
	if err != nil || ten.Name != "Acme" || ten.Quota.Machines != 2 {
		t.Fatalf("create tenant: %+v %v", ten, err)
	}
	if got, err := admin.GetTenant(ctx, ten.ID); err != nil || got.ID != ten.ID {
		t.Fatalf("get tenant: %+v %v", got, err)
	}
	name := "Acme Ltd"
	if got, err := admin.UpdateTenant(ctx, ten.ID, client.TenantChange{Name: &name}); err != nil || got.Name != name || got.Quota.Machines != 2 {
		t.Fatalf("update tenant: %+v %v", got, err)
	}
	if tens := collect(t, admin.Tenants(ctx, client.ListOptions{})); len(tens) != 1 || tens[0].Name != name {
		t.Fatalf("list tenants: %+v", tens)
	}
	if _, err := admin.GetTenant(ctx, "01J00000000000000000000000"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("get a missing tenant: %v; want not_found", err)
	}
	var e *client.Error
	if _, err := admin.CreateTenant(ctx, client.TenantCreate{}); !errors.Is(err, client.ErrInvalidRequest) ||
		!errors.As(err, &e) || e.Status != 400 || len(e.Fields) == 0 || e.RequestID == "" {
		t.Fatalf("create a nameless tenant: %#v; want 400 invalid_request naming the field, with a request id", err)
	}

	// A user of the tenant, who then works through a client of its own.
	u, err := admin.CreateUser(ctx, client.UserCreate{Email: "ada@acme.test", Name: "Ada", Role: client.RoleUser,
		Password: "tenant user password", TenantID: ten.ID})
	if err != nil || u.TenantID == nil || *u.TenantID != ten.ID {
		t.Fatalf("create user: %+v %v", u, err)
	}
	if users := collect(t, admin.Users(ctx, ten.ID, client.ListOptions{})); len(users) != 1 || users[0].ID != u.ID {
		t.Fatalf("list users: %+v", users)
	}
	c := mustClient(t, base, client.WithCredentials("ada@acme.test", "tenant user password"))
	if _, err := c.CreateTenant(ctx, client.TenantCreate{Name: "x"}); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("a user creating a tenant: %v; want forbidden", err)
	}

	tpls := collect(t, c.Templates(ctx, client.ListOptions{}))
	if len(tpls) == 0 {
		t.Fatal("no templates after a sync")
	}
	tpl := tpls[0]
	spec := client.MachineSpec{Name: "web-0", TemplateID: tpl.ID, CPUCores: 1, MemoryMB: 512, DiskGB: tpl.DiskGB}
	m, task, err := c.CreateMachine(ctx, spec)
	if err != nil || m.Name != "web-0" || task.TargetID != m.ID {
		t.Fatalf("create machine: %+v %+v %v", m, task, err)
	}
	if done, err := c.WaitTask(ctx, task.ID); err != nil || done.Status != client.TaskSucceeded || done.FinishedAt == nil {
		t.Fatalf("wait for the create task: %+v %v", done, err)
	}
	// The operator creates the second one for the tenant: the quota (2) is then full.
	m2, task2, err := admin.ForTenant(ten.ID).CreateMachine(ctx, client.MachineSpec{Name: "web-1", TemplateID: tpl.ID, CPUCores: 1, MemoryMB: 512, DiskGB: tpl.DiskGB})
	if err != nil || m2.TenantID == nil || *m2.TenantID != ten.ID {
		t.Fatalf("create machine for the tenant: %+v %v", m2, err)
	}
	if _, err := c.WaitTask(ctx, task2.ID); err != nil {
		t.Fatal(err)
	}
	spec.Name = "web-2"
	if _, _, err := c.CreateMachine(ctx, spec); !errors.Is(err, client.ErrQuotaExceeded) {
		t.Fatalf("a machine over the quota: %v; want quota_exceeded", err)
	}

	got, err := c.GetMachine(ctx, m.ID)
	if err != nil || got.ID != m.ID || got.VMID == 0 {
		t.Fatalf("get machine: %+v %v", got, err)
	}
	if ms := collect(t, c.Machines(ctx, client.MachineFilter{Name: "web-1"})); len(ms) != 1 || ms[0].ID != m2.ID {
		t.Fatalf("machines named web-1: %+v", ms)
	}
	if ms := collect(t, admin.Machines(ctx, client.MachineFilter{TenantID: ten.ID})); len(ms) != 2 {
		t.Fatalf("the tenant's machines, as the operator: %+v", ms)
	}

	// Power and resize, each a task; by vmid as well as by id.
	status := got.Status
	action := client.ActionStop
	if status != "running" {
		action = client.ActionStart
	}
	pt, err := c.MachineAction(ctx, fmt.Sprint(got.VMID), action)
	if err != nil {
		t.Fatalf("%s: %v", action, err)
	}
	if _, err := c.WaitTask(ctx, pt.ID); err != nil {
		t.Fatal(err)
	}
	if after, _ := c.GetMachine(ctx, m.ID); after.Status == status {
		t.Fatalf("after %s the machine is still %s", action, after.Status)
	}
	if _, err := c.MachineAction(ctx, m.ID, "fly"); !errors.Is(err, client.ErrInvalidRequest) {
		t.Fatalf("an unknown action: %v; want invalid_request", err)
	}
	if _, err := c.MachineAction(ctx, m.ID, action); !errors.Is(err, client.ErrInvalidState) {
		t.Fatalf("%s twice: %v; want invalid_state", action, err)
	}
	rt, err := c.ResizeMachine(ctx, m.ID, client.Resize{MemoryMB: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitTask(ctx, rt.ID); err != nil {
		t.Fatal(err)
	}
	if after, _ := c.GetMachine(ctx, m.ID); after.MemoryMB != 1024 {
		t.Fatalf("after the resize: %d MB", after.MemoryMB)
	}

	// Firewall rules of the tenant.
	port := "443"
	rule, err := c.CreateFirewallRule(ctx, client.FirewallRuleSpec{Direction: "in", Action: "accept", Protocol: "tcp", Port: &port})
	if err != nil || rule.Port == nil || *rule.Port != "443" || rule.TenantID != ten.ID {
		t.Fatalf("create rule: %+v %v", rule, err)
	}
	off := false
	if r2, err := c.UpdateFirewallRule(ctx, rule.ID, client.FirewallRuleSpec{Enabled: &off}); err != nil || r2.Enabled {
		t.Fatalf("disable rule: %+v %v", r2, err)
	}
	if rules := collect(t, c.FirewallRules(ctx, "", client.ListOptions{})); len(rules) != 1 || rules[0].ID != rule.ID {
		t.Fatalf("list rules: %+v", rules)
	}
	if err := c.DeleteFirewallRule(ctx, rule.ID); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteFirewallRule(ctx, rule.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("delete a deleted rule: %v; want not_found", err)
	}

	ov, err := c.Overview(ctx)
	if err != nil || ov.Machines.Total != 2 || ov.Quota.Machines != 2 {
		t.Fatalf("overview: %+v %v", ov, err)
	}

	// Delete the machines, the user and the tenant.
	for _, id := range []string{m.ID, m2.ID} {
		dt, err := c.DeleteMachine(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.WaitTask(ctx, dt.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.GetMachine(ctx, m.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("get a deleted machine: %v; want not_found", err)
	}
	if err := admin.DeleteUser(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Me(ctx); !errors.Is(err, client.ErrInvalidCredentials) {
		t.Fatalf("a deleted user's client: %v; want invalid_credentials (its session ended, its login fails)", err)
	}
	if err := admin.DeleteTenant(ctx, ten.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.GetTenant(ctx, ten.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("get a deleted tenant: %v", err)
	}
}

// TestPages: the iterators follow next_cursor over several pages, and the one-page
// calls give the cursor.
func TestPages(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	ctx := context.Background()
	admin := mustClient(t, base, client.WithCredentials(adminEmail, adminPassword))
	var want []string
	for i := range 7 {
		ten, err := admin.CreateTenant(ctx, client.TenantCreate{Name: fmt.Sprintf("t%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, ten.ID)
	}
	got := collect(t, admin.Tenants(ctx, client.ListOptions{Limit: 2}))
	if len(got) != len(want) {
		t.Fatalf("got %d tenants over pages of 2; want %d", len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i] {
			t.Fatalf("tenant %d: got %s; want %s (creation order)", i, got[i].ID, want[i])
		}
	}
	p, err := admin.TenantsPage(ctx, client.ListOptions{Limit: 3})
	if err != nil || len(p.Items) != 3 || p.NextCursor == "" {
		t.Fatalf("first page: %+v %v", p, err)
	}
	p, err = admin.TenantsPage(ctx, client.ListOptions{Limit: 3, Cursor: p.NextCursor})
	if err != nil || len(p.Items) != 3 || p.Items[0].ID != want[3] {
		t.Fatalf("second page: %+v %v", p, err)
	}
	// Stopping early is allowed (the runtime panics if an iterator yields after a break).
	n := 0
	for range admin.Tenants(ctx, client.ListOptions{Limit: 2}) {
		n++
		if n == 3 {
			break
		}
	}
	// An error ends the iteration with the error.
	for _, err := range admin.Tenants(ctx, client.ListOptions{Limit: 2, Cursor: "not a cursor"}) {
		if !errors.Is(err, client.ErrInvalidRequest) {
			t.Fatalf("a bad cursor: %v; want invalid_request", err)
		}
	}
}

// TestConcurrentUse: one client used by many goroutines at once (run under -race):
// one login, every write applied once.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	ctx := context.Background()
	admin := mustClient(t, base, client.WithCredentials(adminEmail, adminPassword), client.WithMaxConns(8))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if _, err := admin.CreateTenant(ctx, client.TenantCreate{Name: fmt.Sprintf("c%d", i)}); err != nil {
				t.Error(err)
			}
			if _, err := admin.Me(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := collect(t, admin.Tenants(ctx, client.ListOptions{Limit: 5})); len(got) != 16 {
		t.Fatalf("got %d tenants; want 16", len(got))
	}
}

// TestIdempotentReplay: the same key twice creates one tenant; the second answer is the
// first one again.
func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	admin := mustClient(t, base, client.WithCredentials(adminEmail, adminPassword))
	ctx := client.WithIdempotencyKey(context.Background(), "create-acme-once")
	a, err := admin.CreateTenant(ctx, client.TenantCreate{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := admin.CreateTenant(ctx, client.TenantCreate{Name: "Acme"})
	if err != nil || b.ID != a.ID {
		t.Fatalf("replay: %+v %v; want tenant %s again", b, err, a.ID)
	}
	if _, err := admin.CreateTenant(ctx, client.TenantCreate{Name: "Other"}); !errors.Is(err, client.ErrIdempotencyKeyReused) {
		t.Fatalf("the key with another body: %v; want idempotency_key_reused", err)
	}
}

// TestSessionEndedRelogin: when the server ends a user's sessions (here: disabled, then
// enabled again), the user's client gets a 401, finds its refresh token refused too,
// logs in again with its credentials and carries on; a client with a given token
// cannot, and answers ErrUnauthorized.
func TestSessionEndedRelogin(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	ctx := context.Background()
	admin := mustClient(t, base, client.WithCredentials(adminEmail, adminPassword))
	ten, err := admin.CreateTenant(ctx, client.TenantCreate{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := admin.CreateUser(ctx, client.UserCreate{Email: "ada@acme.test", Name: "Ada", Role: client.RoleUser,
		Password: "tenant user password", TenantID: ten.ID})
	if err != nil {
		t.Fatal(err)
	}
	c := mustClient(t, base, client.WithCredentials("ada@acme.test", "tenant user password"))
	first, err := c.Login(ctx)
	if err != nil || first.ID != u.ID {
		t.Fatalf("login: %+v %v", first, err)
	}
	on, off := false, true
	if _, err := admin.UpdateUser(ctx, u.ID, client.UserChange{Disabled: &off}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Me(ctx); !errors.Is(err, client.ErrInvalidCredentials) {
		t.Fatalf("a disabled user: %v; want invalid_credentials (the login again is refused)", err)
	}
	if _, err := admin.UpdateUser(ctx, u.ID, client.UserChange{Disabled: &on}); err != nil {
		t.Fatal(err)
	}
	if me, err := c.Me(ctx); err != nil || me.ID != u.ID {
		t.Fatalf("after the user is enabled again: %+v %v; want a new login, transparently", me, err)
	}
	if got, err := admin.GetUser(ctx, u.ID); err != nil || got.Disabled {
		t.Fatalf("get user: %+v %v", got, err)
	}
}

// TestLogout: Logout ends the login on the server (its refresh token no longer works);
// the next call logs in anew.
func TestLogout(t *testing.T) {
	t.Parallel()
	base := startServer(t)
	ctx := context.Background()
	c := mustClient(t, base, client.WithCredentials(adminEmail, adminPassword))
	if _, err := c.Login(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Logout(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Logout(ctx); err != nil { // nothing to end: no request
		t.Fatal(err)
	}
	if me, err := c.Me(ctx); err != nil || me.Email != adminEmail {
		t.Fatalf("after logout: %+v %v; want a new login", me, err)
	}
}
