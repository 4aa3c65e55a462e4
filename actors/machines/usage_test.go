package machines

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines/counters"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// checkCounters fails the test unless every tenant's counter is the sum of its index
// (a rebuild finds nothing to correct) and TenantUsage answers that sum.
func checkCounters(t *testing.T, ctx context.Context, s *testSystem, tenants ...string) {
	t.Helper()
	r, err := RebuildCounters(ctx, s.store)
	if err != nil || len(r.Corrected) > 0 {
		t.Fatalf("rebuilding the counters: %+v, %v; want none to correct", r, err)
	}
	for _, ten := range tenants {
		scanned, err := scanUsage(ctx, s.store, ten)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := s.Machines.TenantUsage(ctx, ten); err != nil || got != scanned {
			t.Fatalf("tenant %s: usage %+v, %v; want the index's sum %+v", ten, got, err, scanned)
		}
	}
}

// trusted runs the counters' job once, as its leader would (its loop runs only every
// counterCheck), and fails the test unless quota reads use the counters then.
func trusted(t *testing.T, ctx context.Context, s *testSystem) {
	t.Helper()
	if err := s.Machines.counters.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Machines.CountersTrusted(ctx); err != nil || !ok {
		t.Fatalf("counters trusted: %v, %v; want true", ok, err)
	}
}

// counterSystem is a system on a sim of machines demo machines, synced (they have no
// tenant), whose counters are trusted.
func counterSystem(t *testing.T, ctx context.Context, machines int, mutate ...func(*testOptions)) (*testSystem, []Machine) {
	t.Helper()
	s := newTestSystem(t, append([]func(*testOptions){func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 2, Machines: machines})
	}}, mutate...)...)
	if _, err := s.adopt(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != machines {
		t.Fatalf("got %d machines, %v; want %d", len(ms), err, machines)
	}
	trusted(t, ctx, s)
	return s, ms
}

