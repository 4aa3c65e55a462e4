package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency summarises a latency histogram, in microseconds.
type Latency struct {
	Count    int64   `json:"count"`
	MinUS    int64   `json:"min_us"`
	MeanUS   float64 `json:"mean_us"`
	P50US    int64   `json:"p50_us"`
	P90US    int64   `json:"p90_us"`
	P99US    int64   `json:"p99_us"`
	P999US   int64   `json:"p99_9_us"`
	MaxUS    int64   `json:"max_us"`
	StdDevUS float64 `json:"stddev_us"`
}

func summarize(h *hdrhistogram.Histogram) Latency {
	if h == nil || h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Count: h.TotalCount(), MinUS: h.Min(), MeanUS: round1(h.Mean()),
		P50US: h.ValueAtQuantile(50), P90US: h.ValueAtQuantile(90), P99US: h.ValueAtQuantile(99),
		P999US: h.ValueAtQuantile(99.9), MaxUS: h.Max(), StdDevUS: round1(h.StdDev()),
	}
}

// OpReport is the result of one kind of request, or (in Report.Scenarios) of all the
// requests of one scenario of a mix.
type OpReport struct {
	Name       string  `json:"name"`
	Scenario   string  `json:"scenario,omitempty"`
	Method     string  `json:"method,omitempty"`
	Route      string  `json:"route,omitempty"`
	Requests   int64   `json:"requests"`
	Throughput float64 `json:"throughput_rps"`
	// Errors are the requests whose answer was none of the expected ones (see
	// Outcomes), transport errors included.
	Errors int64 `json:"errors"`
	// Latency is measured from when the request was due (open model) or sent
	// (closed model) to its answer; answers of every status count, transport errors not.
	Latency Latency `json:"latency"`
	// ServiceTime, in the open model only, is measured from when the request was
	// actually sent: the difference to Latency is the time spent waiting for a
	// free connection.
	ServiceTime *Latency `json:"service_time,omitempty"`
	// Statuses counts answers by status and problem code ("409 operation_in_progress");
	// transport errors are "error <what>".
	Statuses map[string]int64 `json:"statuses"`
	// Outcomes counts the expected answers by kind: ok, accepted and conflict (power),
	// allowed and limited (login).
	Outcomes map[string]int64 `json:"outcomes"`

	hist, svc *hdrhistogram.Histogram
	// errClasses are the Statuses that were errors (see TargetReport.ErrorsByClass).
	errClasses map[string]int64
}

// TargetReport is one base URL's share of a run over several (--url a,b,...): the
// requests of the connections pinned to it.
type TargetReport struct {
	URL string `json:"url"`
	// Connections is how many of the run's connections (workers) sent to this URL.
	Connections int     `json:"connections"`
	Requests    int64   `json:"requests"`
	Throughput  float64 `json:"throughput_rps"`
	Errors      int64   `json:"errors"`
	// ErrorsByClass splits Errors the way Statuses names answers: "401 unauthorized",
	// "503 unavailable", "error connection refused", ...
	ErrorsByClass map[string]int64 `json:"errors_by_class"`
	Latency       Latency          `json:"latency"`
	ServiceTime   *Latency         `json:"service_time,omitempty"`
	Statuses      map[string]int64 `json:"statuses"`
	Outcomes      map[string]int64 `json:"outcomes"`
	// Intended and Unsent (open model) are the URL's share of Report.Intended and
	// Report.Unsent: its workers' timetable runs at its share of the rate.
	Intended int64 `json:"intended,omitempty"`
	Unsent   int64 `json:"unsent,omitempty"`
}

// SetupReport says what the setup created.
type SetupReport struct {
	DurationS    float64 `json:"duration_s"`
	Tenants      int     `json:"tenants"`
	Users        int     `json:"users"`
	Machines     int     `json:"machines"`
	PowerTargets int     `json:"power_targets"`
}

// CleanupReport says what the cleanup removed and what it could not.
type CleanupReport struct {
	DurationS  float64        `json:"duration_s"`
	Deleted    map[string]int `json:"deleted,omitempty"`
	ErrorCount int            `json:"error_count"`
	Errors     []string       `json:"errors,omitempty"`
}

