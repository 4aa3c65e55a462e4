package app

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/persistence"
)

// tenantNameKeys counts the store's tenant-name index keys.
func tenantNameKeys(t *testing.T, st persistence.Store) int {
	t.Helper()
	n := 0
	if err := st.Scan(context.Background(), persistence.Prefix("tenant-name"), nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestUpgradeFromV1Store: a data directory written by a release of schema version 1
// opens with today's server, is migrated once, and serves every record it held: users
// log in by any spelling of their e-mail, tenants keep their names and quotas and a
// taken name is refused ignoring case (the index built by the migration where the
// release had none), the machine is its tenant's and only its tenant's, and the
// signing key stored then still signs. The fixtures' READMEs say how they were made.
func TestUpgradeFromV1Store(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fixture string
		// indexed: the release kept the tenant-name index itself.
		indexed bool
	}{
		{"store-v1", true},          // 28263c2, the release before schema version 2
		{"store-v1-noindex", false}, // 3d5485c, before the tenant-name index
	} {
		t.Run(c.fixture, func(t *testing.T) { upgradeFixture(t, c.fixture, c.indexed) })
	}
}

func upgradeFixture(t *testing.T, fixture string, indexed bool) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", fixture, "badger"))); err != nil {
		t.Fatal(err)
	}
	st, err := persistence.Open(persistence.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := persistence.StoredSchema(context.Background(), st); err != nil || v != 1 {
		t.Fatalf("the fixture is at schema version %d, %v; want 1", v, err)
	}
	if n := tenantNameKeys(t, st); (n == 2) != indexed {
		t.Fatalf("the fixture holds %d tenant-name keys", n)
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
	steps := persistence.SchemaVersion - 1
	if n := migrated(); n != steps {
		t.Fatalf("%d migrations logged; want %d (1→2, then each to %d)", n, steps, persistence.SchemaVersion)
	}
	key := persistence.Key(persistence.KindMeta, "schema-version")
	if v, err := s.app.store.Get(context.Background(), key); err != nil || string(v) != strconv.Itoa(persistence.SchemaVersion) {
		t.Fatalf("schema version %q, %v; want %d", v, err, persistence.SchemaVersion)
	}
	if n := tenantNameKeys(t, s.app.store); n != 2 {
		t.Fatalf("%d tenant-name keys after the migration; want 2", n)
	}

	admin := s.login("ADMIN@Example.TEST", "fixture-admin-password").Token
	ts := listOf[tenants.Tenant](s, admin, "/api/resources/tenants")
	byName := map[string]tenants.Tenant{}
	for _, ten := range ts {
		byName[ten.Name] = ten
	}
	acme, globex := byName["Acme Corp"], byName["Globex"]
	if len(ts) != 2 || acme.ID == "" || globex.ID == "" || globex.Quota.Machines != 3 || acme.Quota.Machines != tenants.DefaultQuota.Machines {
		t.Fatalf("tenants %+v; want Acme Corp and Globex (3 machines)", ts)
	}
	users := listOf[struct{ ID, Email string }](s, admin, "/api/resources/users")
	if len(users) != 3 {
		t.Errorf("%d users; want the admin, ops and hank: %+v", len(users), users)
	}
	for _, c := range []struct{ email, password, tenant string }{
		{"ops@acme.example", "acme-password", acme.ID},
		{" Ops@ACME.Example", "acme-password", acme.ID},
		{"HANK.SCORPIO@globex.EXAMPLE", "globex-password", globex.ID},
	} {
		p := s.login(c.email, c.password)
		if p.User.TenantID == nil || *p.User.TenantID != c.tenant {
			t.Errorf("login as %q: user %+v; want one of tenant %s", c.email, p.User, c.tenant)
		}
	}
	for _, name := range []string{"acme CORP", " GLOBEX "} {
		expect(t, s.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": name}}), 409, "conflict")
	}
	expect(t, s.do(req{method: "PATCH", path: "/api/resources/tenants/" + globex.ID, token: admin, body: map[string]any{"name": "ACME corp"}}), 409, "conflict")
	expect(t, s.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": "Initech"}}), 201, "")

	ops := s.login("ops@acme.example", "acme-password").Token
	ms := listOf[machines.Machine](s, ops, "/api/resources/machines")
	if len(ms) != 1 {
		t.Fatalf("ops sees %d machines; want web-1", len(ms))
	}
	if m := ms[0]; m.VMID != 100 || m.Name != "web-1" || m.Status != "running" || m.Node != "pve1" || m.TenantID == nil || *m.TenantID != acme.ID {
		t.Errorf("machine %+v", m)
	}
	hank := s.login("hank.scorpio@globex.example", "globex-password").Token
	expect(t, s.do(req{method: "GET", path: "/api/resources/machines/" + ms[0].ID, token: hank}), 404, "not_found")
	// Migration 2→3 counted what Acme's machine holds.
	countersExact(t, s.app.store)
	if u := usageOf(s, ops); u != (tenants.Usage{Machines: 1, CPUCores: 1, MemoryMB: 512, DiskGB: 10}) {
		t.Errorf("Acme's usage %+v; want web-1's 1 core, 512 MB, 10 GB", u)
	}

	// Migrated once: a restart finds the store at the current version.
	s.restart()
	if n := migrated(); n != steps {
		t.Errorf("%d migrations logged after a restart; want still %d", n, steps)
	}
	s.login("Ops@Acme.Example", "acme-password")
}

// TestClusterMembersMigrateOnce: two members starting at once on an etcd store of
// schema version 1 (a tenant written without its name's index key, as before the
// index) migrate it once between them: one logs the migration, the other waits on the
// upgrade lock and finds it done; both then refuse the tenant's name ignoring case.
func TestClusterMembersMigrateOnce(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	clustered := func(i int) Config {
		cfg := testConfig(t)
		cfg.EtcdEndpoints = strings.Join(srv.Endpoints(), ",")
		cfg.NodeName = fmt.Sprintf("m%d", i)
		cfg.ClusterAddr = "127.0.0.1:0"
		cfg.JWTKey = ""
		return cfg
	}
	// A first member writes a tenant; then the store is taken back to version 1 and
	// the tenant's index key removed.
	first := &testServer{t: t, cfg: clustered(0), client: &http.Client{Timeout: 30 * time.Second}}
	first.start()
	acme := first.tenant(first.adminToken(), "Acme", nil)
	first.stop()
	st, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: srv.Endpoints(), Prefix: first.cfg.EtcdPrefix})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n := tenantNameKeys(t, st); n != 1 {
		t.Fatalf("%d tenant-name keys; want Acme's", n)
	}
	if err := st.Commit(context.Background(), new(persistence.Batch).Del(persistence.Key("tenant-name", "acme")).
		Put(persistence.Key(persistence.KindMeta, "schema-version"), []byte("1"))); err != nil {
		t.Fatal(err)
	}

	ms := make([]*testServer, 2)
	logs := make([]*observer.ObservedLogs, len(ms))
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i := range ms {
		core, observed := observer.New(zapcore.InfoLevel)
		logs[i] = observed
		ms[i] = &testServer{t: t, cfg: clustered(i + 1), client: &http.Client{Timeout: 30 * time.Second}}
		d, err := NewDriver(ms[i].cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		ms[i].sim = d.(*sim.Driver)
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := Start(ms[i].cfg, zap.New(core), ms[i].sim)
			if err != nil {
				errs[i] = err
				return
			}
			ms[i].app, ms[i].base = a, "http://"+a.Addr()
		}()
	}
	wg.Wait()
	for i, m := range ms {
		t.Cleanup(m.stop)
		if errs[i] != nil {
			t.Fatalf("member %d: %v", i, errs[i])
		}
	}
	migrations, migrators := 0, 0
	for _, l := range logs {
		n := l.FilterMessage("persistence: migrating the store").Len()
		migrations += n
		if n > 0 {
			migrators++
		}
	}
	if migrators != 1 || migrations != persistence.SchemaVersion-1 {
		t.Errorf("%d members logged %d migrations; want one member, each step once (%d)", migrators, migrations, persistence.SchemaVersion-1)
	}
	if v, err := persistence.StoredSchema(context.Background(), st); err != nil || v != persistence.SchemaVersion {
		t.Errorf("schema version %d, %v; want %d", v, err, persistence.SchemaVersion)
	}
	for _, m := range ms {
		admin := m.adminToken()
		expect(t, m.do(req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": "ACME"}}), 409, "conflict")
		expect(t, m.do(req{method: "GET", path: "/api/resources/tenants/" + acme.ID, token: admin}), 200, "")
	}
}

// countersExact fails the test unless every tenant's usage counter is the sum of what
// its machines hold (rebuilding them finds nothing to correct). Call it when no write
// is in flight.
func countersExact(t *testing.T, st persistence.Store) {
	t.Helper()
	r, err := machines.RebuildCounters(context.Background(), st)
	if err != nil || len(r.Corrected) > 0 {
		t.Fatalf("usage counters: %+v, %v; want every one exact", r, err)
	}
}

// TestUpgradeFromV2StoreBuildsUsageCounters: a data directory at schema version 2, which
// holds machines recorded without usage counters (seeded as a release of version 2
// wrote them), is migrated to version 3 once: every counter is exact, and the quota
// checks read them (a create past the quota is refused, one within it accepted).
func TestUpgradeFromV2StoreBuildsUsageCounters(t *testing.T) {
	t.Parallel()
	core, logs := observer.New(zapcore.InfoLevel)
	cfg := testConfig(t)
	s := &testServer{t: t, cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}, log: zap.New(core)}
	s.start()
	t.Cleanup(s.stop)
	admin := s.adminToken()
	s.sync(admin)
	tpl := firstTemplate(s, admin)
	a := s.tenant(admin, "Acme", map[string]int{"machines": 4, "cpu_cores": 100, "memory_mb": 1 << 20, "disk_gb": 10000})
	b := s.tenant(admin, "Globex", nil)
	s.provision(a.Token, tinyMachine("a-0", tpl))
	s.stop()

	// Back to version 2, with machines of both tenants that no counter counts.
	st, err := persistence.Open(persistence.Options{Dir: cfg.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	back := new(persistence.Batch).Put(persistence.Key(persistence.KindMeta, "schema-version"), []byte("2"))
	for _, ten := range []string{a.ID, a.ID, b.ID} {
		now := time.Now().UTC()
		if err := machines.Seed(back, machines.Machine{ID: persistence.NewID(), Name: "v2", TenantID: &ten, Status: machines.StatusStopped,
			CPUCores: 2, MemoryMB: 256, DiskGB: 10, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Commit(ctx, back); err != nil {
		t.Fatal(err)
	}
	st.Close()

	s.start()
	if n := logs.FilterMessage("persistence: migrating the store").Len(); n != 2 {
		t.Fatalf("%d migrations logged; want 2 (2→3, 3→4)", n)
	}
	if l := logs.FilterMessage("usage counters built").All(); len(l) != 1 || l[0].ContextMap()["written"] != int64(2) {
		t.Fatalf("the migration logged %+v; want the counters of both tenants written", l)
	}
	countersExact(t, s.app.store)
	if ok, err := s.app.sys.Machines.CountersTrusted(ctx); err != nil || !ok {
		t.Fatalf("counters trusted: %v, %v; want true after the migration", ok, err)
	}
	if u := usageOf(s, a.Token); u.Machines != 3 || u.CPUCores != 5 {
		t.Fatalf("Acme's usage %+v; want 3 machines, 5 cores", u)
	}
	if u := usageOf(s, b.Token); u.Machines != 1 || u.CPUCores != 2 {
		t.Fatalf("Globex's usage %+v; want 1 machine, 2 cores", u)
	}
	s.provision(a.Token, tinyMachine("a-1", tpl))
	expect(t, s.do(req{method: "POST", path: "/api/client/machines", token: a.Token, body: tinyMachine("a-2", tpl)}), 409, "quota_exceeded")
	countersExact(t, s.app.store)
}
