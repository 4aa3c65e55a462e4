package bench

import (
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histMinUS, histMaxUS, histDigits) }

// recordNs records a duration in nanoseconds as microseconds, clamped to the range.
func recordNs(h *hdrhistogram.Histogram, ns int64) {
	us := min(max(ns/1000, histMinUS), histMaxUS)
	_ = h.RecordValue(us) // in range by construction
}

// statusKey is one line of a status breakdown.
type statusKey struct {
	status int32
	code   string
}

// opStats are the measured results of one op on one target.
type opStats struct {
	lat, svc *hdrhistogram.Histogram
	statuses map[statusKey]int64
	outcomes map[string]int64
	requests int64
	errors   int64
}

// collector owns every histogram and counter of a run: workers hand it batches of
// samples, it files them, prints the progress line, and finally builds the report.
type collector struct {
	r *runner
	// stats are by target, then op: stats[target*len(ops)+op]. The report merges them
	// into the ops' figures and the targets'.
	stats []opStats

	// Live figures of the current phase (warm-up, then measurement), for progress.
	live         *hdrhistogram.Histogram
	measuring    bool
	liveRequests int64
	liveErrors   int64
	warmRequests int64
	lastRequests int64
	lastTick     time.Time
	interrupted  bool
}

func newCollector(r *runner) *collector {
	c := &collector{r: r, stats: make([]opStats, len(r.targets)*len(r.ops)), live: newHist()}
	for i := range c.stats {
		c.stats[i] = opStats{lat: newHist(), statuses: map[statusKey]int64{}, outcomes: map[string]int64{}}
		if r.o.Model == ModelOpen {
			c.stats[i].svc = newHist()
		}
	}
	return c
}

func (c *collector) loop() {
	var tick <-chan time.Time
	if c.r.o.Progress != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	c.lastTick = c.r.start
	for {
		select {
		case b, ok := <-c.r.out:
			if !ok {
				if c.r.o.Progress != nil {
					c.final()
				}
				return
			}
			for i := range b.n {
				c.add(&b.s[i])
			}
			b.n = 0
			select {
			case c.r.free <- b:
			default:
			}
		case now := <-tick:
			c.progress(now)
		}
	}
}

func (c *collector) add(s *sample) {
	st := &c.stats[int(s.target)*len(c.r.ops)+int(s.op)]
	outcome, expected := "", false
	if s.status != 0 {
		outcome, expected = c.r.ops[s.op].expect[int(s.status)]
	}
	if !s.warm && !c.measuring {
		c.measuring = true
		c.live.Reset()
		c.liveRequests, c.liveErrors, c.lastRequests = 0, 0, 0
	}
	if s.warm && c.measuring {
		// A warm-up straggler after the measurement began: counted, not recorded.
		c.warmRequests++
		return
	}
	c.liveRequests++
	if !expected {
		c.liveErrors++
	}
	if s.status != 0 {
		recordNs(c.live, s.lat)
	}
	if s.warm {
		c.warmRequests++
		return
	}
	st.requests++
	st.statuses[statusKey{s.status, s.code}]++
	if expected {
		st.outcomes[outcome]++
	} else {
		st.errors++
	}
	if s.status != 0 {
		recordNs(st.lat, s.lat)
		if st.svc != nil {
			recordNs(st.svc, s.svc)
		}
	}
}

// progress writes the live line: phase and elapsed time, requests, the rate of the
// last second, p99 so far in this phase, errors.
func (c *collector) progress(now time.Time) {
	w := c.r.o.Progress
	if w == nil {
		return
	}
	phase := "warm-up"
	elapsed, total := now.Sub(c.r.start), c.r.o.Warmup
	if c.measuring {
		phase = "measure"
		elapsed, total = max(now.Sub(c.r.measureFrom), 0), c.r.o.Duration
	}
	dt := now.Sub(c.lastTick).Seconds()
	rps := 0.0
	if dt > 0 {
		rps = float64(c.liveRequests-c.lastRequests) / dt
	}
	c.lastTick, c.lastRequests = now, c.liveRequests
	writeProgress(w, phase, min(elapsed, total), total, c.liveRequests, rps, c.live.ValueAtQuantile(99), c.liveErrors)
}

// final rewrites the progress line with the whole measured phase's figures.
func (c *collector) final() {
	stop := c.r.stopAt
	if stop.After(c.r.end) {
		stop = c.r.end
	}
	d := stop.Sub(c.r.measureFrom)
	rps := 0.0
	if d > 0 && c.measuring {
		rps = float64(c.liveRequests) / d.Seconds()
	}
	writeProgress(c.r.o.Progress, "done   ", max(d, 0), c.r.o.Duration, c.liveRequests, rps, c.live.ValueAtQuantile(99), c.liveErrors)
	fmt.Fprintln(c.r.o.Progress)
}

func writeProgress(w io.Writer, phase string, elapsed, total time.Duration, requests int64, rps float64, p99us, errors int64) {
	fmt.Fprintf(w, "\r%s %5.1fs/%s  requests %d  %.0f req/s  p99 %s  errors %d\x1b[K",
		phase, elapsed.Seconds(), total, requests, rps, fmtUS(p99us), errors)
}
