package traffic

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newTraffic(t *testing.T, o *Overage) *Traffic {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	rt := kit.New(store, nil, kit.EntityOptions{})
	t.Cleanup(rt.Shutdown)
	return New(Deps{Runtime: rt, Overage: o})
}

var hour = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func c(in, out uint64) hypervisor.TrafficCounters {
	return hypervisor.TrafficCounters{In: in, Out: out}
}

func record(t *testing.T, tr *Traffic, at time.Time, cs map[string]hypervisor.TrafficCounters) {
	t.Helper()
	if err := tr.Record(ctxFor(t), at, cs); err != nil {
		t.Fatalf("Record at %s: %v", at, err)
	}
}

func hourOf(t *testing.T, tr *Traffic, h time.Time) map[string]Bytes {
	t.Helper()
	got, err := tr.Hour(ctxFor(t), h)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestMoved(t *testing.T) {
	for _, tc := range []struct {
		name      string
		last, now hypervisor.TrafficCounters
		want      Bytes
	}{
		{"grown", c(100, 50), c(250, 80), Bytes{150, 30}},
		{"still", c(100, 50), c(100, 50), Bytes{}},
		{"restarted: all of the new count", c(100, 50), c(30, 70), Bytes{30, 20}},
		{"restarted to zero", c(100, 50), c(0, 0), Bytes{}},
	} {
		if got := Moved(tc.last, tc.now); got != tc.want {
			t.Errorf("%s: Moved(%v, %v) = %+v; want %+v", tc.name, tc.last, tc.now, got, tc.want)
		}
	}
}

// Several readings in an hour add up into the hour and the month; a restart counts its
// new counters in full; a machine first read counts nothing (its counters may hold
// traffic from before); an hour with no reading has nothing, and the movement across it
// goes to the hour of the reading that saw it.
func TestRecordHoursAndMonth(t *testing.T) {
	tr := newTraffic(t, nil)
	record(t, tr, hour.Add(1*time.Minute), map[string]hypervisor.TrafficCounters{"a": c(1000, 500)})
	record(t, tr, hour.Add(20*time.Minute), map[string]hypervisor.TrafficCounters{"a": c(1600, 700), "b": c(40, 40)})
	record(t, tr, hour.Add(40*time.Minute), map[string]hypervisor.TrafficCounters{"a": c(1900, 800), "b": c(90, 60)})
	// a restarted: its counters began again from 0.
	record(t, tr, hour.Add(59*time.Minute), map[string]hypervisor.TrafficCounters{"a": c(300, 100), "b": c(90, 60)})
	got := hourOf(t, tr, hour)
	want := map[string]Bytes{"a": {600 + 300 + 300, 200 + 100 + 100}, "b": {50, 20}}
	if len(got) != len(want) || got["a"] != want["a"] || got["b"] != want["b"] {
		t.Fatalf("hour: got %+v; want %+v", got, want)
	}
	// The next hour has no reading; the one after sees what moved meanwhile.
	record(t, tr, hour.Add(2*time.Hour+5*time.Minute), map[string]hypervisor.TrafficCounters{"a": c(800, 100)})
	if got := hourOf(t, tr, hour.Add(time.Hour)); len(got) != 0 {
		t.Errorf("an hour without readings: got %+v; want nothing", got)
	}
	if got := hourOf(t, tr, hour.Add(2*time.Hour)); got["a"] != (Bytes{500, 0}) || len(got) != 1 {
		t.Errorf("the hour after: got %+v; want a: {500 0}", got)
	}
	m, err := tr.Month(ctxFor(t), "a", hour)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Bytes{1200 + 500, 400}); m != want {
		t.Errorf("a's month: got %+v; want %+v", m, want)
	}
	// Next month starts from nothing.
	next := time.Date(2026, 4, 1, 0, 10, 0, 0, time.UTC)
	record(t, tr, next, map[string]hypervisor.TrafficCounters{"a": c(900, 100)})
	if m, _ := tr.Month(ctxFor(t), "a", next); m != (Bytes{100, 0}) {
		t.Errorf("a's next month: got %+v; want {100 0}", m)
	}
}