// Report is the result of a run.
type Report struct {
	// Target is the base URL, or the base URLs separated by commas (see Targets).
	Target   string `json:"target"`
	Scenario string `json:"scenario"`
	// RunID names what the setup created (vmplane-bench-<run_id>-...).
	RunID       string    `json:"run_id,omitempty"`
	Model       string    `json:"model"`
	Connections int       `json:"connections"`
	Rate        float64   `json:"rate,omitempty"`
	WarmupS     float64   `json:"warmup_s"`
	DurationS   float64   `json:"duration_s"`
	StartedAt   time.Time `json:"started_at"`
	// ElapsedS is the measured phase as it happened (shorter when interrupted or
	// capped by MaxRequests); Throughput is Requests over it.
	ElapsedS    float64 `json:"elapsed_s"`
	Interrupted bool    `json:"interrupted"`

	Requests   int64   `json:"requests"`
	Throughput float64 `json:"throughput_rps"`
	Errors     int64   `json:"errors"`
	// Intended (open model) is how many requests were due in the measured phase;
	// Unsent how many of them never went out because every connection stayed busy.
	Intended int64 `json:"intended,omitempty"`
	Unsent   int64 `json:"unsent,omitempty"`

	Latency     Latency          `json:"latency"`
	ServiceTime *Latency         `json:"service_time,omitempty"`
	Statuses    map[string]int64 `json:"statuses"`
	Outcomes    map[string]int64 `json:"outcomes"`
	// Scenarios sums the ops of each scenario of a mix.
	Scenarios []OpReport `json:"scenarios,omitempty"`
	Ops       []OpReport `json:"ops"`
	// Targets, when the run loaded several base URLs, are the figures of each, in the
	// order --url gave them; the figures above are their sums.
	Targets []TargetReport `json:"targets,omitempty"`

	Setup   SetupReport   `json:"setup"`
	Cleanup CleanupReport `json:"cleanup"`
	Hints   []string      `json:"hints,omitempty"`

	// Baseline is the same load against a bare fasthttp server in this process, and
	// BaselineRatio this run's throughput over the baseline's.
	Baseline      *Report `json:"baseline,omitempty"`
	BaselineRatio float64 `json:"baseline_ratio,omitempty"`
	// Wrk is wrk run with the same connections and duration on the same route, and
	// WrkRatio this run's throughput over wrk's.
	Wrk      *WrkResult `json:"wrk,omitempty"`
	WrkRatio float64    `json:"wrk_ratio,omitempty"`

	hist *hdrhistogram.Histogram
}

// report builds the Report of a finished run.
func (c *collector) report(r *runner) Report {
	o := r.o
	stop := r.stopAt
	if stop.IsZero() || stop.After(r.end) {
		stop = r.end
	}
	window := stop.Sub(r.measureFrom).Seconds()
	if window < 0 {
		window = 0
	}
	rep := Report{
		Target: joinBases(r.targets), Scenario: o.Scenario, Model: o.Model, Connections: o.Connections,
		WarmupS: o.Warmup.Seconds(), DurationS: o.Duration.Seconds(), StartedAt: r.start.UTC(),
		ElapsedS: round3(window), Interrupted: c.interrupted,
	}
	if o.Model == ModelOpen {
		rep.Rate = o.Rate
	}
	// One cell per target and op, as the collector keeps them; an op's figures sum its
	// cells over the targets, a target's its cells over the ops.
	nops := len(r.ops)
	cells := make([]OpReport, len(c.stats))
	for k := range c.stats {
		info, st := r.ops[k%nops], &c.stats[k]
		cells[k] = OpReport{Name: info.Name, Scenario: info.Scenario, Method: info.Method, Route: info.Route,
			Requests: st.requests, Errors: st.errors, hist: st.lat, svc: st.svc,
			Statuses: statusMap(st.statuses), Outcomes: st.outcomes, errClasses: errorClasses(st.statuses, info.expect)}
	}
	for i, info := range r.ops {
		op := cells[i]
		if len(r.targets) > 1 {
			of := make([]OpReport, 0, len(r.targets))
			for t := range r.targets {
				of = append(of, cells[t*nops+i])
			}
			op = mergeOps(info.Name, of, window)
			op.Method, op.Route = info.Method, info.Route
		}
		op.finish(window)
		rep.Ops = append(rep.Ops, op)
	}
	if len(r.targets) > 1 {
		for t, tg := range r.targets {
			sum := mergeOps(tg.base, cells[t*nops:(t+1)*nops], window)
			rep.Targets = append(rep.Targets, TargetReport{
				URL: tg.base, Connections: connectionsOf(t, len(r.targets), o.Connections),
				Requests: sum.Requests, Throughput: sum.Throughput, Errors: sum.Errors, ErrorsByClass: sum.errClasses,
				Latency: sum.Latency, ServiceTime: sum.ServiceTime, Statuses: sum.Statuses, Outcomes: sum.Outcomes,
			})
		}
	}
	total := mergeOps("all", rep.Ops, window)
	rep.Requests, rep.Errors, rep.Throughput = total.Requests, total.Errors, total.Throughput
	rep.Latency, rep.ServiceTime, rep.Statuses, rep.Outcomes = total.Latency, total.ServiceTime, total.Statuses, total.Outcomes
	rep.hist = total.hist
	if o.Scenario == "mix" {
		var names []string
		by := map[string][]OpReport{}
		for _, op := range rep.Ops {
			if _, ok := by[op.Scenario]; !ok {
				names = append(names, op.Scenario)
			}
			by[op.Scenario] = append(by[op.Scenario], op)
		}
		for _, n := range names {
			s := mergeOps(n, by[n], window)
			s.Scenario = ""
			rep.Scenarios = append(rep.Scenarios, s)
		}
	}
	if r.scheds != nil && window > 0 {
		for t, sched := range r.scheds {
			intended := sched.dueBefore(stop) - sched.dueBefore(r.measureFrom)
			rep.Intended += intended
			if rep.Targets != nil {
				rep.Targets[t].Intended = intended
				rep.Targets[t].Unsent = max(intended-rep.Targets[t].Requests, 0)
			}
		}
		rep.Unsent = max(rep.Intended-rep.Requests, 0)
	}
	return rep
}

