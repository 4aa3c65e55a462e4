package sim

import (
	"math"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
)

// counters reads one machine's counters from the inventory.
func counters(t *testing.T, d *Driver, vmid int) (hypervisor.TrafficCounters, bool) {
	t.Helper()
	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatalf("Inventory: %v", err)
	}
	c, ok := inv.Traffic[vmid]
	return c, ok
}

// The counters grow while the machine runs, by the rates its graph shows, and start
// again from 0 when it restarts; a stopped machine has none.
func TestInventoryTraffic(t *testing.T) {
	d, clk := newTest(t, Config{})
	m := oldMachine(t, d, hypervisor.Machine{})
	ref := hypervisor.Ref{VMID: m.VMID}
	a, ok := counters(t, d, m.VMID)
	if !ok || a.In == 0 || a.Out == 0 {
		t.Fatalf("running machine's counters: got %+v (listed %v); want both > 0", a, ok)
	}
	clk.Advance(time.Hour)
	b, _ := counters(t, d, m.VMID)
	if b.In <= a.In || b.Out <= a.Out {
		t.Fatalf("an hour later: got %+v; want more than %+v", b, a)
	}
	// The hour's growth is the hour's bucket of the graph (its average rate × 3600),
	// within the rounding of the unaligned ends.
	g := usage(t, d, hypervisor.UsageQuery{Ref: ref, Timeframe: hypervisor.TimeframeDay})
	var sum float64
	for _, p := range g.Points[len(g.Points)-61 : len(g.Points)-1] {
		sum += *p.NetInBps * 60
	}
	if grew := float64(b.In - a.In); grew < sum*0.9 || grew > sum*1.1 {
		t.Errorf("an hour's growth: got %.0f bytes; want about %.0f (the graph's minutes)", grew, sum)
	}
	if err := d.Power(bg, ref, hypervisor.ActionStop); err != nil {
		t.Fatal(err)
	}
	if c, ok := counters(t, d, m.VMID); ok {
		t.Errorf("stopped machine has counters %+v; want none", c)
	}
	clk.Advance(time.Minute)
	if err := d.Power(bg, ref, hypervisor.ActionStart); err != nil {
		t.Fatal(err)
	}
	clk.Advance(2 * time.Minute)
	c, ok := counters(t, d, m.VMID)
	if !ok || c.In == 0 || c.In >= a.In {
		t.Errorf("restarted 2 minutes ago: got %+v (listed %v); want a fresh count, > 0 and < %d", c, ok, a.In)
	}
}

// A whole day's net rates without the trigonometry are the day bucket's, and the
// counters continued from the last inventory's mark are those integrated afresh, over
// days, hours and restarts: the cache of a million machines' integrals changes no
// counter.
func TestInventoryTrafficMark(t *testing.T) {
	d, clk := newTest(t, Config{})
	m := oldMachine(t, d, hypervisor.Machine{})
	d.mu.Lock()
	mm, _ := d.machines.Get(m.VMID)
	s := d.seriesOf(mm, true)
	d.mu.Unlock()
	for day := s.createdDay; day < s.createdDay+30; day++ {
		sp := newSpan(day*daySeconds, daySeconds)
		v := s.running(&sp)
		in, out := s.netDay(day)
		if math.Abs(in-v.netIn) > 1e-9*v.netIn || math.Abs(out-v.netOut) > 1e-9*v.netOut {
			t.Fatalf("day %d: netDay %v/%v; the day bucket %v/%v", day, in, out, v.netIn, v.netOut)
		}
		// An hour and a minute of that day: netRunning is running's net rates exactly.
		for _, sp := range []span{newSpan(day*daySeconds+7*3600, 3600), newSpan(day*daySeconds+61*60, 60)} {
			v := s.running(&sp)
			if in, out := s.netRunning(&sp); in != v.netIn || out != v.netOut {
				t.Fatalf("day %d, span %+v: netRunning %v/%v; running %v/%v", day, sp, in, out, v.netIn, v.netOut)
			}
		}
	}
	fresh := func() hypervisor.TrafficCounters {
		d.mu.Lock()
		defer d.mu.Unlock()
		mm, _ := d.machines.Get(m.VMID)
		mm.Traffic = fleet.Mark{}
		return d.trafficLocked(mm, d.now())
	}
	ref := hypervisor.Ref{VMID: m.VMID}
	for i, step := range []time.Duration{0, time.Minute, 3 * time.Hour, 25 * time.Hour, 7 * time.Second, 49 * time.Hour} {
		clk.Advance(step)
		if i == 4 {
			// A restart: the counters (and the mark) begin again.
			for _, a := range []hypervisor.PowerAction{hypervisor.ActionStop, hypervisor.ActionStart} {
				if err := d.Power(bg, ref, a); err != nil {
					t.Fatal(err)
				}
			}
			clk.Advance(36 * time.Hour)
		}
		got, _ := counters(t, d, m.VMID)
		d.mu.Lock()
		mm, _ := d.machines.Peek(m.VMID)
		mark := mm.Traffic
		d.mu.Unlock()
		if want := fresh(); got != want {
			t.Fatalf("step %d: counters from the mark %+v; afresh %+v", i, got, want)
		}
		if mark.UpTo == mark.From && i > 0 {
			t.Errorf("step %d: no whole day marked (%+v)", i, mark)
		}
	}
}

// BenchmarkTrafficIntegral measures a running machine's traffic counters over 400 days:
// the day pieces as the graphs compute them (newSpan and running, as every piece was
// before netDay), through netDay afresh, and continued from the machine's mark (what
// each inventory after the first costs).
func BenchmarkTrafficIntegral(b *testing.B) {
	d, _ := newTestB(b)
	d.mu.Lock()
	defer d.mu.Unlock()
	m, _ := d.machines.Get(d.machines.VMIDs()[0])
	m.CreatedAt = d.now().Add(-400 * 24 * time.Hour)
	m.History = m.History[:0]
	s := d.seriesOf(m, false)
	b.Run("day-pieces-by-running", func(b *testing.B) {
		for b.Loop() {
			var in float64
			for day := s.createdDay + 1; day < s.createdDay+400; day++ {
				sp := newSpan(day*daySeconds, daySeconds)
				in += s.running(&sp).netIn
			}
		}
	})
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			m.Traffic = fleet.Mark{}
			d.trafficLocked(m, d.now())
		}
	})
	b.Run("from-mark", func(b *testing.B) {
		for b.Loop() {
			d.trafficLocked(m, d.now())
		}
	})
}

// newTestB is a driver with a few demo machines, for benchmarks.
func newTestB(b *testing.B) (*Driver, time.Time) {
	now := t0
	return New(Config{Machines: 3, OpDelay: time.Millisecond, Now: func() time.Time { return now }}), now
}
