package sim

import (
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
)

// trafficLocked is a running machine's network counters at now, as a hypervisor keeps
// them: the bytes its load model moved since it last started (so a restart sets them
// back to 0), the integral of the rates its usage graphs show.
//
// The integral up to the last whole UTC day it covered is kept on the machine (its
// fleet.Mark), so each later inventory integrates only from there: a million running
// machines that have run for a year would otherwise cost some 400 day pieces each on
// every sync (issue 33). The sum continues from the mark in the same order of pieces
// as a fresh integral would, so the counters are the same either way.
func (d *Driver) trafficLocked(m *fleet.Machine, now time.Time) hypervisor.TrafficCounters {
	s := d.seriesOf(m, false)
	from := m.CreatedAt.Unix()
	for i := len(m.History) - 1; i >= 0; i-- {
		if m.History[i].State != hypervisor.StateRunning {
			break
		}
		from = floorDiv(m.History[i].At, 1e9)
	}
	to := now.Unix()
	mk := &m.Traffic
	if mk.From != from || mk.UpTo < from || mk.UpTo > to {
		*mk = fleet.Mark{From: from, UpTo: from}
	}
	in, out := s.netBetween(mk.UpTo, to, mk.In, mk.Out, mk)
	return hypervisor.TrafficCounters{In: uint64(in), Out: uint64(out)}
}

// netBetween integrates the running machine's net rates over [from, to) (unix seconds)
// in aligned pieces, as coarse as the alignment allows (days, hours, minutes), so that
// a machine that has run for months costs a few hundred pieces, not a million seconds,
// starting from the sums in and out. The model's noise averages out over an aligned
// bucket, so each piece is exact; the unaligned ends are counted at their minute's rate.
// After each whole day, mk (if not nil) records how far the sums got.
func (s *series) netBetween(from, to int64, in, out float64, mk *fleet.Mark) (float64, float64) {
	for t := from; t < to; {
		if t%daySeconds == 0 && t+daySeconds <= to {
			dIn, dOut := s.netDay(floorDiv(t, daySeconds))
			in += dIn * float64(daySeconds)
			out += dOut * float64(daySeconds)
			t += daySeconds
			if mk != nil {
				mk.UpTo, mk.In, mk.Out = t, in, out
			}
			continue
		}
		step := int64(0)
		for _, st := range []int64{3600, 60} {
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
		vIn, vOut := s.netRunning(&sp)
		in += vIn * float64(n)
		out += vOut * float64(n)
		t += n
	}
	return in, out
}

// netDay is the average net rates, in and out, of a machine running throughout the
// UTC day: running's day bucket for the two net metrics alone, without its
// trigonometry, since the daily curve's average over a whole day is exactly 1.
func (s *series) netDay(day int64) (in, out float64) {
	p := &s.prof
	g := 1.0
	if day > s.createdDay {
		g = min(1+p.growth*float64(day-s.createdDay)/7, 1.6)
	}
	base := g * (1 + 0.1*sym(cell(s.dayKey, day))) * weekday(day)
	// noise over a day: only its 6-hour part at the day's first cell (see noise).
	cell6 := floorDiv(day*daySeconds/60, 360)
	act := func(k int) float64 {
		return base * (1 + noiseScale*0.1*sym(cell(s.noiseKeys[k][2], cell6)))
	}
	return p.netIn * act(2), p.netIn * p.netOutRate * act(3)
}

// netRunning is running's net rates, in and out, alone: the same expressions, without
// the four other metrics' noise.
func (s *series) netRunning(sp *span) (in, out float64) {
	p := &s.prof
	g := 1.0
	if sp.day > s.createdDay {
		g = min(1+p.growth*float64(sp.day-s.createdDay)/7, 1.6)
	}
	base := g * (1 + 0.1*sym(cell(s.dayKey, sp.day))) * sp.weekday
	curve := (s.curveIntegral(&sp.b) - s.curveIntegral(&sp.a)) / (sp.b.x - sp.a.x)
	act := func(k int) float64 { return base * (curve + noiseScale*s.noise(k, sp)) }
	return p.netIn * act(2), p.netIn * p.netOutRate * act(3)
}