// connectionsOf is how many of connections workers go to target t of n: worker i goes
// to target i mod n.
func connectionsOf(t, n, connections int) int {
	c := connections / n
	if t < connections%n {
		c++
	}
	return c
}

// errorClasses are the lines of a status breakdown that were errors: transport errors
// and any status the op does not expect.
func errorClasses(m map[statusKey]int64, expect map[int]string) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		if _, ok := expect[int(k.status)]; k.status == 0 || !ok {
			out[k.String()] += v
		}
	}
	return out
}

// finish fills what follows from the histograms and the measured window.
func (op *OpReport) finish(window float64) {
	op.Latency = summarize(op.hist)
	if op.svc != nil {
		l := summarize(op.svc)
		op.ServiceTime = &l
	}
	if window > 0 {
		op.Throughput = round1(float64(op.Requests) / window)
	}
	if op.Statuses == nil {
		op.Statuses = map[string]int64{}
	}
	if op.Outcomes == nil {
		op.Outcomes = map[string]int64{}
	}
}

// mergeOps sums ops into one: counts added, histograms merged.
func mergeOps(name string, ops []OpReport, window float64) OpReport {
	out := OpReport{Name: name, hist: newHist(), Statuses: map[string]int64{}, Outcomes: map[string]int64{}, errClasses: map[string]int64{}}
	for _, op := range ops {
		if out.Scenario == "" {
			out.Scenario = op.Scenario
		}
		out.Requests += op.Requests
		out.Errors += op.Errors
		mergeHist(out.hist, op.hist)
		if op.svc != nil {
			if out.svc == nil {
				out.svc = newHist()
			}
			mergeHist(out.svc, op.svc)
		}
		for k, v := range op.Statuses {
			out.Statuses[k] += v
		}
		for k, v := range op.Outcomes {
			out.Outcomes[k] += v
		}
		for k, v := range op.errClasses {
			out.errClasses[k] += v
		}
	}
	out.finish(window)
	return out
}

// mergeHist adds from into into; nil from is nothing.
func mergeHist(into, from *hdrhistogram.Histogram) {
	if from != nil {
		into.Merge(from) // same range: nothing is dropped
	}
}

func statusMap(m map[statusKey]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k.String()] += v
	}
	return out
}

func (k statusKey) String() string {
	if k.status == 0 {
		return "error " + k.code
	}
	s := strconv.Itoa(int(k.status))
	if k.code != "" {
		s += " " + k.code
	}
	return s
}

