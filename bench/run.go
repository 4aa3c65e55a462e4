// Package bench is the load harness behind `vmplane bench`: it sets up what a
// scenario needs on a running server (tenants, users, machines), sends its requests
// under an open or a closed load model, records every latency in HdrHistograms, and
// cleans up. It speaks to the server only over HTTP.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Histogram range: 1 µs to 60 s at 3 significant digits.
const (
	histMinUS  = 1
	histMaxUS  = 60_000_000
	histDigits = 3
)

const (
	// batchSize samples are handed from a worker to the collector at once, so the hot
	// loop takes no lock and the collector owns every histogram.
	batchSize = 256
	// flushEvery bounds how stale the live progress line can be.
	flushEvery = 200 * time.Millisecond
)

// Run sets the scenario up on the server, runs the load (warm-up, then the measured
// phase), cleans up and reports. Cancelling ctx ends the load early (the report says
// so) but not the cleanup, which runs under its own timeout.
func Run(ctx context.Context, o Options) (Report, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return Report{}, err
	}
	ts, err := parseTargets(o.BaseURL)
	if err != nil {
		return Report{}, err
	}
	sc, err := newScenario(o, o.Scenario)
	if err != nil {
		return Report{}, err
	}
	e := newEnv(o, ts)
	if err := e.reach(ctx); err != nil {
		return Report{}, err
	}

	setupStart := time.Now()
	sctx, cancel := context.WithTimeout(ctx, o.SetupTimeout)
	err = sc.setup(sctx, e)
	if err == nil {
		err = checkTokenLifetime(o, e)
	}
	if err == nil {
		err = e.checkTokensEverywhere(sctx)
	}
	cancel()
	e.setup.DurationS = time.Since(setupStart).Seconds()
	if err != nil {
		switch {
		case ctx.Err() != nil:
			err = fmt.Errorf("interrupted during the setup: %w", err)
		case errors.Is(err, context.DeadlineExceeded):
			err = fmt.Errorf("%w (the setup took longer than --setup-timeout %s)", err, o.SetupTimeout)
		}
		cleanup(ctx, o, sc, e)
		return Report{}, err
	}

	r := newRunner(o, ts, sc)
	if o.Procs > 0 {
		prev := runtime.GOMAXPROCS(o.Procs)
		defer runtime.GOMAXPROCS(prev)
	}
	col := r.run(ctx)
	cleanup(ctx, o, sc, e)

	rep := col.report(r)
	rep.RunID = e.runID
	rep.Setup = e.setup
	rep.Cleanup = e.cleanup
	rep.Hints = append(e.hints, rep.Hints...)
	rep.addHints()
	return rep, nil
}

// checkTokenLifetime refuses runs that would outlive the tokens the setup obtained:
// every request after that would be a 401.
func checkTokenLifetime(o Options, e *env) error {
	life := time.Duration(0)
	for _, p := range append([]*principal{e.admin}, tenantUsers(e)...) {
		p.mu.Lock()
		if p.token != "" && (life == 0 || p.expiresIn < life) {
			life = p.expiresIn
		}
		p.mu.Unlock()
	}
	if run := o.Warmup + o.Duration; life > 0 && run+30*time.Second > life {
		return fmt.Errorf("the run lasts %s but the server's access tokens live %s: shorten --duration or raise the server's --access-ttl", run, life)
	}
	return nil
}

func tenantUsers(e *env) []*principal {
	var out []*principal
	for _, t := range e.tenants {
		if t != nil && t.user != nil {
			out = append(out, t.user)
		}
	}
	return out
}

func cleanup(ctx context.Context, o Options, sc scenario, e *env) {
	if o.Keep {
		if e.setup.Tenants > 0 {
			e.hint("--keep: the tenants, users and machines of this run (names with %s) stay on the server", e.runID)
		}
		return
	}
	start := time.Now()
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.CleanupTimeout)
	defer cancel()
	sc.cleanup(cctx, e)
	e.cleanupTenants(cctx)
	if cctx.Err() != nil {
		e.cleanupFailed(fmt.Errorf("the cleanup did not finish within --cleanup-timeout %s: records named vmplane-bench-%s remain", o.CleanupTimeout, e.runID))
	}
	e.cleanup.DurationS = time.Since(start).Seconds()
}

// sample is one request's result, as a worker hands it to the collector.
type sample struct {
	lat    int64  // ns from when the request was due (open) or sent (closed) to its answer
	svc    int64  // ns from when it was sent to its answer
	op     int32  // index into the run's ops
	status int32  // 0: no answer (code names the transport error)
	code   string // problem code of an error answer, or the transport error
	target int32  // index into the run's targets
	warm   bool   // sent during the warm-up
}

