package sim

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
)

// usage reads a graph or fails the test.
func usage(t *testing.T, d *Driver, q hypervisor.UsageQuery) hypervisor.UsageGraph {
	t.Helper()
	g, err := d.Usage(bg, q)
	if err != nil {
		t.Fatalf("Usage(%+v): %v", q, err)
	}
	return g
}

// oldMachine adds a machine that has run since long before every graph starts.
func oldMachine(t *testing.T, d *Driver, hm hypervisor.Machine) hypervisor.Machine {
	t.Helper()
	if hm.State == "" {
		hm.State = hypervisor.StateRunning
	}
	m, err := d.AddMachine(hm, t0.Add(-400*24*time.Hour))
	if err != nil {
		t.Fatalf("AddMachine: %v", err)
	}
	return m
}

// fields lists a point's values in a fixed order, nil for gaps.
func fields(p hypervisor.UsagePoint) []*float64 {
	return []*float64{p.CPU, p.CPUCores, p.MemBytes, p.MemTotalBytes, p.NetInBps, p.NetOutBps, p.DiskReadBps, p.DiskWriteBps}
}

var fieldNames = []string{"cpu", "cpu_cores", "mem_bytes", "mem_total_bytes", "net_in_bps", "net_out_bps", "disk_read_bps", "disk_write_bps"}

// near compares floats that went through different but equivalent sums.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func TestUsageResolutions(t *testing.T) {
	d, clk := newTest(t, Config{})
	m := oldMachine(t, d, hypervisor.Machine{})
	want := map[hypervisor.Timeframe]struct {
		step   time.Duration
		points int
	}{
		hypervisor.TimeframeHour:  {time.Minute, 60},
		hypervisor.TimeframeDay:   {time.Minute, 1440},
		hypervisor.TimeframeWeek:  {30 * time.Minute, 336},
		hypervisor.TimeframeMonth: {30 * time.Minute, 1440},
		hypervisor.TimeframeYear:  {6 * time.Hour, 1440},
	}
	explicitEnd := time.Date(2025, 2, 1, 17, 45, 0, 0, time.UTC) // a bucket boundary for some steps
	for _, tf := range hypervisor.Timeframes {
		for _, end := range []time.Time{{}, explicitEnd} {
			g := usage(t, d, hypervisor.UsageQuery{Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: tf, End: end})
			w := want[tf]
			if g.Timeframe != tf || g.ResolutionSeconds != int(w.step/time.Second) || len(g.Points) != w.points {
				t.Errorf("%s: got timeframe %s, resolution %d s, %d points; want %s, %d s, %d", tf, g.Timeframe, g.ResolutionSeconds, len(g.Points), tf, int(w.step/time.Second), w.points)
				continue
			}
			if end.IsZero() {
				end = clk.Now()
			}
			last := g.Points[len(g.Points)-1].Time
			if last.After(end) || !last.Add(w.step).After(end) {
				t.Errorf("%s end %v: got last bucket at %v; want the bucket containing the end", tf, end, last)
			}
			for i, p := range g.Points {
				if p.Time.Unix()%int64(w.step/time.Second) != 0 || p.Time.Location() != time.UTC {
					t.Errorf("%s point %d: got time %v; want UTC, aligned to %v", tf, i, p.Time, w.step)
					break
				}
				if i > 0 && p.Time.Sub(g.Points[i-1].Time) != w.step {
					t.Errorf("%s point %d: got spacing %v; want %v", tf, i, p.Time.Sub(g.Points[i-1].Time), w.step)
					break
				}
				for j, v := range fields(p) {
					if v == nil {
						t.Errorf("%s point %d: got %s nil; want data (the machine is 400 days old)", tf, i, fieldNames[j])
					}
				}
			}
		}
	}
}

// byTime indexes a graph's points by bucket start.
func byTime(g hypervisor.UsageGraph) map[int64]hypervisor.UsagePoint {
	out := make(map[int64]hypervisor.UsagePoint, len(g.Points))
	for _, p := range g.Points {
		out[p.Time.Unix()] = p
	}
	return out
}

