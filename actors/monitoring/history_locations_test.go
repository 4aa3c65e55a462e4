package monitoring

import (
	"context"
	"testing"
	"time"

	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// TestHistoryWithALocationDown: the usage history reads every location apart, so a
// location that does not answer costs only its own nodes: the backfill and the sample
// go on with the others (counting their capacity alone), the location back counts
// again, and only when none answers is the sample an error.
func TestHistoryWithALocationDown(t *testing.T) {
	now := time.Now().UTC()
	home := sim.New(sim.Config{Seed: 3, Nodes: 2, Machines: 3, OpDelay: time.Millisecond, Now: func() time.Time { return now }})
	away := sim.New(sim.Config{Seed: 4, Nodes: 3, Machines: 3, OpDelay: time.Millisecond, Now: func() time.Time { return now }})
	d := hvloc.New(home)
	d.Set("fra", away)
	s := newTestSystem(t, func(o *testOptions) { o.Driver = d })
	ctx := context.Background()

	away.SetAvailable(false)
	n, err := s.History.Backfill(ctx, now)
	if err != nil || n < 359 || n > 361 {
		t.Fatalf("got %d backfilled days, %v with fra down; want about 360 from the default location", n, err)
	}
	yesterday := dayOf(now).AddDate(0, 0, -1)
	days, err := s.History.Days(ctx, yesterday, yesterday)
	if err != nil || len(days) != 1 || days[0].CPU == nil || days[0].CPU.Capacity != 2*float64(sim.DefaultNodeCores) {
		t.Fatalf("yesterday: %+v, %v; want the default location's %d cores", days, err, 2*sim.DefaultNodeCores)
	}
	if err := s.History.Sample(ctx, now); err != nil {
		t.Fatalf("sample with fra down: %v; want the default location's", err)
	}
	today := func() UsageDay {
		t.Helper()
		days, err := s.History.Days(ctx, now, now)
		if err != nil || len(days) != 1 || days[0].CPU == nil {
			t.Fatalf("today: %+v, %v", days, err)
		}
		return days[0]
	}
	if c := today().CPU; c.Samples != 1 || c.Capacity != 2*float64(sim.DefaultNodeCores) {
		t.Fatalf("today with fra down: %+v; want one sample of the default location's %d cores", c, 2*sim.DefaultNodeCores)
	}

	away.SetAvailable(true)
	if err := s.History.Sample(ctx, now); err != nil {
		t.Fatal(err)
	}
	if c := today().CPU; c.Samples != 2 || c.Capacity != 5*float64(sim.DefaultNodeCores) {
		t.Fatalf("today with fra back: %+v; want two samples, %d cores of both locations", c, 5*sim.DefaultNodeCores)
	}

	home.SetAvailable(false)
	away.SetAvailable(false)
	if err := s.History.Sample(ctx, now); err == nil {
		t.Fatal("sample with every location down: no error")
	}
	if c := today().CPU; c.Samples != 2 {
		t.Fatalf("today after a failed sample: %+v; want it untouched", c)
	}
}