type batch struct {
	n int
	s [batchSize]sample
}

// schedule is the open model's timetable: request i is due at start + i/rate,
// whatever happened to the requests before it.
type schedule struct {
	start time.Time
	gapNs float64
	n     atomic.Int64
}

func newSchedule(start time.Time, rate float64) *schedule {
	return &schedule{start: start, gapNs: 1e9 / rate}
}

// at is when request i is due.
func (s *schedule) at(i int64) time.Time {
	return s.start.Add(time.Duration(float64(i) * s.gapNs))
}

// take hands out the next request's due time.
func (s *schedule) take() time.Time { return s.at(s.n.Add(1) - 1) }

// dueBefore is how many requests are due before t.
func (s *schedule) dueBefore(t time.Time) int64 {
	d := t.Sub(s.start)
	if d <= 0 {
		return 0
	}
	return int64(math.Ceil(float64(d) / s.gapNs))
}

// schedules are the open model's timetables from start, one per target, each at the
// target's share of the rate: its share of the connections.
func (r *runner) schedules(start time.Time) []*schedule {
	out := make([]*schedule, len(r.targets))
	for t := range r.targets {
		conns := connectionsOf(t, len(r.targets), r.o.Connections)
		out[t] = newSchedule(start, r.o.Rate*float64(conns)/float64(r.o.Connections))
	}
	return out
}

// runner is one load phase: warm-up then measurement.
type runner struct {
	o       Options
	targets []target // worker i sends to targets[i%len(targets)]
	sc      scenario
	ops     []opInfo

	start, measureFrom, end time.Time
	// scheds are the open model's timetables, one per target: each target's workers
	// share the rate in proportion to their number, so a target that answers slowly
	// builds its own backlog instead of handing its due requests to the others.
	scheds []*schedule

	stop     atomic.Bool
	stopOnce sync.Once
	stopAt   time.Time // when the load was told to stop, guarded by stopOnce
	measured atomic.Int64

	out  chan *batch
	free chan *batch
	fast []*fastConn // watched for requests that outlast the timeout
}

func newRunner(o Options, ts []target, sc scenario) *runner {
	return &runner{o: o, targets: ts, sc: sc, ops: sc.ops(),
		out: make(chan *batch, 2*o.Connections+16), free: make(chan *batch, 2*o.Connections+16)}
}

// halt stops the load; the first caller's time is when it stopped.
func (r *runner) halt(at time.Time) {
	r.stopOnce.Do(func() {
		r.stopAt = at
		r.stop.Store(true)
	})
}

// run drives the workers and returns the collector that saw every sample.
func (r *runner) run(ctx context.Context) *collector {
	workers := make([]*worker, r.o.Connections)
	for i := range workers {
		workers[i] = r.newWorker(i)
	}
	r.start = time.Now()
	r.measureFrom = r.start.Add(r.o.Warmup)
	r.end = r.measureFrom.Add(r.o.Duration)
	if r.o.Model == ModelOpen {
		r.scheds = r.schedules(r.start)
	}
	rctx, cancel := context.WithDeadline(ctx, r.end)
	defer cancel()
	go func() {
		<-rctx.Done()
		at := time.Now()
		if at.After(r.end) {
			at = r.end
		}
		r.halt(at)
	}()

	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go watchdog(stopWatch, r.fast, r.o.Timeout)

	col := newCollector(r)
	colDone := make(chan struct{})
	go func() {
		defer close(colDone)
		col.loop()
	}()
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop(rctx)
		}()
	}
	wg.Wait()
	r.halt(time.Now())
	close(r.out)
	<-colDone
	col.interrupted = ctx.Err() != nil
	for _, w := range workers {
		w.rt.close()
	}
	return col
}

// worker is one connection and the goroutine that drives it.
type worker struct {
	r       *runner
	rt      roundTripper
	req     *fasthttp.Request
	resp    *fasthttp.Response
	gen     generator
	cur     *batch
	flushed time.Time
	codes   map[string]string // interned codes, so that error answers allocate nothing
	timer   *time.Timer
	maxReq  int64
	target  int32 // index of the worker's target
	fixed   bool  // the generator never changes the request after init
}