// create makes a machine of tenant as a tenant's create does, and waits for its task.
func create(t *testing.T, ctx context.Context, s *testSystem, tenant string, cores int) Machine {
	t.Helper()
	inv, err := s.driver.Inventory(ctx)
	tpls := inv.Templates
	if err != nil || len(tpls) == 0 {
		t.Fatalf("templates %v, %v", tpls, err)
	}
	b := new(persistence.Batch)
	c, err := s.Machines.AddCreate(ctx, b, tenant, hypervisor.CreateSpec{Name: "vm", TemplateID: tpls[0].ID, CPUCores: cores,
		MemoryMB: 512, DiskGB: tpls[0].DiskGB}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	s.Machines.Created(c)
	if task, err := s.Tasks.Wait(ctx, c.Task.ID); err != nil || task.Status != tasks.TaskSucceeded {
		t.Fatalf("create: %+v, %v; want it to succeed", task, err)
	}
	m, err := s.Machines.Stored(ctx, c.Machine.ID)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Every write that changes what a tenant holds moves its counter in the same batch:
// creates, a resize, moves between tenants (and to none), a destroy; a write that
// changes neither sizes nor tenant (a reboot) leaves it as it was.
func TestUsageCountersFollowEveryWrite(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, adopted := counterSystem(t, ctx, 2)
	a, b := "A", "B"
	checkCounters(t, ctx, s, a, b)
	m1 := create(t, ctx, s, a, 1)
	m2 := create(t, ctx, s, a, 2)
	checkCounters(t, ctx, s, a, b)
	if u, _ := s.Machines.TenantUsage(ctx, a); u.Machines != 2 || u.CPUCores != 3 || u.DiskGB != m1.DiskGB+m2.DiskGB {
		t.Fatalf("tenant A holds %+v; want 2 machines, 3 cores, %d GB", u, m1.DiskGB+m2.DiskGB)
	}

	for _, to := range []*string{&a, &b, nil} {
		if _, err := s.Machines.Assign(ctx, adopted[0].ID, to); err != nil {
			t.Fatal(err)
		}
		checkCounters(t, ctx, s, a, b)
	}

	before, _ := s.store.Get(ctx, testUsageKey(a))
	runToEnd(t, ctx, s, m1.ID, powerOp(m1.Status))
	if after, _ := s.store.Get(ctx, testUsageKey(a)); !bytes.Equal(before, after) {
		t.Fatalf("a reboot rewrote the counter: %s, then %s", before, after)
	}

	runToEnd(t, ctx, s, m1.ID, Operation{Type: OpResize, Config: &hypervisor.ConfigChange{CPUCores: ptr(4), MemoryMB: ptr(1024)}, DiskGrowGB: 5})
	checkCounters(t, ctx, s, a, b)
	if u, _ := s.Machines.TenantUsage(ctx, a); u.CPUCores != 6 || u.MemoryMB != 1536 || u.DiskGB != m1.DiskGB+m2.DiskGB+5 {
		t.Fatalf("tenant A holds %+v after the resize; want 6 cores, 1536 MB, %d GB", u, m1.DiskGB+m2.DiskGB+5)
	}

	runToEnd(t, ctx, s, m2.ID, Operation{Type: OpDestroy})
	checkCounters(t, ctx, s, a, b)
	if u, _ := s.Machines.TenantUsage(ctx, a); u.Machines != 1 || u.CPUCores != 4 {
		t.Fatalf("tenant A holds %+v after the destroy; want 1 machine, 4 cores", u)
	}
}

func ptr(n int) *int { return &n }

// testUsageKey is a tenant's usage counter's key, which these tests read and write to
// see and stage what another member's writes do (actors/machines/counters owns it).
func testUsageKey(tenant string) []byte { return persistence.Key("vm-usage", tenant) }

// testCounter is a usage counter as stored (version 1).
type testCounter struct {
	counters.Usage
	Rev uint64 `json:"rev"`
}

// racingStore moves a tenant's counter (its revision only, so the sums stay exact)
// just before each of the first races batches that require it: what another member's
// write of the same tenant does between a read and a commit.
type racingStore struct {
	persistence.Store
	races atomic.Int32
}

func (r *racingStore) Commit(ctx context.Context, b *persistence.Batch) error {
	for _, c := range b.Conds {
		if bytes.HasPrefix(c.Key, persistence.Prefix("vm-usage")) && r.races.Add(-1) >= 0 {
			var cur testCounter
			val, err := r.Store.Get(ctx, c.Key)
			if err == nil {
				_, err = persistence.Decode(val, &cur)
			}
			if err != nil && !c.Absent {
				return err
			}
			cur.Rev += 1000
			moved, _ := persistence.Encode(1, cur)
			// The move requires what it read: a blind put could take back a write of
			// another machine that landed between (and lose its change of the sums).
			move := new(persistence.Batch).Put(c.Key, moved)
			if err == nil {
				move.Require(persistence.IfValue(c.Key, val))
			} else {
				move.Require(persistence.IfAbsent(c.Key))
			}
			if err := r.Store.Commit(ctx, move); err != nil && !persistence.IsConditionFailed(err) {
				return err
			}
		}
	}
	return r.Store.Commit(ctx, b)
}

// A write whose counter another write moved since it read it is refused, reads the
// counter again and lands: every destroy and resize of one tenant's machines, made at
// once, is counted exactly, and the retries happened. A create refused so is told
// apart from one refused for another of its conditions.
func TestCounterMovedMeanwhileIsRetried(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	racing := &racingStore{}
	s, _ := counterSystem(t, ctx, 0, func(o *testOptions) {
		o.Wrap = func(st persistence.Store) persistence.Store { racing.Store = st; return racing }
	})
	const n = 8
	made := make([]Machine, n)
	for i := range made {
		made[i] = create(t, ctx, s, "T", 1)
	}
	racing.races.Store(3)
	retried := s.Machines.CounterRetries()
	var wg sync.WaitGroup
	for i, m := range made {
		wg.Add(1)
		go func() {
			defer wg.Done()
			op := Operation{Type: OpDestroy}
			if i%2 == 0 {
				op = Operation{Type: OpResize, Config: &hypervisor.ConfigChange{CPUCores: ptr(3)}}
			}
			task, err := s.Machines.Start(ctx, m.ID, op, nil)
			if err == nil {
				var ended *tasks.Task
				if ended, err = s.Tasks.Wait(ctx, task.ID); err == nil && ended.Status != tasks.TaskSucceeded {
					err = fmt.Errorf("task %+v", ended)
				}
			}
			if err != nil {
				t.Errorf("machine %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	checkCounters(t, ctx, s, "T")
	if u, _ := s.Machines.TenantUsage(ctx, "T"); u.Machines != n/2 || u.CPUCores != 3*n/2 {
		t.Fatalf("tenant T holds %+v; want %d machines of 3 cores", u, n/2)
	}
	if got := s.Machines.CounterRetries() - retried; got < 3 {
		t.Fatalf("%d writes retried; want at least the 3 raced", got)
	}

	// A create: refused for its counter, then for another condition of its batch.
	for _, c := range []struct {
		race  int32
		other bool
		want  bool
	}{{1, false, true}, {0, true, false}} {
		racing.races.Store(c.race)
		b := new(persistence.Batch)
		cr, err := s.Machines.AddCreate(ctx, b, "T", hypervisor.CreateSpec{Name: "vm", TemplateID: "t", CPUCores: 1, MemoryMB: 512, DiskGB: 10}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.other {
			b.Require(persistence.IfAbsent(testUsageKey("T")))
		}
		if err := s.store.Commit(ctx, b); !persistence.IsConditionFailed(err) {
			t.Fatalf("commit: %v; want the condition failure", err)
		}
		if again, err := s.Machines.CreateRefused(ctx, cr); err != nil || again != c.want {
			t.Fatalf("CreateRefused = %v, %v; want %v", again, err, c.want)
		}
	}
	checkCounters(t, ctx, s, "T")
}

// While a member does not keep the counters, quota reads sum the index and the
// marker is dropped; once every member keeps them again, they are rebuilt (a counter
// gone wrong meanwhile is corrected) and trusted. So too after such a member came and
// went unseen by the job.
func TestUsageFallsBackUntilEveryMemberCounts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var all atomic.Bool
	var lacking atomic.Uint64
	all.Store(true)
	s, _ := counterSystem(t, ctx, 0, func(o *testOptions) {
		o.Maintained = func(string) (bool, uint64) { return all.Load(), lacking.Load() }
	})
	create(t, ctx, s, "T", 2)
	checkCounters(t, ctx, s, "T")

	// A member of an earlier release joins, and destroys what the counter still counts.
	lacking.Add(1)
	all.Store(false)
	wrong, _ := persistence.Encode(1, testCounter{Usage: counters.Usage{Machines: 7, CPUCores: 70}, Rev: 99})
	if err := s.store.Commit(ctx, new(persistence.Batch).Put(testUsageKey("T"), wrong)); err != nil {
		t.Fatal(err)
	}
	if u, err := s.Machines.TenantUsage(ctx, "T"); err != nil || u.Machines != 1 || u.CPUCores != 2 {
		t.Fatalf("usage %+v, %v while a member does not count; want the index's 1 machine, 2 cores", u, err)
	}
	if err := s.Machines.counters.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.store.Get(ctx, persistence.Key(persistence.KindMeta, "usage-counters")); err == nil {
		t.Fatal("the marker is still there while a member does not count")
	}

	// It leaves: the counters are rebuilt from the index, and read again.
	all.Store(true)
	trusted(t, ctx, s)
	checkCounters(t, ctx, s, "T")

	// Another comes and goes between two runs of the job, leaving a wrong counter:
	// this member saw it arrive, so it trusts the counters only once they are rebuilt.
	lacking.Add(1)
	if err := s.store.Commit(ctx, new(persistence.Batch).Put(testUsageKey("T"), wrong)); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Machines.CountersTrusted(ctx); err != nil || ok {
		t.Fatalf("counters trusted: %v, %v after a member that does not count came and went; want false", ok, err)
	}
	if u, err := s.Machines.TenantUsage(ctx, "T"); err != nil || u.Machines != 1 {
		t.Fatalf("usage %+v, %v; want the index's 1 machine", u, err)
	}
	trusted(t, ctx, s)
	checkCounters(t, ctx, s, "T")
}

// BenchmarkTenantUsage reads a tenant's usage from its counter and by the scan of its
// index that the counter replaces, at 10 and 1000 machines.
func BenchmarkTenantUsage(b *testing.B) {
	for _, n := range []int{10, 1000} {
		s := newTestSystem(b)
		ctx := context.Background()
		tenant := "T"
		batch := new(persistence.Batch)
		for range n {
			rec := &record{Machine: Machine{ID: persistence.NewID(), TenantID: &tenant, CPUCores: 2, MemoryMB: 1024, DiskGB: 20}}
			val, err := persistence.Encode(recordVersion, rec)
			if err != nil {
				b.Fatal(err)
			}
			batch.Put(machineKey(rec.ID), val)
			putTenantIndex(batch, nil, rec)
		}
		if err := s.store.Commit(ctx, batch); err != nil {
			b.Fatal(err)
		}
		if _, err := RebuildCounters(ctx, s.store); err != nil {
			b.Fatal(err)
		}
		if err := s.Machines.counters.Check(ctx); err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			read func() (counters.Usage, error)
		}{
			{"counter", func() (counters.Usage, error) { return s.Machines.TenantUsage(ctx, tenant) }},
			{"scan", func() (counters.Usage, error) { return scanUsage(ctx, s.store, tenant) }},
		} {
			b.Run(fmt.Sprintf("machines=%d/%s", n, c.name), func(b *testing.B) {
				for b.Loop() {
					if u, err := c.read(); err != nil || u.Machines != n {
						b.Fatalf("usage %+v, %v; want %d machines", u, err, n)
					}
				}
			})
		}
	}
}
