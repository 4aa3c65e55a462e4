package usage

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
	"go.etcd.io/etcd/server/v3/embed"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// world is what the hourly close reads: machines a test changes between hours.
type world struct {
	mu       sync.Mutex
	reads    int // of the machines: one per hour closed
	machines []Machine
	backups  map[string]Stored
	traffic  map[string]Traffic
}

func (w *world) set(ms ...Machine) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.machines = ms
}

func (w *world) deps(rt *kit.Runtime) Deps {
	return Deps{Runtime: rt,
		Machines: func(context.Context) ([]Machine, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.reads++
			return append([]Machine(nil), w.machines...), nil
		},
		Backups: func(context.Context) (map[string]Stored, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			return w.backups, nil
		},
		Traffic: func(context.Context, time.Time) (map[string]Traffic, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			return w.traffic, nil
		}}
}

func openStore(t *testing.T, dir string) persistence.Store {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() }) // a second close (after a restart's) only fails
	return store
}

func newUsage(t *testing.T, store persistence.Store, w *world) *Usage {
	t.Helper()
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(rt.Shutdown)
	return New(w.deps(rt))
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

var (
	tenantA = "tenant-a"
	tenantB = "tenant-b"
	plan1   = "plan-small"
	plan2   = "plan-large"
	day     = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
)

func vm(id string, tenant *string, plan *string, cores, memMB, diskGB int) Machine {
	return Machine{ID: id, Name: "name-" + id, TenantID: tenant, PlanID: plan, CPUCores: cores, MemoryMB: memMB, DiskGB: diskGB,
		CreatedAt: day.Add(-time.Hour)}
}

// closeAt closes the hours due at the given time, a minute after the hour.
func closeAt(t *testing.T, u *Usage, hour time.Time) {
	t.Helper()
	if err := u.Close(ctxFor(t), hour.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
}

// TestResizeMidDay: a machine resized (and moved to another plan) at noon is counted
// at its old size for the hours before and at its new size after, exactly; a
// machine made at 18:30 is counted from the 18:00 hour on; and the read is the same
// when made twice.
func TestResizeMidDay(t *testing.T) {
	w := &world{}
	u := newUsage(t, openStore(t, t.TempDir()), w)
	ctx := ctxFor(t)
	w.set(vm("m1", &tenantA, &plan1, 2, 2048, 20))
	for h := 1; h <= 24; h++ {
		if h == 13 { // closing 12:00-13:00 onwards: resized during the 12:00 hour
			late := vm("m2", &tenantA, nil, 1, 512, 10)
			late.CreatedAt = day.Add(18*time.Hour + 30*time.Minute)
			w.set(vm("m1", &tenantA, &plan2, 4, 8192, 40), late)
		}
		closeAt(t, u, day.Add(time.Duration(h)*time.Hour))
	}
	r, err := u.Tenant(ctx, &tenantA, day, day.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Lines) != 3 || r.Gaps != 0 {
		t.Fatalf("got %d lines, %d gaps; want 3 and 0: %+v", len(r.Lines), r.Gaps, r.Lines)
	}
	want := []UsageLine{
		{MachineID: "m1", PlanID: &plan2, Hours: 12, CoreHours: 48, MemoryMBHours: 12 * 8192, DiskGBHours: 480},
		{MachineID: "m1", PlanID: &plan1, Hours: 12, CoreHours: 24, MemoryMBHours: 12 * 2048, DiskGBHours: 240},
		{MachineID: "m2", Hours: 6, CoreHours: 6, MemoryMBHours: 6 * 512, DiskGBHours: 60},
	}
	// Lines sort by machine, then plan id ("" first, then plan-large, plan-small).
	for i, wl := range want {
		g := r.Lines[i]
		if g.MachineID != wl.MachineID || !samePlan(g.PlanID, wl.PlanID) || g.Hours != wl.Hours || g.CoreHours != wl.CoreHours ||
			g.MemoryMBHours != wl.MemoryMBHours || g.DiskGBHours != wl.DiskGBHours || g.EstimatedHours != 0 {
			t.Errorf("line %d: got %+v; want %+v", i, g, wl)
		}
	}
	if r.Totals.Hours != 30 || r.Totals.CoreHours != 78 || r.Totals.DiskGBHours != 780 {
		t.Errorf("totals: got %+v", r.Totals)
	}
	again, err := u.Tenant(ctx, &tenantA, day, day.Add(24*time.Hour))
	if err != nil || !sameReport(r, again) {
		t.Errorf("read twice: got %+v, %v; want %+v", again, err, r)
	}
	m, err := u.Machine(ctx, &tenantA, "m2", day, day.Add(24*time.Hour))
	if err != nil || len(m.Lines) != 1 || m.Totals.Hours != 6 {
		t.Errorf("machine m2: got %+v, %v", m, err)
	}
	morning, err := u.Machine(ctx, &tenantA, "m1", day, day.Add(12*time.Hour))
	if err != nil || len(morning.Lines) != 1 || morning.Totals.CoreHours != 24 {
		t.Errorf("m1 morning: got %+v, %v", morning, err)
	}
}

func samePlan(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func sameReport(a, b UsageReport) bool {
	if len(a.Lines) != len(b.Lines) || a.Totals != b.Totals || a.Gaps != b.Gaps || !a.From.Equal(b.From) || !a.To.Equal(b.To) {
		return false
	}
	for i := range a.Lines {
		x, y := a.Lines[i], b.Lines[i]
		x.TenantID, x.PlanID, y.TenantID, y.PlanID = nil, nil, nil, nil
		if x != y || !samePlan(a.Lines[i].PlanID, b.Lines[i].PlanID) {
			return false
		}
	}
	return true
}

// TestHourCountedOnceAndKeptAcrossRestart: two members closing the same hours (two
// Usage on one store, each seeing different sizes), then a restart on the same data
// directory that closes them again, still count each hour once, with the first
// close's numbers, and the reads before and after the restart agree.
func TestHourCountedOnceAndKeptAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	store := openStore(t, dir)
	w1, w2 := &world{}, &world{}
	w1.set(vm("m1", &tenantA, &plan1, 2, 1024, 10))
	w1.backups = map[string]Stored{"m1": {Count: 2, Bytes: 3 << 30}}
	w1.traffic = map[string]Traffic{"m1": {In: 1000, Out: 2000}}
	w2.set(vm("m1", &tenantA, &plan1, 8, 1024, 10))
	a, b := newUsage(t, store, w1), newUsage(t, store, w2)
	var wg sync.WaitGroup
	for h := 1; h <= 3; h++ {
		for _, u := range []*Usage{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				closeAt(t, u, day.Add(time.Duration(h)*time.Hour))
			}()
		}
		wg.Wait()
	}
	ctx := ctxFor(t)
	before, err := a.Tenant(ctx, &tenantA, day, day.Add(3*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if before.Totals.Hours != 3 || (before.Totals.CoreHours != 6 && before.Totals.CoreHours != 24 && before.Totals.CoreHours%2 != 0) {
		t.Fatalf("got %+v; want 3 hours", before.Totals)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	store = openStore(t, dir)
	w3 := &world{}
	w3.set(vm("m1", &tenantA, &plan1, 16, 1024, 10))
	c := newUsage(t, store, w3)
	closeAt(t, c, day.Add(3*time.Hour))
	after, err := c.Tenant(ctx, &tenantA, day, day.Add(3*time.Hour))
	if err != nil || !sameReport(before, after) {
		t.Fatalf("after the restart: got %+v, %v; want %+v", after, err, before)
	}
	if len(after.Lines) != 1 || after.Totals.Hours != 3 {
		t.Fatalf("got %+v", after)
	}
	// Hours closed by the first member only carry its backups and traffic.
	if a.d.Backups == nil || after.Totals.BackupHours%2 != 0 {
		t.Errorf("backups: got %+v", after.Totals)
	}
}

// TestMissedHoursAfterDowntime: after a downtime the hours since the last one closed
// are closed late and marked estimated, back to the backfill; older ones stay gaps,
// and a first start closes only the last whole hour.
func TestMissedHoursAfterDowntime(t *testing.T) {
	w := &world{}
	store := openStore(t, t.TempDir())
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(rt.Shutdown)
	d := w.deps(rt)
	d.Backfill = 3 * time.Hour
	u := New(d)
	w.set(vm("m1", &tenantA, nil, 1, 1024, 10))
	ctx := ctxFor(t)
	closeAt(t, u, day.Add(2*time.Hour)) // first start: only 01:00-02:00
	// Down from 02:01 to 04:30: 02:00 and 03:00 closed late.
	if err := u.Close(ctx, day.Add(4*time.Hour+30*time.Minute)); err != nil {
		t.Fatal(err)
	}
	r, err := u.Tenant(ctx, &tenantA, day, day.Add(4*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if r.Totals.Hours != 3 || r.Totals.EstimatedHours != 2 || r.Gaps != 1 {
		t.Fatalf("got %+v, %d gaps; want 3 hours, 2 estimated, 1 gap (00:00)", r.Totals, r.Gaps)
	}
	// Down for a day: beyond the backfill of 3 hours, only 3 hours are filled.
	if err := u.Close(ctx, day.Add(28*time.Hour+time.Minute)); err != nil {
		t.Fatal(err)
	}
	r, err = u.Tenant(ctx, &tenantA, day.Add(4*time.Hour), day.Add(28*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if r.Totals.Hours != 4 || r.Totals.EstimatedHours != 3 || r.Gaps != 20 {
		t.Fatalf("got %+v, %d gaps; want 4 hours (24:00-27:00, backfill of 3 and the last), 20 gaps", r.Totals, r.Gaps)
	}
}

// TestTenantsApart: a tenant's read holds its own machines only, the operator's
// machines are read with a nil tenant, and another tenant's machine reads as nothing.
func TestTenantsApart(t *testing.T) {
	w := &world{}
	u := newUsage(t, openStore(t, t.TempDir()), w)
	w.set(vm("a1", &tenantA, nil, 1, 1024, 10), vm("b1", &tenantB, nil, 2, 1024, 10), vm("o1", nil, nil, 4, 1024, 10))
	closeAt(t, u, day.Add(time.Hour))
	ctx := ctxFor(t)
	for _, c := range []struct {
		tenant *string
		cores  int64
	}{{&tenantA, 1}, {&tenantB, 2}, {nil, 4}} {
		r, err := u.Tenant(ctx, c.tenant, day, day.Add(time.Hour))
		if err != nil || len(r.Lines) != 1 || r.Totals.CoreHours != c.cores {
			t.Errorf("tenant %v: got %+v, %v; want %d core-hours", c.tenant, r, err, c.cores)
		}
	}
	r, err := u.Machine(ctx, &tenantB, "a1", day, day.Add(time.Hour))
	if err != nil || len(r.Lines) != 0 {
		t.Errorf("a1 as tenant B: got %+v, %v", r, err)
	}
}

// TestRangeChecks: whole hours only, from before to, a bounded span.
func TestRangeChecks(t *testing.T) {
	u := newUsage(t, openStore(t, t.TempDir()), &world{})
	ctx := ctxFor(t)
	for _, c := range []struct{ from, to time.Time }{
		{time.Time{}, day},
		{day.Add(time.Minute), day.Add(time.Hour)},
		{day, day},
		{day.Add(time.Hour), day},
		{day, day.Add(MaxSpan + time.Hour)},
	} {
		if _, err := u.Tenant(ctx, &tenantA, c.from, c.to); !errors.Is(err, apierr.ErrInvalidRequest) {
			t.Errorf("%v..%v: got %v; want invalid", c.from, c.to, err)
		}
	}
	if _, err := u.Tenant(ctx, &tenantA, day, day.Add(MaxSpan)); err != nil {
		t.Errorf("a full span: %v", err)
	}
}

// TestRetention: hours older than the retention go, with their records.
func TestRetention(t *testing.T) {
	w := &world{}
	store := openStore(t, t.TempDir())
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(rt.Shutdown)
	d := w.deps(rt)
	d.Retention = 2 * time.Hour
	u := New(d)
	w.set(vm("m1", &tenantA, nil, 1, 1024, 10))
	ctx := ctxFor(t)
	for h := 1; h <= 5; h++ {
		closeAt(t, u, day.Add(time.Duration(h)*time.Hour))
	}
	if err := u.Prune(ctx, day.Add(5*time.Hour)); err != nil {
		t.Fatal(err)
	}
	r, err := u.Tenant(ctx, &tenantA, day, day.Add(5*time.Hour))
	if err != nil || r.Totals.Hours != 2 || r.Gaps != 3 {
		t.Fatalf("got %+v, %d gaps, %v; want the last 2 hours kept", r.Totals, r.Gaps, err)
	}
}

// TestJobOnTheClock: the job closes the hours on the runtime's clock (a fake one
// here, advanced by the test), on its own.
func TestJobOnTheClock(t *testing.T) {
	clock := clockwork.NewFakeClockAt(day.Add(30 * time.Minute))
	store := openStore(t, t.TempDir())
	rt := kit.New(store, nil, kit.EntityOptions{}, kit.WithClock(clock))
	t.Cleanup(rt.Shutdown)
	w := &world{}
	w.set(vm("m1", &tenantA, nil, 3, 1024, 10))
	u := New(w.deps(rt))
	u.Run()
	t.Cleanup(u.Stop)
	ctx := ctxFor(t)
	// The runtime has timers of its own on the clock: advance until the job, which
	// may not have armed its ticker yet, has closed the hour (each poll a minute on).
	testwait.Eventually(t, "the 00:00 hour closed by the job", func() bool {
		if clock.Now().Before(day.Add(2 * time.Hour)) {
			clock.Advance(Interval)
		}
		r, err := u.Tenant(ctx, &tenantA, day, day.Add(time.Hour))
		return err == nil && r.Totals.CoreHours == 3
	})
}

// TestRacingClosersBothPruned: two runs that close one hour at once, each seeing other
// tenants' machines, both leave their tenants in the hour's index, so the retention
// deletes every tenant's record of it, the loser's included.
func TestRacingClosersBothPruned(t *testing.T) {
	store := openStore(t, t.TempDir())
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(rt.Shutdown)
	wa, wb := &world{}, &world{}
	wa.set(vm("m1", &tenantA, nil, 1, 1024, 10))
	wb.set(vm("m2", &tenantB, nil, 1, 1024, 10))
	da, db := wa.deps(rt), wb.deps(rt)
	da.Retention, db.Retention = time.Hour, time.Hour
	ua, ub := New(da), New(db)
	ctx := ctxFor(t)
	// Both read the hour as open, then close it: closeHour is what each goes on to do.
	if err := ua.closeHour(ctx, day, false); err != nil {
		t.Fatal(err)
	}
	if err := ub.closeHour(ctx, day, false); err != nil { // the marker exists: the index gains tenant B
		t.Fatal(err)
	}
	for _, ten := range []*string{&tenantA, &tenantB} {
		if r, err := ua.Tenant(ctx, ten, day, day.Add(time.Hour)); err != nil || r.Totals.Hours != 1 {
			t.Fatalf("tenant %s before the retention: %+v, %v; want its hour", *ten, r.Totals, err)
		}
	}
	if err := ua.Prune(ctx, day.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := store.Scan(ctx, persistence.Prefix("usage-hour"), nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d hour records left after the retention; want none (the second closer's too)", n)
	}
}

// TestLargeTenantHourInParts: a tenant with more machines than one value holds, and
// the operator's machines as many (an adopted cluster), are counted whole: their hour
// is written in parts, no value passes the store's limit, every other tenant's hour
// is written too, and a machine's report finds its line in any part. Before the parts,
// such a tenant's hour failed at the store's value limit and the hour was never closed
// for any tenant.
func TestLargeTenantHourInParts(t *testing.T) {
	w := &world{}
	store := openStore(t, t.TempDir())
	u := newUsage(t, store, w)
	var ms []Machine
	const big, pool = 2*partLines + 321, 3 * partLines
	for i := range big {
		ms = append(ms, vm(fmt.Sprintf("a%05d", i), &tenantA, &plan1, 2, 1024, 10))
	}
	for i := range pool {
		ms = append(ms, vm(fmt.Sprintf("o%05d", i), nil, nil, 1, 512, 5))
	}
	ms = append(ms, vm("b1", &tenantB, nil, 3, 1024, 10))
	w.set(ms...)
	closeAt(t, u, day.Add(time.Hour))
	ctx := ctxFor(t)
	for _, c := range []struct {
		tenant      *string
		lines       int
		cores, disk int64
	}{{&tenantA, big, 2 * big, 10 * big}, {nil, pool, pool, 5 * pool}, {&tenantB, 1, 3, 10}} {
		r, err := u.Tenant(ctx, c.tenant, day, day.Add(time.Hour))
		if err != nil || len(r.Lines) != c.lines || r.Totals.CoreHours != c.cores || r.Totals.DiskGBHours != c.disk || r.Gaps != 0 {
			t.Fatalf("tenant %v: %d lines, totals %+v, %d gaps, %v; want %d lines, %d core-hours, %d disk-hours",
				c.tenant, len(r.Lines), r.Totals, r.Gaps, err, c.lines, c.cores, c.disk)
		}
	}
	last := fmt.Sprintf("a%05d", big-1) // in the last part
	if r, err := u.Machine(ctx, &tenantA, last, day, day.Add(time.Hour)); err != nil || len(r.Lines) != 1 || r.Totals.CoreHours != 2 {
		t.Fatalf("machine %s: %+v, %v; want its one line", last, r, err)
	}
	values := 0
	err := store.Scan(ctx, persistence.Prefix("usage-hour"), nil, 0, func(k, v []byte) error {
		values++
		if len(v) > persistence.MaxValueSize/2 {
			t.Errorf("%s holds %d bytes", k, len(v))
		}
		return nil
	})
	if err != nil || values != 3+2+2 { // three hour records, tenant A's two parts, the pool's two
		t.Fatalf("%d hour values, %v; want 7", values, err)
	}
}

// TestUnnamedPartsNotCountedAndPruned: parts no hour record names (a run that failed
// before its record, or lost the race to another) are not counted, and the retention
// deletes them with the hour.
func TestUnnamedPartsNotCountedAndPruned(t *testing.T) {
	w := &world{}
	store := openStore(t, t.TempDir())
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(rt.Shutdown)
	d := w.deps(rt)
	d.Retention = time.Hour
	u := New(d)
	var ms []Machine
	for i := range partLines + 1 {
		ms = append(ms, vm(fmt.Sprintf("a%05d", i), &tenantA, nil, 1, 1024, 10))
	}
	w.set(ms...)
	ctx := ctxFor(t)
	// A run that named its parts in the hour's index, wrote one of two and stopped,
	// before the hour's record was written.
	stray, err := persistence.Encode(hourVersion, hourRecord{Hour: day, Machines: []UsageLine{{MachineID: "a00000", Hours: 1, CoreHours: 99}}})
	if err != nil {
		t.Fatal(err)
	}
	named, err := persistence.Encode(indexVersion, indexRecord{Parts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, new(persistence.Batch).Put(runIndexKey(day, tenantA, "failed-run"), named)); err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, new(persistence.Batch).Put(partKey(tenantA, day, "failed-run", 1), stray)); err != nil {
		t.Fatal(err)
	}
	closeAt(t, u, day.Add(time.Hour))
	r, err := u.Tenant(ctx, &tenantA, day, day.Add(time.Hour))
	if err != nil || len(r.Lines) != partLines+1 || r.Totals.CoreHours != partLines+1 {
		t.Fatalf("got %d lines, %d core-hours, %v; want %d of each (the stray part not counted)", len(r.Lines), r.Totals.CoreHours, err, partLines+1)
	}
	// A second run of the same hour finds it counted and writes nothing.
	if err := u.closeHour(ctx, day, false); err != nil {
		t.Fatal(err)
	}
	if r2, err := u.Tenant(ctx, &tenantA, day, day.Add(time.Hour)); err != nil || r2.Totals.CoreHours != r.Totals.CoreHours {
		t.Fatalf("after a second close: %+v, %v; want %+v", r2.Totals, err, r.Totals)
	}
	if err := u.Prune(ctx, day.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := store.Scan(ctx, persistence.Prefix("usage-hour"), nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d hour values left after the retention; want none (the stray part's too)", n)
	}
	if n := count(t, store, "usage-index") + count(t, store, "usage-closed"); n != 0 {
		t.Fatalf("%d index keys and markers left after the retention; want none", n)
	}
}

// count counts the keys of a kind.
func count(t *testing.T, store persistence.Store, kind string) int {
	t.Helper()
	n := 0
	if err := store.Scan(ctxFor(t), persistence.Prefix(kind), nil, 0, func(_, _ []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// scans is a store that counts its scans.
type scans struct {
	persistence.Store
	mu sync.Mutex
	n  int
}

func (s *scans) Scan(ctx context.Context, prefix, after []byte, limit int, fn func(key, value []byte) error) error {
	s.mu.Lock()
	s.n++
	s.mu.Unlock()
	return s.Store.Scan(ctx, prefix, after, limit, fn)
}

func (s *scans) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// manyTenants is how many tenants TestHourOfFortyThousandTenants closes: with ids of
// 26 characters, a marker that listed them held some 1.2 MB.
const manyTenants = 40_000

// TestHourOfFortyThousandTenants: an hour of 40,000 tenants (a machine each) is
// closed: the marker is written, small, so the next run does not read the fleet again
// and no hour reads as a gap; and the retention deletes all of it in one scan of the
// hour's index, not one a tenant. Before the index, the marker listed every tenant,
// passed the store's value limit, and the hour was closed again every minute.
func TestHourOfFortyThousandTenants(t *testing.T) {
	store := &scans{Store: openStore(t, t.TempDir())}
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(rt.Shutdown)
	w := &world{}
	d := w.deps(rt)
	d.Retention = time.Hour
	u := New(d)
	ms := make([]Machine, manyTenants)
	ids := make([]string, manyTenants)
	for i := range ms {
		ids[i] = persistence.NewID()
		ms[i] = vm(fmt.Sprintf("m%05d", i), &ids[i], &plan1, 1, 1024, 10)
	}
	w.set(ms...)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := u.Close(ctx, day.Add(time.Hour+time.Minute)); err != nil {
		t.Fatal(err)
	}
	marker, err := store.Get(ctx, closedKey(day))
	if err != nil || len(marker) > 200 {
		t.Fatalf("the marker: %d bytes, %v; want it written, small", len(marker), err)
	}
	if err := u.Close(ctx, day.Add(time.Hour+2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if w.reads != 1 {
		t.Fatalf("the machines read %d times; want once (the hour closed once)", w.reads)
	}
	for _, i := range []int{0, manyTenants / 2, manyTenants - 1} {
		r, err := u.Tenant(ctx, &ids[i], day, day.Add(time.Hour))
		if err != nil || r.Totals.Hours != 1 || r.Gaps != 0 {
			t.Fatalf("tenant %d: %+v, %d gaps, %v; want its hour", i, r.Totals, r.Gaps, err)
		}
	}
	if n := count(t, store, "usage-index"); n != manyTenants {
		t.Fatalf("%d index keys; want %d", n, manyTenants)
	}
	before := store.count()
	if err := u.Prune(ctx, day.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Finding the oldest hour (two scans) twice, and the hour's index a page at a time.
	if n, most := store.count()-before, 4+manyTenants/indexPage+1; n > most {
		t.Errorf("the retention scanned %d times; want at most %d (its index a page at a time), not one a tenant", n, most)
	}
	for _, kind := range []string{"usage-hour", "usage-index", "usage-closed"} {
		if n := count(t, store, kind); n != 0 {
			t.Errorf("%d %s keys left after the retention; want none", n, kind)
		}
	}
}

// TestCloseAndPruneOnBadger and TestCloseAndPruneOnEtcd run closeAndPrune on each store.
func TestCloseAndPruneOnBadger(t *testing.T) { closeAndPrune(t, openStore(t, t.TempDir())) }

// TestCloseAndPruneOnEtcd runs it on a cluster's store, an etcd with its default
// limit of 128 operations a transaction.
func TestCloseAndPruneOnEtcd(t *testing.T) {
	srv := etcdtest.Start(t, func(c *embed.Config) { c.MaxTxnOps = 128 })
	store, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: srv.Endpoints(), Prefix: "/usage/"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	closeAndPrune(t, store)
}

// closeAndPrune: two runs close one hour at once, of a thousand tenants (batched) and
// two of more machines than a value holds (in parts), after a third wrote one of the
// thousand first, and a run of the previous release (which writes no index) another
// and one of the two, with a part, and stopped before its marker: every tenant is
// counted once, the earlier runs' records kept, and put in the index. Then the
// retention deletes every key of that hour, from its index, although a member of the
// previous release deleted its marker first (its prune read no tenants in it, and
// deleted only the marker), and every key of an hour the previous release closed, from
// the tenants its marker lists, with a part its run left unnamed.
func closeAndPrune(t *testing.T, store persistence.Store) {
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(rt.Shutdown)
	w := &world{}
	d := w.deps(rt)
	d.Retention = time.Hour
	ua, ub := New(d), New(d)
	const small, big = 1000, 2*partLines + 1
	ids := make([]string, small)
	var ms []Machine
	for i := range ids {
		ids[i] = fmt.Sprintf("tenant-%04d", i)
		ms = append(ms, vm(fmt.Sprintf("s%04d", i), &ids[i], nil, 1, 1024, 10))
	}
	tenantC := "tenant-c"
	for i := range big {
		ms = append(ms, vm(fmt.Sprintf("a%05d", i), &tenantA, nil, 2, 1024, 10), vm(fmt.Sprintf("c%05d", i), &tenantC, nil, 1, 1024, 10))
	}
	w.set(ms...)
	// A thousand tenants' writes and deletes on a loaded machine (etcd: a round each
	// batch): more than ctxFor's 10 s.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first, err := persistence.Encode(hourVersion, hourRecord{Hour: day, Machines: []UsageLine{{MachineID: "s0500", Hours: 1, CoreHours: 99}}})
	if err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch)
	if err := createHour(b, ids[500], day, first); err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	// A run of the previous release (no index) wrote one of the thousand, and tenant
	// C's record with a part, and stopped before its marker.
	legacy := func(k []byte, v any) {
		val, err := persistence.Encode(1, v)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Commit(ctx, new(persistence.Batch).Put(k, val)); err != nil {
			t.Fatal(err)
		}
	}
	legacy(hourKey(ids[501], day), hourRecord{Hour: day, Machines: []UsageLine{{MachineID: "s0501", Hours: 1, CoreHours: 77}}})
	legacy(partKey(tenantC, day, "old-run", 1), hourRecord{Hour: day, Machines: []UsageLine{{MachineID: "c00001", Hours: 1, CoreHours: 6}}})
	legacy(hourKey(tenantC, day), hourRecord{Hour: day, Machines: []UsageLine{{MachineID: "c00000", Hours: 1, CoreHours: 5}}, Run: "old-run", Parts: 1})
	var wg sync.WaitGroup
	for _, u := range []*Usage{ua, ub} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := u.closeHour(ctx, day, false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, c := range []struct {
		tenant *string
		cores  int64
	}{{&ids[0], 1}, {&ids[499], 1}, {&ids[500], 99}, {&ids[501], 77}, {&ids[502], 1}, {&ids[small-1], 1}, {&tenantA, 2 * big}, {&tenantC, 11}} {
		r, err := ua.Tenant(ctx, c.tenant, day, day.Add(time.Hour))
		if err != nil || r.Totals.CoreHours != c.cores || r.Gaps != 0 {
			t.Fatalf("tenant %s: %+v, %d gaps, %v; want %d core-hours", *c.tenant, r.Totals, r.Gaps, err, c.cores)
		}
	}
	// Each tenant's, the winning run's of tenant A, the previous release's run of C.
	if n := count(t, store, "usage-index"); n != small+4 {
		t.Fatalf("%d index keys; want %d", n, small+4)
	}
	// The previous release's prune of this hour: the marker only.
	if err := store.Commit(ctx, new(persistence.Batch).Del(closedKey(day))); err != nil {
		t.Fatal(err)
	}
	// An hour before, closed by the previous release: its marker lists the tenants.
	prev := day.Add(-time.Hour)
	legacy(hourKey(tenantB, prev), hourRecord{Hour: prev, Machines: []UsageLine{{MachineID: "b1", Hours: 1}}})
	legacy(partKey(tenantB, prev, "failed-run", 1), hourRecord{Hour: prev, Machines: []UsageLine{{MachineID: "b2", Hours: 1}}})
	legacy(closedKey(prev), closedRecord{Hour: prev, Tenants: []string{tenantB}})
	if err := ua.Prune(ctx, day.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"usage-hour", "usage-index", "usage-closed"} {
		if n := count(t, store, kind); n != 0 {
			t.Errorf("%d %s keys left after the retention; want none", n, kind)
		}
	}
}