// newWorker builds worker i, pinned to target i mod targets: round-robin, so the
// targets' connection counts differ by at most one, as the clients of a load
// balancer that deals out connections would see it.
func (r *runner) newWorker(i int) *worker {
	rng := rand.New(rand.NewPCG(r.o.Seed, uint64(i)))
	tgt := i % len(r.targets)
	t := r.targets[tgt]
	w := &worker{
		r: r, req: &fasthttp.Request{}, resp: &fasthttp.Response{},
		gen: r.sc.generator(i, tgt, rng, 0), cur: &batch{}, codes: map[string]string{},
		maxReq: r.o.MaxRequests, target: int32(tgt),
	}
	if t.tls {
		w.rt = &hostClientTripper{hc: t.hostClient(1, r.o.Timeout), timeout: r.o.Timeout}
	} else {
		fc := newFastConn(t.addr, r.o.Timeout)
		r.fast = append(r.fast, fc)
		w.rt = fc
	}
	w.gen.init(w.req)
	if f, ok := w.gen.(interface{ fixedRequest() bool }); ok {
		w.fixed = f.fixedRequest()
	}
	return w
}

func (w *worker) loop(ctx context.Context) {
	w.flushed = time.Now()
	if w.r.o.Model == ModelOpen {
		w.timer = time.NewTimer(time.Hour)
		w.timer.Stop()
		w.open(ctx)
	} else {
		w.closed()
	}
	w.flush(time.Now())
}

// closed sends the next request as soon as the previous one is answered.
func (w *worker) closed() {
	for !w.r.stop.Load() {
		op := w.gen.next(w.req)
		sent := time.Now()
		if !sent.Before(w.r.end) {
			return
		}
		w.send(op, sent, sent)
	}
}

// openEarly is how long before its due time an idle worker may send. Go's timers wake
// up to a millisecond late on an idle process (the poller waits in whole
// milliseconds); waking half a millisecond early centres that error on the due time,
// and a request that goes out early is measured from when it went out, so the error
// never shortens a latency.
const openEarly = 500 * time.Microsecond

// open takes the next due time from the schedule, waits for it, and sends. When every
// worker is busy, due times fall behind the clock: the requests go out late and their
// latency, measured from when they were due, shows the backlog.
func (w *worker) open(ctx context.Context) {
	for !w.r.stop.Load() {
		due := w.r.scheds[w.target].take()
		if !due.Before(w.r.end) {
			return
		}
		if wait := time.Until(due) - openEarly; wait > 0 {
			if wait > 20*time.Millisecond && w.cur.n > 0 {
				w.flush(time.Now())
			}
			w.timer.Reset(wait)
			select {
			case <-w.timer.C:
			case <-ctx.Done():
				return
			}
		}
		op := w.gen.next(w.req)
		w.send(op, due, time.Now())
	}
}

func (w *worker) send(op int, due, sent time.Time) {
	err := w.rt.do(w.req, w.resp, sent, w.fixed)
	done := time.Now()
	if sent.Before(due) { // sent early (see openEarly): its latency starts when it went out
		due = sent
	}
	s := &w.cur.s[w.cur.n]
	w.cur.n++
	s.lat, s.svc, s.op, s.target = int64(done.Sub(due)), int64(done.Sub(sent)), int32(op), w.target
	s.warm = due.Before(w.r.measureFrom)
	if err != nil {
		s.status, s.code = 0, w.intern(errClass(err))
	} else {
		s.status = int32(w.resp.StatusCode())
		s.code = ""
		if s.status >= 300 {
			if c := problemCode(w.resp.Body()); c != nil {
				s.code = w.internBytes(c)
			}
		}
	}
	w.gen.done(op, w.resp, err)
	if w.maxReq > 0 && !s.warm && w.r.measured.Add(1) >= w.maxReq {
		w.r.halt(done)
	}
	if w.cur.n == batchSize || done.Sub(w.flushed) >= flushEvery {
		w.flush(done)
	}
}

func (w *worker) intern(s string) string {
	if v, ok := w.codes[s]; ok {
		return v
	}
	if len(w.codes) >= 256 {
		return "other"
	}
	w.codes[s] = s
	return s
}

func (w *worker) internBytes(b []byte) string {
	if v, ok := w.codes[string(b)]; ok { // no allocation for the lookup
		return v
	}
	return w.intern(string(b))
}

// flush hands the current batch to the collector and takes an empty one.
func (w *worker) flush(now time.Time) {
	w.flushed = now
	if w.cur.n == 0 {
		return
	}
	w.r.out <- w.cur
	select {
	case w.cur = <-w.r.free:
		w.cur.n = 0
	default:
		w.cur = &batch{}
	}
}