// wantSameAt checks that two graphs with the same step agree wherever both have a bucket.
func wantSameAt(t *testing.T, a, b hypervisor.UsageGraph) int {
	t.Helper()
	bi := byTime(b)
	n := 0
	for _, p := range a.Points {
		q, ok := bi[p.Time.Unix()]
		if !ok {
			continue
		}
		n++
		pa, pb := fields(p), fields(q)
		for j := range pa {
			if (pa[j] == nil) != (pb[j] == nil) || (pa[j] != nil && !near(*pa[j], *pb[j])) {
				t.Fatalf("%s vs %s at %v: %s differs", a.Timeframe, b.Timeframe, p.Time, fieldNames[j])
			}
		}
	}
	return n
}

// wantMeanOf checks that each coarse bucket fully covered by the fine graph is the mean
// of the fine buckets inside it.
func wantMeanOf(t *testing.T, coarse, fine hypervisor.UsageGraph) int {
	t.Helper()
	fi := byTime(fine)
	ratio := int64(coarse.ResolutionSeconds / fine.ResolutionSeconds)
	n := 0
	for _, p := range coarse.Points {
		sum := make([]float64, 8)
		complete := true
		for k := range ratio {
			q, ok := fi[p.Time.Unix()+k*int64(fine.ResolutionSeconds)]
			if !ok || q.CPU == nil {
				complete = false
				break
			}
			for j, v := range fields(q) {
				sum[j] += *v
			}
		}
		if !complete || p.CPU == nil {
			continue
		}
		n++
		for j, v := range fields(p) {
			if want := sum[j] / float64(ratio); !near(*v, want) {
				t.Fatalf("%s bucket %v: got %s %v; want %v, the mean of its %d %s buckets", coarse.Timeframe, p.Time, fieldNames[j], *v, want, ratio, fine.Timeframe)
			}
		}
	}
	return n
}

func TestUsageTimeframesAgree(t *testing.T) {
	d, clk := newTest(t, Config{Seed: 3})
	m := oldMachine(t, d, hypervisor.Machine{CPUCores: 4, MemoryMB: 8192})
	// A crash and a restart a few hours ago put a state change inside buckets of every
	// size, so the minute-by-minute path is checked as well as the closed form.
	clk.Set(t0.Add(-3*time.Hour - 17*time.Minute - 20*time.Second))
	if err := d.CrashMachine(m.VMID); err != nil {
		t.Fatal(err)
	}
	clk.Set(t0.Add(-2*time.Hour - 41*time.Minute))
	if err := d.Power(bg, hypervisor.Ref{VMID: m.VMID}, hypervisor.ActionStart); err != nil {
		t.Fatal(err)
	}
	clk.Set(t0)

	g := map[hypervisor.Timeframe]hypervisor.UsageGraph{}
	for _, tf := range hypervisor.Timeframes {
		g[tf] = usage(t, d, hypervisor.UsageQuery{Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: tf})
	}
	if n := wantSameAt(t, g["hour"], g["day"]); n != 60 {
		t.Errorf("hour vs day: compared %d buckets; want 60", n)
	}
	if n := wantSameAt(t, g["week"], g["month"]); n != 336 {
		t.Errorf("week vs month: compared %d buckets; want 336", n)
	}
	if n := wantMeanOf(t, g["week"], g["day"]); n < 46 {
		t.Errorf("week vs day: compared %d buckets; want the 46+ fully covered", n)
	}
	// The year's 6 h buckets against the month's 30 min ones, over a month of overlap.
	if n := wantMeanOf(t, g["year"], g["month"]); n < 110 {
		t.Errorf("year vs month: compared %d buckets; want 110+", n)
	}

	// While it was crashed the machine was quiet: zero cpu and traffic, no memory.
	crashed := byTime(g["day"])[t0.Add(-3*time.Hour).Truncate(time.Minute).Unix()]
	for j, v := range fields(crashed) {
		if j == 1 || j == 3 { // cores and memory total are configuration
			continue
		}
		if v == nil || *v != 0 {
			t.Errorf("minute while crashed: got %s %v; want 0", fieldNames[j], v)
		}
	}
}

