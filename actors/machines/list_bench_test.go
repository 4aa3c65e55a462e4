package machines

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/vmplane/vmplane/persistence"
)

// The list reads of a large fleet (issue 33): a tenant's page and the operator's list
// filtered by node or by state, over VMPLANE_BENCH_MACHINES machine records (default
// 100,000; the figure is 1,000,000: a few minutes to write) of 10,000 tenants
// on three nodes, 14 % of them stopped, written straight to the store as adoptions
// and assignments write them. Each benchmark reads pages of 50 from a random place.
//
//	VMPLANE_BENCH_MACHINES=1000000 go test -run '^$' -bench MachineLists -benchtime 2000x ./actors/machines
func BenchmarkMachineLists(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("VMPLANE_BENCH_MACHINES")); err == nil && v > 0 {
		n = v
	}
	const tenants, limit = 10_000, 50
	s := newTestSystem(b)
	ctx := context.Background()
	start := time.Now()
	ids := fillMachines(b, s.store, n, tenants)
	b.Logf("%d machines written in %v", n, time.Since(start).Round(time.Millisecond))

	tenantPages := func(b *testing.B) {
		p := newP99(b)
		for i := range b.N {
			tenant := fmt.Sprintf("tenant-%05d", i*7919%tenants)
			// The store's read, as a page past the first or a first page the list
			// cache does not hold.
			p.time(func() {
				if _, _, err := s.Machines.listTenant(ctx, tenant, "", limit); err != nil {
					b.Fatal(err)
				}
			})
		}
		p.report()
	}
	// Right after the fleet was written, while the store compacts it; then once its
	// compactions are done, as a server's store is between bursts of writes.
	b.Run("tenant-page", tenantPages)
	b.Run("tenant-page-settled", func(b *testing.B) {
		waitSettled(b, s.store)
		tenantPages(b)
	})
	// The node/state index is built (its job's Check finds the keys fillMachines wrote
	// and trusts them); each filter is read through it and by the scan it replaces.
	if err := s.Machines.nodeState.Check(ctx); err != nil {
		b.Fatal(err)
	}
	for _, f := range []struct {
		name  string
		where Where
	}{
		{"operator-by-node", Where{Node: "pve2"}},
		{"operator-by-state", Where{Status: "stopped"}},
		// A filter no record matches: the scan reads every record (run it with
		// -benchtime 3x), the index none.
		{"operator-no-match", Where{Node: "pve9"}},
	} {
		for _, read := range []struct {
			name string
			list func(cursor string) ([]Machine, string, error)
		}{
			{"index", func(cursor string) ([]Machine, string, error) {
				return s.Machines.ListWhere(ctx, cursor, limit, f.where)
			}},
			{"scan", func(cursor string) ([]Machine, string, error) {
				return s.Machines.List(ctx, cursor, limit, f.where.Match)
			}},
		} {
			b.Run(f.name+"/"+read.name, func(b *testing.B) {
				p := newP99(b)
				for i := range b.N {
					cursor := ids[i*7919%len(ids)]
					p.time(func() {
						if _, _, err := read.list(cursor); err != nil {
							b.Fatal(err)
						}
					})
				}
				p.report()
			})
		}
	}
}

// waitSettled waits until the store has had no compaction to do for two seconds
// (persistence.Stats.CompactionScore under 1), at most ten minutes.
func waitSettled(b *testing.B, store persistence.Store) {
	b.Helper()
	start, quiet := time.Now(), time.Time{}
	for time.Since(start) < 10*time.Minute {
		if store.Stats().CompactionScore >= 1 {
			quiet = time.Time{}
		} else if quiet.IsZero() {
			quiet = time.Now()
		} else if time.Since(quiet) >= 2*time.Second {
			b.Logf("store settled after %v", time.Since(start).Round(100*time.Millisecond))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.Fatal("the store still compacts after ten minutes")
}

// p99 keeps each iteration's time and reports their 99th percentile.
type p99 struct {
	b     *testing.B
	times []time.Duration
}

func newP99(b *testing.B) *p99 { return &p99{b: b, times: make([]time.Duration, 0, b.N)} }

func (p *p99) time(fn func()) {
	t := time.Now()
	fn()
	p.times = append(p.times, time.Since(t))
}

// report reports the times' mean and 99th percentile.
func (p *p99) report() {
	var sum time.Duration
	for _, t := range p.times {
		sum += t
	}
	slices.Sort(p.times)
	p.b.ReportMetric(float64(sum.Microseconds())/float64(len(p.times))/1000, "mean-ms")
	p.b.ReportMetric(float64(p.times[len(p.times)*99/100].Microseconds())/1000, "p99-ms")
}

// fillMachines writes n machine records and their tenant and vmid index keys, and
// returns their ids.
func fillMachines(b *testing.B, store persistence.Store, n, tenants int) []string {
	b.Helper()
	ctx := context.Background()
	ids := make([]string, 0, n)
	now := time.Now().UTC()
	batch := new(persistence.Batch)
	for i := range n {
		tenant := fmt.Sprintf("tenant-%05d", i%tenants)
		rec := record{Machine: Machine{ID: persistence.NewID(), VMID: 100 + i, Name: fmt.Sprintf("m%d", i),
			TenantID: &tenant, Node: fmt.Sprintf("pve%d", i%3+1), Status: "running",
			CPUCores: 2, MemoryMB: 2048, DiskGB: 40, TemplateID: "tpl-debian-12", CreatedAt: now, UpdatedAt: now}}
		if i%100 < 14 {
			rec.Status = "stopped"
		}
		val, err := persistence.Encode(recordVersion, &rec)
		if err != nil {
			b.Fatal(err)
		}
		batch.Put(machineKey(rec.ID), val).Put(vmidKey(rec.Location, rec.VMID), []byte(rec.ID)).Put(tenantKey(tenant, rec.ID), tenantIndexValue(&rec))
		putNodeState(batch, nil, &rec)
		ids = append(ids, rec.ID)
		if len(ids)%1000 == 0 || i == n-1 {
			if err := store.Commit(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = new(persistence.Batch)
		}
	}
	return ids
}