// addHints explains figures that usually mean the setup, not the server, is the limit.
func (rep *Report) addHints() {
	var limited int64
	for _, op := range rep.Ops {
		if op.Scenario == "login" {
			if op.Requests > 0 && op.Outcomes[outcomeLimited] == 0 {
				rep.Hints = append(rep.Hints, "login: the storm never met the auth limit (no 429): is --rate-auth 0 on the server?")
			}
			continue
		}
		for k, v := range op.Statuses {
			if strings.HasPrefix(k, "429") {
				limited += v
			}
		}
	}
	if limited > 0 {
		rep.Hints = append(rep.Hints, fmt.Sprintf("%d answers were 429: the server's rate limits hold this client address back; start it with --rate-global 0 to measure capacity", limited))
	}
	if rep.Unsent > 0 {
		rep.Hints = append(rep.Hints, fmt.Sprintf("the server could not keep up with %.0f req/s: %d of %d due requests never went out before the end; the latencies include the backlog", rep.Rate, rep.Unsent, rep.Intended))
	}
	for _, t := range rep.Targets {
		if t.Unsent > 0 {
			rep.Hints = append(rep.Hints, fmt.Sprintf("%s: %d of its %d due requests never went out", t.URL, t.Unsent, t.Intended))
		}
	}
	if rep.Interrupted {
		rep.Hints = append(rep.Hints, "interrupted: the figures cover the measured time up to the interruption")
	}
}

// WriteJSON writes the report as indented JSON.
func (rep *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteText writes the human summary.
func (rep *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	rep.writeText(ew, "")
	if rep.Baseline != nil {
		if rep.Baseline.Scenario == SyncedWritesScenario {
			fmt.Fprintf(ew, "\nbaseline (%d goroutines in this process, each write one Badger transaction with SyncWrites, %d-byte values, no HTTP):\n",
				rep.Baseline.Connections, SyncedValueSize)
			rep.Baseline.writeText(ew, "  ")
			fmt.Fprintf(ew, "\ndurable writes against the baseline: %.2fx (%.0f / %.0f writes/s)\n", rep.BaselineRatio, rep.Throughput, rep.Baseline.Throughput)
		} else {
			fmt.Fprintf(ew, "\nbaseline (a bare fasthttp server in this process answering the same bytes):\n")
			rep.Baseline.writeText(ew, "  ")
			fmt.Fprintf(ew, "\nthroughput against the baseline: %.1f%% (%.0f / %.0f req/s)\n", 100*rep.BaselineRatio, rep.Throughput, rep.Baseline.Throughput)
		}
	}
	if rep.Wrk != nil {
		fmt.Fprintf(ew, "\nwrk on the same route: %.0f req/s, p50 %s, p99 %s, %d errors (%s)\n",
			rep.Wrk.Throughput, fmtUS(rep.Wrk.P50US), fmtUS(rep.Wrk.P99US), rep.Wrk.Errors, rep.Wrk.Command)
		fmt.Fprintf(ew, "this harness against wrk: %.1f%% (%.0f / %.0f req/s)\n", 100*rep.WrkRatio, rep.Throughput, rep.Wrk.Throughput)
	}
	return ew.err
}

func (rep *Report) writeText(w io.Writer, ind string) {
	load := fmt.Sprintf("%d connections", rep.Connections)
	if rep.Model == ModelOpen {
		load = fmt.Sprintf("%.0f req/s over %d connections", rep.Rate, rep.Connections)
	}
	fmt.Fprintf(w, "%sscenario %s against %s: %s model, %s\n", ind, rep.Scenario, rep.Target, rep.Model, load)
	fmt.Fprintf(w, "%s  warm-up %s, measured %.2fs", ind, secs(rep.WarmupS), rep.ElapsedS)
	if rep.Interrupted {
		fmt.Fprint(w, " (interrupted)")
	}
	fmt.Fprintf(w, "; setup %.1fs%s, cleanup %.1fs%s\n", rep.Setup.DurationS, rep.Setup.created(), rep.Cleanup.DurationS, rep.Cleanup.summary())
	fmt.Fprintf(w, "\n%s  requests      %d   %.1f req/s   errors %d\n", ind, rep.Requests, rep.Throughput, rep.Errors)
	if rep.Intended > 0 {
		fmt.Fprintf(w, "%s  due           %d   unsent %d\n", ind, rep.Intended, rep.Unsent)
	}
	label := "latency"
	if rep.Model == ModelOpen {
		label = "latency (due)"
	}
	fmt.Fprintf(w, "%s  %-13s %s\n", ind, label, latencyLine(rep.Latency))
	if rep.ServiceTime != nil {
		fmt.Fprintf(w, "%s  service time  %s\n", ind, latencyLine(*rep.ServiceTime))
	}
	if len(rep.Outcomes) > 0 {
		fmt.Fprintf(w, "%s  outcomes      %s\n", ind, countLine(rep.Outcomes, rep.Requests))
	}
	if len(rep.Statuses) > 0 {
		fmt.Fprintf(w, "%s  statuses      %s\n", ind, countLine(rep.Statuses, rep.Requests))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s  op\trequests\treq/s\tp50\tp90\tp99\tp99.9\tmax\terrors\toutcomes\n", ind)
	rows := rep.Ops
	if len(rep.Scenarios) > 0 {
		// A mix: the scenarios' sums first, then a blank row, then each op.
		rows = append(append(append([]OpReport{}, rep.Scenarios...), OpReport{}), rep.Ops...)
	}
	for _, op := range rows {
		if op.Name == "" {
			fmt.Fprintln(tw, "\t\t\t\t\t\t\t\t\t")
			continue
		}
		l := op.Latency
		fmt.Fprintf(tw, "%s  %s\t%d\t%.1f\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", ind, op.Name, op.Requests, op.Throughput,
			fmtUS(l.P50US), fmtUS(l.P90US), fmtUS(l.P99US), fmtUS(l.P999US), fmtUS(l.MaxUS), op.Errors, countLine(op.Outcomes, op.Requests))
	}
	_ = tw.Flush()
	if len(rep.Targets) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "%s  url\tconns\trequests\treq/s\tp50\tp90\tp99\tp99.9\tmax\terrors\terror classes\n", ind)
		for _, t := range rep.Targets {
			l := t.Latency
			fmt.Fprintf(tw, "%s  %s\t%d\t%d\t%.1f\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", ind, t.URL, t.Connections, t.Requests, t.Throughput,
				fmtUS(l.P50US), fmtUS(l.P90US), fmtUS(l.P99US), fmtUS(l.P999US), fmtUS(l.MaxUS), t.Errors, countLine(t.ErrorsByClass, t.Requests))
		}
		_ = tw.Flush()
	}
	for _, e := range rep.Cleanup.Errors {
		fmt.Fprintf(w, "%s  cleanup error: %s\n", ind, e)
	}
	for _, h := range rep.Hints {
		fmt.Fprintf(w, "%s  note: %s\n", ind, h)
	}
}