func TestUsageGaps(t *testing.T) {
	d, _ := newTest(t, Config{})
	created := t0.Add(-30*time.Minute - 30*time.Second)
	m, err := d.AddMachine(hypervisor.Machine{State: hypervisor.StateRunning}, created)
	if err != nil {
		t.Fatal(err)
	}
	g := usage(t, d, hypervisor.UsageQuery{Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: hypervisor.TimeframeHour})
	gaps := 0
	for _, p := range g.Points {
		end := p.Time.Add(time.Minute)
		gap := !end.After(created)
		for j, v := range fields(p) {
			if gap != (v == nil) {
				t.Errorf("bucket %v (created %v): got %s nil=%v; want nil=%v", p.Time, created, fieldNames[j], v == nil, gap)
			}
		}
		if gap {
			gaps++
		}
	}
	if gaps != 28 {
		t.Errorf("gaps before creation: got %d; want 28 (09:31..09:58 end before 09:59:45)", gaps)
	}
	// Buckets after now are gaps too.
	g = usage(t, d, hypervisor.UsageQuery{Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: hypervisor.TimeframeHour, End: t0.Add(20 * time.Minute)})
	future := 0
	for _, p := range g.Points {
		if p.Time.After(t0) {
			future++
			if p.CPU != nil {
				t.Errorf("future bucket %v: got cpu %v; want nil", p.Time, *p.CPU)
			}
		}
	}
	if future != 20 {
		t.Errorf("future buckets: got %d; want 20", future)
	}
}

func TestUsageNodeIsSumOfMachines(t *testing.T) {
	d, _ := newTest(t, Config{Seed: 11})
	var ms []hypervisor.Machine
	for i, spec := range []hypervisor.Machine{
		{Node: "pve2", CPUCores: 4, MemoryMB: 4096},
		{Node: "pve2", CPUCores: 8, MemoryMB: 16384},
		{Node: "pve2", CPUCores: 2, MemoryMB: 2048, State: hypervisor.StateStopped},
		{Node: "pve1", CPUCores: 16, MemoryMB: 65536}, // another node: must not count
	} {
		m := oldMachine(t, d, spec)
		if i < 3 {
			ms = append(ms, m)
		}
	}
	// One machine created mid-graph counts only from its creation.
	young, _ := d.AddMachine(hypervisor.Machine{Node: "pve2", CPUCores: 2, MemoryMB: 2048, State: hypervisor.StateRunning}, t0.Add(-20*time.Minute))
	ms = append(ms, young)

	for _, tf := range []hypervisor.Timeframe{hypervisor.TimeframeHour, hypervisor.TimeframeWeek} {
		node := usage(t, d, hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: "pve2"}, Timeframe: tf})
		var parts []hypervisor.UsageGraph
		for _, m := range ms {
			parts = append(parts, usage(t, d, hypervisor.UsageQuery{Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: tf}))
		}
		for i, p := range node.Points {
			usedCores := nodeOverheadCPU * 32
			want := []float64{0, 32, nodeOverheadMemBytes, 128 << 30, nodeOverheadNetBps, nodeOverheadNetBps, nodeOverheadDiskBps, nodeOverheadDiskBps}
			for _, g := range parts {
				q := g.Points[i]
				if q.CPU == nil {
					continue
				}
				usedCores += *q.CPU * *q.CPUCores
				want[2] += *q.MemBytes
				want[4] += *q.NetInBps
				want[5] += *q.NetOutBps
				want[6] += *q.DiskReadBps
				want[7] += *q.DiskWriteBps
			}
			want[0] = usedCores / 32
			for j, v := range fields(p) {
				if v == nil || !near(*v, want[j]) {
					t.Fatalf("%s node bucket %v: got %s %v; want %v (sum of machines + overhead)", tf, p.Time, fieldNames[j], v, want[j])
				}
			}
		}
	}
}

func TestUsageStoppedAndSuspended(t *testing.T) {
	d, _ := newTest(t, Config{})
	stopped := oldMachine(t, d, hypervisor.Machine{State: hypervisor.StateStopped})
	suspended := oldMachine(t, d, hypervisor.Machine{State: hypervisor.StateSuspended})
	for _, c := range []struct {
		vmid    int
		wantMem bool
	}{{stopped.VMID, false}, {suspended.VMID, true}} {
		g := usage(t, d, hypervisor.UsageQuery{Ref: hypervisor.Ref{VMID: c.vmid}, Timeframe: hypervisor.TimeframeDay})
		for _, p := range g.Points {
			if p.CPU == nil || *p.CPU != 0 || *p.NetInBps != 0 || *p.NetOutBps != 0 || *p.DiskWriteBps != 0 {
				t.Fatalf("machine %d at %v: got cpu %v net in %v; want 0 (not running)", c.vmid, p.Time, p.CPU, p.NetInBps)
			}
			if (*p.MemBytes > 0) != c.wantMem {
				t.Fatalf("machine %d at %v: got mem %v; want memory held = %v", c.vmid, p.Time, *p.MemBytes, c.wantMem)
			}
		}
	}
}

