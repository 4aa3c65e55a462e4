package sim

import (
	"time"

	"github.com/vmplane/vmplane/hypervisor"
)

// trafficLocked is a running machine's network counters at now, as a hypervisor keeps
// them: the bytes its load model moved since it last started (so a restart sets them
// back to 0), the integral of the rates its usage graphs show.
func (d *Driver) trafficLocked(m *machine, now time.Time) hypervisor.TrafficCounters {
	s := d.seriesOf(m, false)
	from := m.createdAt.Unix()
	for i := len(m.history) - 1; i >= 0; i-- {
		if m.history[i].State != hypervisor.StateRunning {
			break
		}
		from = floorDiv(m.history[i].At, 1e9)
	}
	in, out := s.netBetween(from, now.Unix())
	return hypervisor.TrafficCounters{In: uint64(in), Out: uint64(out)}
}

// netBetween integrates the running machine's net rates over [from, to) (unix seconds)
// in aligned pieces, as coarse as the alignment allows (days, hours, minutes), so that
// a machine that has run for months costs a few hundred pieces, not a million seconds.
// The model's noise averages out over an aligned bucket, so each piece is exact; the
// unaligned ends are counted at their minute's rate.
func (s *series) netBetween(from, to int64) (in, out float64) {
	for t := from; t < to; {
		step := int64(0)
		for _, st := range []int64{daySeconds, 3600, 60} {
			if t%st == 0 && t+st <= to {
				step = st
				break
			}
		}
		start, n := t, step
		if step == 0 {
			// An unaligned end: the minute around t, counted for the seconds used.
			start = floorDiv(t, 60) * 60
			n = min(start+60, to) - t
			step = 60
		}
		sp := newSpan(start, step)
		v := s.running(&sp)
		in += v.netIn * float64(n)
		out += v.netOut * float64(n)
		t += n
	}
	return in, out
}