// A stopped machine (absent from the readings) keeps its last reading; when it runs
// again its fresh counters count in full.
func TestRecordStoppedThenStarted(t *testing.T) {
	tr := newTraffic(t, nil)
	record(t, tr, hour, map[string]hypervisor.TrafficCounters{"a": c(1000, 1000)})
	record(t, tr, hour.Add(10*time.Minute), map[string]hypervisor.TrafficCounters{})
	record(t, tr, hour.Add(20*time.Minute), map[string]hypervisor.TrafficCounters{"other": c(1, 1)})
	record(t, tr, hour.Add(30*time.Minute), map[string]hypervisor.TrafficCounters{"a": c(70, 30)})
	if got := hourOf(t, tr, hour)["a"]; got != (Bytes{70, 30}) {
		t.Errorf("a: got %+v; want {70 30}", got)
	}
}

// Record takes the machines a few at a time: what it counts is what it counts taking
// them all at once, with machines that are stopped (their readings kept, not in the
// call) between and around those of a chunk, machines read for the first time, and
// counters that moved, stood still or began again.
func TestRecordInChunks(t *testing.T) {
	whole, chunked := newTraffic(t, nil), newTraffic(t, nil)
	readings := []map[string]hypervisor.TrafficCounters{
		{"a": c(10, 10), "b": c(10, 10), "c": c(10, 10), "d": c(10, 10), "e": c(10, 10), "f": c(10, 10), "g": c(10, 10)},
		// b, d and f stopped; h and i new.
		{"a": c(50, 20), "c": c(40, 10), "e": c(15, 90), "g": c(10, 10), "h": c(5, 5), "i": c(7, 7)},
		// b and d run again (restarted: their counters count in full); c began again.
		{"a": c(80, 20), "b": c(3, 4), "c": c(5, 5), "d": c(60, 1), "e": c(15, 95), "h": c(25, 5), "i": c(7, 9)},
	}
	for i, cs := range readings {
		at := hour.Add(time.Duration(i*10+1) * time.Minute)
		record(t, whole, at, cs)
		func() {
			defer func(n int) { recordMachines = n }(recordMachines)
			recordMachines = 2
			record(t, chunked, at, cs)
		}()
	}
	want, got := hourOf(t, whole, hour), hourOf(t, chunked, hour)
	if len(want) != 7 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the hour in chunks of 2: got %v; want %v (every machine at once)", got, want)
	}
	for _, m := range []string{"a", "b", "c", "d", "e", "h", "i"} {
		w, err1 := whole.Month(ctxFor(t), m, hour)
		g, err2 := chunked.Month(ctxFor(t), m, hour)
		if err1 != nil || err2 != nil || g != w {
			t.Errorf("%s's month in chunks: got %+v, %v; want %+v, %v", m, g, err2, w, err1)
		}
	}
}

// overWorld is the overage job's side for the tests: allowances by machine, and the
// actions it took.
type overWorld struct {
	mu        sync.Mutex
	allowance map[string]uint64
	exceeded  []Exceeded
	ended     []string
	fail      error
}

func (w *overWorld) deps() *Overage {
	return &Overage{
		Smallest: func(context.Context) (uint64, bool, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			var s uint64
			for _, a := range w.allowance {
				if s == 0 || a < s {
					s = a
				}
			}
			return s, s > 0, nil
		},
		Allowance: func(_ context.Context, m string) (uint64, bool, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			a, ok := w.allowance[m]
			return a, ok, nil
		},
		Exceeded: func(_ context.Context, e Exceeded) (Taken, error) {
			w.mu.Lock()
			defer w.mu.Unlock()
			if w.fail != nil {
				return Taken{}, w.fail
			}
			w.exceeded = append(w.exceeded, e)
			return Taken{Action: "throttle", PriorRates: map[string]int{"net0": 7}}, nil
		},
		MonthEnded: func(_ context.Context, e Exceeded, taken Taken) error {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.ended = append(w.ended, fmt.Sprintf("%s:%s:%s:%v", e.MachineID, e.Month, taken.Action, taken.PriorRates))
			return nil
		},
	}
}