func TestUsageDeterministic(t *testing.T) {
	graph := func(seed int64) hypervisor.UsageGraph {
		d, _ := newTest(t, Config{Seed: seed, Machines: 5})
		return usage(t, d, hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: "pve1"}, Timeframe: hypervisor.TimeframeMonth})
	}
	a, b, c := graph(9), graph(9), graph(10)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed: node graphs differ; want equal")
	}
	if reflect.DeepEqual(a, c) {
		t.Errorf("seeds 9 and 10: node graphs equal; want different")
	}
}

func TestUsageShape(t *testing.T) {
	// Over a year of many machines: values stay in range, working hours are busier
	// than nights, weekdays busier than weekends, and the latest month busier than the
	// first (slow growth).
	d, _ := newTest(t, Config{Seed: 21})
	var night, work, weekdays, weekends, first, last, nNight, nWork, nWeekdays, nWeekends float64
	for range 12 {
		m := oldMachine(t, d, hypervisor.Machine{CPUCores: 2, MemoryMB: 4096})
		month := usage(t, d, hypervisor.UsageQuery{Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: hypervisor.TimeframeMonth})
		for _, p := range month.Points {
			cpu := *p.CPU
			if cpu < 0 || cpu > 1 || *p.MemBytes < 0 || *p.MemBytes > *p.MemTotalBytes || *p.NetInBps < 0 || *p.DiskReadBps < 0 {
				t.Fatalf("machine %d at %v: got out-of-range point %v", m.VMID, p.Time, fields(p))
			}
			switch h := p.Time.Hour(); {
			case h >= 1 && h < 5:
				night, nNight = night+cpu, nNight+1
			case h >= 12 && h < 16:
				work, nWork = work+cpu, nWork+1
			}
			if wd := p.Time.Weekday(); wd == time.Saturday || wd == time.Sunday {
				weekends, nWeekends = weekends+cpu, nWeekends+1
			} else {
				weekdays, nWeekdays = weekdays+cpu, nWeekdays+1
			}
		}
		year := usage(t, d, hypervisor.UsageQuery{Ref: hypervisor.Ref{VMID: m.VMID}, Timeframe: hypervisor.TimeframeYear})
		for i, p := range year.Points {
			if i < 120 {
				first += *p.CPU
			}
			if i >= len(year.Points)-120 {
				last += *p.CPU
			}
		}
	}
	if w, n := work/nWork, night/nNight; w < 2*n {
		t.Errorf("daily rhythm: got working hours %.3f vs night %.3f; want working hours at least twice as busy", w, n)
	}
	if wd, we := weekdays/nWeekdays, weekends/nWeekends; wd < 1.3*we {
		t.Errorf("weekly rhythm: got weekdays %.3f vs weekends %.3f; want weekdays clearly busier", wd, we)
	}
	if last < 1.05*first {
		t.Errorf("growth: got last month %.2f vs first month %.2f; want growth", last, first)
	}
}

func TestInventoryNodeUsageMatchesGraph(t *testing.T) {
	d, _ := newTest(t, Config{Seed: 4, Machines: 9})
	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range inv.Nodes {
		g := usage(t, d, hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: n.ID}, Timeframe: hypervisor.TimeframeHour})
		p := g.Points[len(g.Points)-1]
		if !near(n.CPU, *p.CPU) || n.MemBytes != int64(*p.MemBytes) {
			t.Errorf("node %s: inventory cpu %v mem %d; want the graph's current bucket %v %v", n.ID, n.CPU, n.MemBytes, *p.CPU, *p.MemBytes)
		}
	}
}

func BenchmarkUsageNodeYear(b *testing.B) {
	d := New(Config{Seed: 1, Machines: 100, OpDelay: -1, Now: func() time.Time { return t0 }})
	q := hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: "pve1"}, Timeframe: hypervisor.TimeframeYear}
	for b.Loop() {
		if _, err := d.Usage(bg, q); err != nil {
			b.Fatal(err)
		}
	}
}
