package app

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/persistence"
)

// The records of testdata/store-v1 (its README says how they were made).
const (
	v1AdminPassword = "fixture-admin-password"
	v1Acme          = "01M8DWMJNM8GX19N08R5JY1W64"
	v1Globex        = "01M8DWMJYM8XV8DX92YS2XVY74"
	v1Ops           = "01M8DWMKXX6THAR39ZHZHR5TZV"
	v1Hank          = "01M8DWMMGJCR0ZR678R294NR3N"
	v1Machine       = "01M8DWN0ZDQG7GMBR0XXSQ8X28"
)

// TestUpgradeFromV1Store: a data directory written by the release before schema
// version 2 (testdata/store-v1) opens with today's server, is migrated once, and serves
// every record it held: users log in by any spelling of their e-mail, tenants keep
// their names and quotas and a taken name is refused ignoring case, the machine is its
// tenant's and only its tenant's, and the signing key stored then still signs.
func TestUpgradeFromV1Store(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(dir, os.DirFS("testdata/store-v1/badger")); err != nil {
		t.Fatal(err)
	}
	st, err := persistence.Open(persistence.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := persistence.StoredSchema(st); err != nil || v != 1 {
		t.Fatalf("the fixture is at schema version %d, %v; want 1", v, err)
	}
	st.Close()

	core, logs := observer.New(zapcore.InfoLevel)
	cfg := testConfig(t)
	cfg.DataDir = dir
	cfg.JWTKey = "" // the key the old release generated and stored
	s := &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}, log: zap.New(core)}
	s.start()
	t.Cleanup(s.stop)
	migrated := func() int { return logs.FilterMessage("persistence: migrating the store").Len() }
	if n := migrated(); n != 1 {
		t.Fatalf("%d migrations logged; want 1 (1→2)", n)
	}
	key := persistence.Key(persistence.KindMeta, "schema-version")
	if v, err := s.app.store.Get(key); err != nil || string(v) != strconv.Itoa(persistence.SchemaVersion) {
		t.Fatalf("schema version %q, %v; want %d", v, err, persistence.SchemaVersion)
	}

	admin := s.login("ADMIN@Example.TEST", v1AdminPassword).Token
	for _, c := range []struct{ email, password, id, tenant string }{
		{"ops@acme.example", "acme-password", v1Ops, v1Acme},
		{" Ops@ACME.Example", "acme-password", v1Ops, v1Acme},
		{"HANK.SCORPIO@globex.EXAMPLE", "globex-password", v1Hank, v1Globex},
	} {
		p := s.login(c.email, c.password)
		if p.User.ID != c.id || p.User.TenantID == nil || *p.User.TenantID != c.tenant {
			t.Errorf("login as %q: user %+v; want %s of tenant %s", c.email, p.User, c.id, c.tenant)
		}
	}
	users := listOf[struct {
		ID, Email string
	}](s, admin, "/api/resources/users")
	if len(users) != 3 {
		t.Errorf("%d users; want the admin, ops and hank: %+v", len(users), users)
	}

	ts := listOf[tenants.Tenant](s, admin, "/api/resources/tenants")
	names := map[string]tenants.Tenant{}
	for _, ten := range ts {
		names[ten.ID] = ten
	}
	if len(ts) != 2 || names[v1Acme].Name != "Acme Corp" || names[v1Globex].Name != "Globex" ||
		names[v1Globex].Quota.Machines != 3 || names[v1Acme].Quota.Machines != tenants.DefaultQuota.Machines {
		t.Errorf("tenants %+v", ts)
	}
	for _, name := range []string{"acme CORP", " GLOBEX "} {
		expect(t, s.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": name}}), 409, "conflict")
	}
	expect(t, s.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": "Initech"}}), 201, "")

	ops := s.login("ops@acme.example", "acme-password").Token
	r := s.do(req{method: "GET", path: "/api/resources/machines/" + v1Machine, token: ops})
	expect(t, r, 200, "")
	var m machines.Machine
	r.decode(t, &m)
	if m.VMID != 100 || m.Name != "web-1" || m.Status != "running" || m.Node != "pve1" || m.TenantID == nil || *m.TenantID != v1Acme {
		t.Errorf("machine %+v", m)
	}
	hank := s.login("hank.scorpio@globex.example", "globex-password").Token
	expect(t, s.do(req{method: "GET", path: "/api/resources/machines/" + v1Machine, token: hank}), 404, "not_found")

	// Migrated once: a restart finds the store at the current version.
	s.restart()
	if n := migrated(); n != 1 {
		t.Errorf("%d migrations logged after a restart; want still 1", n)
	}
	s.login("Ops@Acme.Example", "acme-password")
}