// A machine past its allowance has the action taken once in the month (again after a
// failed attempt), and undone once at the month's turn.
func TestCheckOverage(t *testing.T) {
	w := &overWorld{allowance: map[string]uint64{"a": 1000, "b": 5000}}
	tr := newTraffic(t, w.deps())
	ctx := ctxFor(t)
	record(t, tr, hour, map[string]hypervisor.TrafficCounters{"a": c(0, 0), "b": c(0, 0), "c": c(0, 0)})
	record(t, tr, hour.Add(time.Minute), map[string]hypervisor.TrafficCounters{"a": c(600, 400), "b": c(3000, 0), "c": c(1e9, 0)})
	if err := tr.Check(ctx, hour.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if len(w.exceeded) != 0 {
		t.Fatalf("at the allowance exactly: got %+v; want no action", w.exceeded)
	}
	record(t, tr, hour.Add(3*time.Minute), map[string]hypervisor.TrafficCounters{"a": c(601, 400)})
	w.fail = errors.New("machine busy")
	if err := tr.Check(ctx, hour.Add(4*time.Minute)); err == nil {
		t.Fatal("Check: a failed action is not reported")
	}
	w.fail = nil
	for range 2 {
		if err := tr.Check(ctx, hour.Add(5*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if len(w.exceeded) != 1 || w.exceeded[0] != (Exceeded{MachineID: "a", Month: "2026-03", Used: Bytes{601, 400}, AllowanceBytes: 1000}) {
		t.Fatalf("exceeded: got %+v; want a once, 1001 of 1000 bytes", w.exceeded)
	}
	if o, err := tr.Over(ctx, "a", hour); err != nil || o == nil || o.Action != "throttle" {
		t.Errorf("Over(a): got %+v, %v; want throttle", o, err)
	}
	next := time.Date(2026, 4, 1, 0, 3, 0, 0, time.UTC)
	for range 2 {
		if err := tr.Check(ctx, next); err != nil {
			t.Fatal(err)
		}
	}
	if len(w.ended) != 1 || w.ended[0] != "a:2026-03:throttle:map[net0:7]" {
		t.Errorf("ended: got %v; want a's March throttle once, with the rates it kept", w.ended)
	}
	if o, _ := tr.Over(ctx, "a", next); o != nil {
		t.Errorf("Over(a) in April: got %+v; want none", o)
	}
}

// The hours go after HourRetention, the months after MonthRetention months.
func TestPrune(t *testing.T) {
	tr := newTraffic(t, nil)
	record(t, tr, hour, map[string]hypervisor.TrafficCounters{"a": c(0, 0)})
	record(t, tr, hour.Add(time.Minute), map[string]hypervisor.TrafficCounters{"a": c(10, 10)})
	ctx := ctxFor(t)
	if err := tr.Prune(ctx, hour.Add(HourRetention)); err != nil {
		t.Fatal(err)
	}
	if len(hourOf(t, tr, hour)) != 1 {
		t.Fatal("the hour went before its retention")
	}
	if err := tr.Prune(ctx, hour.Add(HourRetention+time.Hour)); err != nil {
		t.Fatal(err)
	}
	if len(hourOf(t, tr, hour)) != 0 {
		t.Error("the hour outlived its retention")
	}
	if m, _ := tr.Month(ctx, "a", hour); m.Total() == 0 {
		t.Error("the month went with its hours")
	}
	if err := tr.Prune(ctx, hour.AddDate(1, 1, 0)); err != nil {
		t.Fatal(err)
	}
	if m, _ := tr.Month(ctx, "a", hour); m.Total() != 0 {
		t.Errorf("the month outlived %d months: %+v", MonthRetention, m)
	}
}
