package app

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// countingOn reports whether m's quota reads use the usage counters (built from the
// machines while every member keeps them).
func countingOn(m *testServer) bool {
	ok, err := m.app.sys.Machines.CountersTrusted(context.Background())
	return err == nil && ok
}

// counterRetries is how many writes the members made again because another write
// moved a tenant's usage counter between their read and their commit.
func counterRetries(ms []*testServer) uint64 {
	var n uint64
	for _, m := range ms {
		n += m.app.sys.Machines.CounterRetries()
	}
	return n
}

// On etcd with three members, a tenant's counter stays exact through creates and
// through deletes and resizes of its machines made at once, whose entities are spread
// over the members: writes that raced on the counter were retried, and every one
// landed.
func TestClusterUsageCountersExactUnderConcurrentWrites(t *testing.T) {
	// Not parallel: a burst of concurrent writes through three members, each
	// answered within the edge's 15 s; beside the other cluster tests on a busy
	// two-core machine some were seen to time out (504).
	const n = 12
	ms, _ := startCluster(t, 3, func(c *Config) { c.SimMachines = n })
	admin := ms[0].adminToken()
	ms[0].sync(admin)
	testwait.Eventually(t, "the usage counters trusted", func() bool { return countingOn(ms[0]) })
	ten := ms[0].tenant(admin, "Spread", map[string]int{"machines": 100, "cpu_cores": 1000, "memory_mb": 1 << 24, "disk_gb": 1 << 20})
	tpl := firstTemplate(ms[0], admin)

	// The adopted machines, each given to the tenant through another member, which
	// activates its entity there.
	adopted := ms[0].machines(admin)
	if len(adopted) != n {
		t.Fatalf("got %d machines; want %d", len(adopted), n)
	}
	for i, vm := range adopted {
		expect(t, ms[i%3].do(req{method: "PATCH", path: "/api/resources/machines/" + vm.ID, token: admin, body: map[string]any{"tenant_id": ten.ID}}), 200, "")
	}
	made := createsAtOnce(t, ms, ten.Token, "made", tinyMachine("", tpl), 6, 6)
	for i, vm := range made {
		ms[i%3].waitTask(admin, *vm.TaskID)
	}
	countersExact(t, ms[1].app.store)

	// Every adopted machine at once: half deleted, half resized, each through
	// another member than the one holding it.
	before := counterRetries(ms)
	want := usageOf(ms[0], ten.Token)
	want.Machines -= n / 2
	var wg sync.WaitGroup
	taskIDs := make([]string, n)
	for i, vm := range adopted {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := ms[(i+1)%3]
			r := req{method: "DELETE", path: "/api/resources/machines/" + vm.ID, token: ten.Token}
			if i%2 == 1 {
				r = req{method: "PATCH", path: "/api/client/machines/" + vm.ID + "/resources", token: ten.Token,
					body: map[string]any{"cpu_cores": vm.CPUCores + 1, "memory_mb": vm.MemoryMB + 128}}
			}
			res := doWith(t, m.client, m.base, r)
			var body struct{ Task tasks.Task }
			if res.Status != 202 || json.Unmarshal(res.Body, &body) != nil {
				t.Errorf("%s %s: %d %s; want 202", r.method, r.path, res.Status, res.Body)
				return
			}
			taskIDs[i] = body.Task.ID
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for i, vm := range adopted {
		if task := ms[i%3].waitTask(admin, taskIDs[i]); task.Status != tasks.TaskSucceeded {
			t.Fatalf("machine %s: task %+v; want succeeded", vm.ID, task)
		}
		if i%2 == 0 {
			want.CPUCores -= vm.CPUCores
			want.MemoryMB -= vm.MemoryMB
			want.DiskGB -= vm.DiskGB
		} else {
			want.CPUCores++
			want.MemoryMB += 128
		}
	}
	countersExact(t, ms[2].app.store)
	for _, m := range ms {
		if got := usageOf(m, ten.Token); got != want {
			t.Fatalf("usage %+v on %s; want %+v", got, m.cfg.NodeName, want)
		}
	}
	per := make([]uint64, len(ms))
	for i, m := range ms {
		per[i] = m.app.sys.Machines.CounterRetries()
	}
	retried := counterRetries(ms) - before
	t.Logf("counter writes retried after another write moved the counter: %d (by member, since the start: %v)", retried, per)
	if retried == 0 {
		t.Fatal("no write was retried: the writes did not race on the counter")
	}
}

// A member record without maintains (a member of the release before the counters)
// makes every member read usage by the scan of the tenant's machines, and drops the
// marker: a machine that member's writes recorded without moving the counter (seeded
// here as such a write leaves it) counts against the quota all the same. Once it
// leaves, the counters are built again from the machines, exact, and trusted.
func TestClusterUsageFallsBackWhileAMemberDoesNotCount(t *testing.T) {
	t.Parallel()
	ms, _ := startCluster(t, 3)
	admin := ms[0].adminToken()
	ms[0].sync(admin)
	st := ms[0].app.member.store
	tpl := firstTemplate(ms[0], admin)
	ten := ms[0].tenant(admin, "Mixed", map[string]int{"machines": 3, "cpu_cores": 100, "memory_mb": 1 << 20, "disk_gb": 10000})
	for i := range 2 {
		ms[i].provision(ten.Token, tinyMachine(fmt.Sprintf("m-%d", i), tpl))
	}
	for _, m := range ms {
		testwait.Eventually(t, "the usage counters trusted on "+m.cfg.NodeName, func() bool { return countingOn(m) })
	}
	countersExact(t, st)

	// The old member joins, and records a machine without moving the counter.
	ctx := context.Background()
	cli := st.Client()
	lease, err := cli.Grant(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := json.Marshal(map[string]any{"name": "old", "addr": "127.0.0.1:1", "lease": int64(lease.ID), "started": time.Now().UTC()})
	if _, err := cli.Put(ctx, st.Prefix()+"members/old", string(rec), clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		testwait.Eventually(t, m.cfg.NodeName+" scanning", func() bool { return !countingOn(m) })
	}
	b := new(persistence.Batch)
	if err := machines.Seed(b, machines.Machine{ID: persistence.NewID(), Name: "by-old", TenantID: &ten.ID, Status: machines.StatusRunning,
		CPUCores: 1, MemoryMB: 128, DiskGB: 10, CreatedAt: time.Now().UTC(), UpdatedAt: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if u := usageOf(m, ten.Token); u.Machines != 3 {
			t.Fatalf("usage %+v on %s while a member does not count; want the 3 machines the tenant has", u, m.cfg.NodeName)
		}
	}
	expect(t, ms[2].do(req{method: "POST", path: "/api/client/machines", token: ten.Token, body: tinyMachine("over", tpl)}), 409, "quota_exceeded")

	// It leaves: the counters are built again and trusted, the seeded machine counted.
	if _, err := cli.Revoke(ctx, lease.ID); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		testwait.Eventually(t, "the usage counters trusted again on "+m.cfg.NodeName, func() bool { return countingOn(m) })
	}
	countersExact(t, st)
	for _, m := range ms {
		if u := usageOf(m, ten.Token); u.Machines != 3 {
			t.Fatalf("usage %+v on %s; want 3 machines", u, m.cfg.NodeName)
		}
	}
	expect(t, ms[1].do(req{method: "POST", path: "/api/client/machines", token: ten.Token, body: tinyMachine("over", tpl)}), 409, "quota_exceeded")
}