func (s SetupReport) created() string {
	var parts []string
	if s.Tenants > 0 {
		parts = append(parts, fmt.Sprintf("%d tenants", s.Tenants))
	}
	if s.Users > 0 {
		parts = append(parts, fmt.Sprintf("%d users", s.Users))
	}
	if s.Machines > 0 {
		parts = append(parts, fmt.Sprintf("%d machines", s.Machines))
	}
	if s.PowerTargets > 0 {
		parts = append(parts, fmt.Sprintf("%d machines to act on", s.PowerTargets))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func (c CleanupReport) summary() string {
	var parts []string
	keys := make([]string, 0, len(c.Deleted))
	for k := range c.Deleted {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", c.Deleted[k], strings.ReplaceAll(k, "_", " ")))
	}
	if c.ErrorCount > 0 {
		parts = append(parts, fmt.Sprintf("%d errors", c.ErrorCount))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (deleted " + strings.Join(parts, ", ") + ")"
}

func latencyLine(l Latency) string {
	if l.Count == 0 {
		return "no answers"
	}
	return fmt.Sprintf("p50 %s   p90 %s   p99 %s   p99.9 %s   max %s   (mean %s)",
		fmtUS(l.P50US), fmtUS(l.P90US), fmtUS(l.P99US), fmtUS(l.P999US), fmtUS(l.MaxUS), fmtUS(int64(l.MeanUS)))
}

// countLine lists counts, largest first, with their share of total.
func countLine(m map[string]int64, total int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		p := fmt.Sprintf("%s %d", k, m[k])
		if total > 0 {
			p += fmt.Sprintf(" (%.1f%%)", 100*float64(m[k])/float64(total))
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "   ")
}

// fmtUS formats microseconds for people.
func fmtUS(us int64) string {
	switch {
	case us <= 0:
		return "-"
	case us < 1000:
		return fmt.Sprintf("%dµs", us)
	case us < 1_000_000:
		return fmt.Sprintf("%.2fms", float64(us)/1e3)
	}
	return fmt.Sprintf("%.2fs", float64(us)/1e6)
}

func secs(s float64) string { return (time.Duration(s * float64(time.Second))).String() }

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// errWriter remembers the first write error, so the text writer can ignore them.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, nil
}
