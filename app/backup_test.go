package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// storeDump is every key and value of a store, rendered for comparison.
func storeDump(t *testing.T, s persistence.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	if err := s.Scan(context.Background(), persistence.Prefix(), nil, 0, func(k, v []byte) error {
		out[string(k)] = string(v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// kindsOf counts a dump's keys by kind (the part before the first '/').
func kindsOf(d map[string]string) map[string]int {
	n := map[string]int{}
	for k := range d {
		kind, _, _ := strings.Cut(k, "/")
		n[kind]++
	}
	return n
}

func sameDump(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestBackupRoundTrip fills a server with every kind of record through the API (the
// isolation world: tenants, users, machines, tasks, firewall rules, power and backup
// schedules, backups, health checks, alerts; plus the simulated cluster, the usage
// history, logins and an idempotent create), takes a backup from it while it runs,
// loads the backup into an empty directory and starts a second server there: the
// store holds the same keys and values, and every list answers the same.
func TestBackupRoundTrip(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	w := newIsolationWorld(s, admin)
	idem := req{method: "POST", path: "/api/resources/tenants", token: admin, body: map[string]any{"name": "Once"},
		header: map[string]string{"Idempotency-Key": "tenant-once"}}
	first := s.do(idem)
	expect(t, first, 201, "")

	// The backup, taken from the running server, and the first server's answers to
	// compare with the second's; retried until the store held still around both, so
	// that the dump before them is exactly what the backup must hold and what the
	// answers show (a firewall push still settling lands after the backup otherwise,
	// and the answers show it where the backup cannot).
	paths := readPaths(s, admin, w)
	var (
		raw    []byte
		before map[string]string
		want   map[string]string
	)
	for try := 0; ; try++ {
		before = storeDump(t, s.app.store)
		r := s.do(req{method: "GET", path: "/api/admin/backup", token: admin})
		expect(t, r, 200, "")
		if ct := r.Header.Get("Content-Type"); ct != "application/octet-stream" {
			t.Fatalf("Content-Type %q", ct)
		}
		raw = r.Body
		want = map[string]string{}
		for _, p := range paths {
			want[p.key()] = s.readBody(p)
		}
		if sameDump(before, storeDump(t, s.app.store)) {
			break
		}
		if try == 5 {
			t.Fatal("the store never held still around a backup and the reads after it")
		}
	}
	kinds := kindsOf(before)
	for _, k := range []string{"tenant", "user", "user-email", "refresh", "vm", "node", "task", "fw", "sched", "backup",
		"hc", "alert", "alert-open", "usage-day", "idem", "meta", "template", sim.KeyPrefix} {
		if kinds[k] == 0 {
			t.Errorf("the source store holds no %q record: the round trip would not cover it (kinds: %v)", k, kinds)
		}
	}

	dir := filepath.Join(t.TempDir(), "restored")
	restored, err := persistence.Open(persistence.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := restored.Load(bytes.NewReader(raw)); err != nil {
		t.Fatalf("Load: %v", err)
	}
	after := storeDump(t, restored)
	if err := restored.Close(); err != nil {
		t.Fatal(err)
	}
	if !sameDump(before, after) {
		var diff []string
		for k, v := range before {
			if after[k] != v {
				diff = append(diff, k)
			}
		}
		for k := range after {
			if _, ok := before[k]; !ok {
				diff = append(diff, "+"+k)
			}
		}
		sort.Strings(diff)
		t.Fatalf("the restored store differs from the source in %d keys: %v", len(diff), diff)
	}

	// A second server on the restored directory (the source keeps running: they share
	// nothing), with a simulated cluster built from the configuration, as a new
	// process would.
	s2 := &testServer{t: t, cfg: s.cfg, client: &http.Client{Timeout: 30 * time.Second}}
	s2.cfg.DataDir, s2.cfg.Addr = dir, "127.0.0.1:0"
	s2.start()
	t.Cleanup(s2.stop)
	for _, p := range paths {
		if got := s2.readBody(p); withoutLastProbe(t, got) != withoutLastProbe(t, want[p.key()]) {
			t.Errorf("%s after the restore:\ngot  %s\nwant %s", p.key(), got, want[p.key()])
		}
	}
	// The idempotency record came along: the same create is answered again, not redone.
	if again := s2.do(idem); again.Status != 201 || !bytes.Equal(again.Body, first.Body) {
		t.Errorf("the idempotent retry after the restore: %d %s; want the first answer %s", again.Status, again.Body, first.Body)
	}
	// Logins of the source work on the restored server (refresh tokens, signing key).
	expect(t, s2.do(req{method: "GET", path: "/api/auth/me", token: w.a.Token}), 200, "")
}

// readPath is a GET the round trip compares, with the token it is read with.
type readPath struct{ who, token, path string }

func (p readPath) key() string { return p.who + " GET " + p.path }

type forecastPoint struct {
	Date string  `json:"date"`
	Used float64 `json:"used"`
}

// requestIDs differ between any two answers.
var requestIDs = regexp.MustCompile(`"request_id":"[^"]*"`)

func (s *testServer) readBody(p readPath) string {
	s.t.Helper()
	r := s.do(req{method: "GET", path: p.path, token: p.token})
	body := r.Body
	if strings.HasPrefix(p.path, "/api/monitoring/insights/cluster-forecast") && r.Status == 200 {
		// The forecast starts from the cluster's usage now (live, from the hypervisor)
		// and fits the stored daily history: only the history is the store's.
		// Today's point is today's live usage so far.
		var f struct {
			Resources []struct {
				Resource string
				Points   []forecastPoint
			}
		}
		r.decode(s.t, &f)
		today := time.Now().UTC().Format(time.DateOnly)
		for i, res := range f.Resources {
			f.Resources[i].Points = slices.DeleteFunc(res.Points, func(p forecastPoint) bool { return p.Date >= today })
		}
		body, _ = json.Marshal(f)
	}
	return strconv.Itoa(r.Status) + " " + requestIDs.ReplaceAllString(string(body), "")
}

// readPaths is every GET route without a path parameter, read by an operator and,
// where a tenant may read it, by tenant A; and each of tenant A's records by id.
func readPaths(s *testServer, admin string, w *isolationWorld) []readPath {
	skip := map[string]bool{"/api/health": true, "/metrics": true, "/api/openapi.json": true, "/api/events": true,
		"/api/admin/backup": true}
	var out []readPath
	for _, rt := range s.app.Edge().Routes() {
		if rt.Method != "GET" || strings.Contains(rt.Path, "{") || skip[rt.Path] || rt.Hidden {
			continue
		}
		path := rt.Path + "?"
		if _, ok := rt.Query["limit"]; ok {
			path += "limit=500&"
		}
		if _, ok := rt.Query["tenant_id"]; ok && strings.HasPrefix(rt.Path, "/api/client/") {
			out = append(out, readPath{"admin", admin, path + "tenant_id=" + w.a.ID})
		} else {
			out = append(out, readPath{"admin", admin, path})
		}
		if rt.Access != api.AdminOnly {
			out = append(out, readPath{"tenant A", w.a.Token, path})
		}
	}
	for _, p := range []string{"/api/resources/machines/" + w.am.ID, "/api/tasks/" + w.atask.ID,
		"/api/resources/backups/" + w.abk.ID, "/api/resources/health-checks/" + w.ahc.ID,
		"/api/client/machines/" + w.am.ID + "/power-schedules", fmt.Sprintf("/api/resources/alert-events/%s", w.aalert.ID)} {
		out = append(out, readPath{"tenant A", w.a.Token, p})
	}
	return out
}

// TestBackupRoute: only operators take backups; the stream names itself as a download.
func TestBackupRoute(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	ten := s.tenant(admin, "Nope", nil)
	expect(t, s.do(req{method: "GET", path: "/api/admin/backup", token: ten.Token}), 403, "forbidden")
	expect(t, s.do(req{method: "GET", path: "/api/admin/backup"}), 401, "unauthorized")
	r := s.do(req{method: "GET", path: "/api/admin/backup", token: admin})
	expect(t, r, 200, "")
	if !strings.HasPrefix(r.Header.Get("Content-Disposition"), "attachment; filename=\"vmplane-") || r.Header.Get("X-Request-Id") == "" {
		t.Errorf("headers %v", r.Header)
	}
	if h, err := persistence.VerifyBackup(bytes.NewReader(r.Body)); err != nil || h.Schema != persistence.SchemaVersion {
		t.Errorf("the answer is no backup of this schema: %+v, %v", h, err)
	}
}

// TestStartRefusesNewerStore: a data directory stamped by a newer vmplane is refused
// at start with a NewerSchemaError, and left as it was.
func TestStartRefusesNewerStore(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	st, err := persistence.Open(persistence.Options{Dir: cfg.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	newer := []byte(strconv.Itoa(persistence.SchemaVersion + 1))
	key := persistence.Key(persistence.KindMeta, "schema-version")
	if err := st.Commit(context.Background(), new(persistence.Batch).Put(key, newer)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	a, err := Start(cfg, nil, nil)
	if err == nil {
		a.Shutdown(context.Background())
		t.Fatal("a newer store was opened")
	}
	var ne *persistence.NewerSchemaError
	if !errors.As(err, &ne) || ne.Found != persistence.SchemaVersion+1 {
		t.Fatalf("Start: %v; want a NewerSchemaError", err)
	}
	st, err = persistence.Open(persistence.Options{Dir: cfg.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if v, _ := st.Get(context.Background(), key); !bytes.Equal(v, newer) {
		t.Errorf("the stamp became %q", v)
	}
}

// TestStartStampsUnversionedStore: a store of today's layout written before the schema
// version was recorded (the stamp deleted here) starts as version 1, is stamped, and
// serves what it held.
func TestStartStampsUnversionedStore(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	ten := s.tenant(admin, "Old", nil)
	s.stop()
	st, err := persistence.Open(persistence.Options{Dir: s.cfg.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	key := persistence.Key(persistence.KindMeta, "schema-version")
	if v, err := st.Get(context.Background(), key); err != nil || string(v) != strconv.Itoa(persistence.SchemaVersion) {
		t.Fatalf("the first start stamped %q, %v", v, err)
	}
	if err := st.Commit(context.Background(), new(persistence.Batch).Del(key)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	s.cfg.Addr = "127.0.0.1:0"
	s.start()
	if v, err := s.app.store.Get(context.Background(), key); err != nil || string(v) != strconv.Itoa(persistence.SchemaVersion) {
		t.Errorf("after the start the stamp is %q, %v", v, err)
	}
	expect(t, s.do(req{method: "GET", path: "/api/client/overview", token: ten.Token}), 200, "")
}

// withoutLastProbe is a JSON answer without its health checks' last probe results
// ("last"): the second server probes each check once in its first interval, at a
// random moment (the first probes of many checks are spread), which may fall before
// the answer is read. The store's equality above covers the restored results.
func withoutLastProbe(t *testing.T, body string) string {
	t.Helper()
	if !strings.Contains(body, `"last":`) {
		return body
	}
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		return body
	}
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "last")
			for _, e := range x {
				strip(e)
			}
		case []any:
			for _, e := range x {
				strip(e)
			}
		}
	}
	strip(v)
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
