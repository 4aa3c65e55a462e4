package monitoring

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

func TestHistoryBackfillAndSample(t *testing.T) {
	now := time.Now().UTC()
	d := sim.New(sim.Config{Seed: 3, Nodes: 2, Machines: 5, OpDelay: time.Millisecond, Now: func() time.Time { return now }})
	s := newTestSystem(t, func(o *testOptions) { o.Driver = d })
	ctx := context.Background()

	n, err := s.History.Backfill(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	// 1440 six-hour buckets are 360 days, the first maybe partial; today is the sampler's.
	if n < 359 || n > 361 {
		t.Fatalf("got %d backfilled days; want about 360", n)
	}
	if again, err := s.History.Backfill(ctx, now); err != nil || again != 0 {
		t.Fatalf("got %d days, %v on a second backfill; want 0: the days exist", again, err)
	}
	yesterday := dayOf(now).AddDate(0, 0, -1)
	days, err := s.History.Days(context.Background(), yesterday, yesterday)
	if err != nil || len(days) != 1 {
		t.Fatalf("got %v, %v; want yesterday's record", days, err)
	}
	y := days[0]
	if y.Source != "backfill" || y.CPU == nil || y.Memory == nil || y.Disk != nil || y.CPU.Samples != 4 {
		t.Fatalf("got %+v; want a backfilled day of four buckets with cpu and memory, no disk", y)
	}
	// The same day from the driver's graphs, summed by Inventory.Usage: the same average.
	if _, err := s.Inventory.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	g, err := s.Inventory.Usage(ctx, hypervisor.TimeframeYear)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	var k int
	for _, p := range g.Points {
		if dayOf(p.Time).Equal(yesterday) && p.CPU != nil {
			sum += *p.CPU * *p.CPUCores
			k++
		}
	}
	if k != 4 || math.Abs(sum/4-y.CPU.Avg) > 1e-6 {
		t.Fatalf("got cpu avg %v over %d buckets from Inventory.Usage; want %v", sum/float64(k), k, y.CPU.Avg)
	}
	if y.CPU.Capacity != 2*float64(sim.DefaultNodeCores) {
		t.Fatalf("got cpu capacity %v; want %d cores", y.CPU.Capacity, 2*sim.DefaultNodeCores)
	}

	// Two samples today fold into one record.
	for i := 0; i < 2; i++ {
		if err := s.History.Sample(ctx, now); err != nil {
			t.Fatal(err)
		}
	}
	days, err = s.History.Days(context.Background(), now, now)
	if err != nil || len(days) != 1 {
		t.Fatalf("got %v, %v; want today's record", days, err)
	}
	td := days[0]
	if td.Source != "sample" || td.CPU == nil || td.CPU.Samples != 2 || td.Disk == nil || td.Disk.Avg <= 0 || td.Disk.Max < td.Disk.Avg {
		t.Fatalf("got %+v; want a sampled day of 2 samples with disk", td)
	}
	inv, err := d.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var disk, diskCap float64
	for _, n := range inv.Nodes {
		disk += float64(n.DiskBytes)
		diskCap += float64(n.DiskGB) * (1 << 30)
	}
	if td.Disk.Avg != disk || td.Disk.Capacity != diskCap {
		t.Fatalf("got disk %v of %v; want %v of %v bytes", td.Disk.Avg, td.Disk.Capacity, disk, diskCap)
	}

	f, err := s.History.Forecast(ctx, 30, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Resources) != 3 {
		t.Fatalf("got %d resources; want cpu, memory, disk", len(f.Resources))
	}
	for _, r := range f.Resources {
		want := ForecastHistoryDays
		if r.Resource == ResourceDisk {
			want = 1 // the graphs have no disk space: only today's samples
		}
		if len(r.Points) != want || r.Points[len(r.Points)-1].Date != dayOf(now).Format(time.DateOnly) || r.Capacity <= 0 {
			t.Fatalf("%s: got %d points ending %v, capacity %v; want %d ending today", r.Resource, len(r.Points), r.Points, r.Capacity, want)
		}
	}
}

func TestForecastFromStoredHistory(t *testing.T) {
	s := newTestSystem(t)
	now := time.Date(2026, 5, 20, 15, 0, 0, 0, time.UTC)
	b := new(persistence.Batch)
	// 120 days of memory growing 1 GiB a day from 10 GiB, capacity 200 GiB; cpu flat.
	const gib = 1 << 30
	for i := 0; i < 120; i++ {
		date := now.AddDate(0, 0, i-119).Format(time.DateOnly)
		used := float64(10+i) * gib
		day := UsageDay{Date: date, Source: "sample",
			CPU:    &ResourceDay{Avg: 8, Max: 9, Capacity: 64, Samples: 24},
			Memory: &ResourceDay{Avg: used, Max: used, Capacity: 200 * gib, Samples: 24}}
		if err := putUsageDay(b, day, now); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.store.Commit(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	f, err := s.History.Forecast(context.Background(), 90, now)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ResourceForecast{}
	for _, r := range f.Resources {
		byName[r.Resource] = r
	}
	mem := byName[ResourceMemory]
	// Today 129 GiB, 71 GiB to go at 1 GiB a day.
	if len(mem.Points) != 90 || math.Abs(mem.TrendPerDay-gib) > 1 || mem.Used != 129*gib || mem.ExhaustedAt == nil ||
		*mem.ExhaustedAt != now.AddDate(0, 0, 71).Format(time.DateOnly) || mem.Unit != "bytes" {
		t.Fatalf("got memory %+v; want 90 points, 1 GiB a day, exhausted on %s", mem, now.AddDate(0, 0, 71).Format(time.DateOnly))
	}
	if cpu := byName[ResourceCPU]; cpu.ExhaustedAt != nil || cpu.TrendPerDay != 0 || cpu.Used != 8 || cpu.Capacity != 64 {
		t.Fatalf("got cpu %+v; want flat at 8 of 64 cores, never exhausted", cpu)
	}
	if disk := byName[ResourceDisk]; len(disk.Points) != 0 || disk.ExhaustedAt != nil {
		t.Fatalf("got disk %+v; want no history and no date", disk)
	}
	if _, err := s.History.Forecast(context.Background(), 0, now); err == nil {
		t.Fatal("got no error for horizon 0; want invalid")
	}
}

// TestHistoryBackfillWithNodeDown: a node that is offline at start is left out of the
// backfill, which still writes the past days from the nodes that answer; before, one
// node down cost the whole history.
func TestHistoryBackfillWithNodeDown(t *testing.T) {
	now := time.Now().UTC()
	d := sim.New(sim.Config{Seed: 3, Nodes: 3, Machines: 5, OpDelay: time.Millisecond, Now: func() time.Time { return now }})
	ctx := context.Background()
	inv, err := d.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// One node offline, as the inventory says, and one that the inventory shows online
	// but whose graphs cannot be read (Proxmox answers 595 for a node it lost).
	if err := d.SetNodeStatus(inv.Nodes[1].ID, hypervisor.NodeOffline); err != nil {
		t.Fatal(err)
	}
	s := newTestSystem(t, func(o *testOptions) { o.Driver = unreadableNode{Driver: d, node: inv.Nodes[2].ID} })
	n, err := s.History.Backfill(ctx, now)
	if err != nil || n < 359 || n > 361 {
		t.Fatalf("got %d backfilled days, %v with one node offline; want about 360 from the other nodes", n, err)
	}
	yesterday := dayOf(now).AddDate(0, 0, -1)
	days, err := s.History.Days(context.Background(), yesterday, yesterday)
	if err != nil || len(days) != 1 || days[0].CPU == nil || days[0].Memory == nil {
		t.Fatalf("got %+v, %v; want yesterday's record with cpu and memory", days, err)
	}
}

// unreadableNode is the sim driver with one node whose usage graphs cannot be read.
type unreadableNode struct {
	*sim.Driver
	node string
}

func (u unreadableNode) Usage(ctx context.Context, q hypervisor.UsageQuery) (hypervisor.UsageGraph, error) {
	if q.Scope == hypervisor.ScopeNode && q.Ref.Node == u.node {
		return hypervisor.UsageGraph{}, hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s does not answer", u.node)
	}
	return u.Driver.Usage(ctx, q)
}
