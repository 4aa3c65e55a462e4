package bench

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestMergeOps(t *testing.T) {
	a := OpReport{Name: "a", Scenario: "s", Requests: 3, Errors: 1, hist: newHist(),
		Statuses: map[string]int64{"200": 2, "500 internal": 1}, Outcomes: map[string]int64{"ok": 2}}
	b := OpReport{Name: "b", Scenario: "s", Requests: 2, hist: newHist(),
		Statuses: map[string]int64{"200": 2}, Outcomes: map[string]int64{"ok": 2}}
	for _, v := range []int64{100, 200, 300} {
		_ = a.hist.RecordValue(v)
	}
	for _, v := range []int64{1000, 50_000} {
		_ = b.hist.RecordValue(v)
	}
	m := mergeOps("all", []OpReport{a, b}, 2)
	if m.Requests != 5 || m.Errors != 1 {
		t.Fatalf("got %d requests, %d errors; want 5, 1", m.Requests, m.Errors)
	}
	if m.Throughput != 2.5 {
		t.Fatalf("got throughput %v; want 2.5", m.Throughput)
	}
	if m.Latency.Count != 5 {
		t.Fatalf("got %d latencies; want 5", m.Latency.Count)
	}
	if m.Latency.MinUS != 100 || m.Latency.MaxUS < 50_000 || m.Latency.MaxUS > 50_050 {
		t.Fatalf("got min %d µs, max %d µs; want 100 and about 50000", m.Latency.MinUS, m.Latency.MaxUS)
	}
	if m.Latency.P50US != 300 {
		t.Fatalf("got p50 %d µs; want 300", m.Latency.P50US)
	}
	if m.Statuses["200"] != 4 || m.Statuses["500 internal"] != 1 || m.Outcomes["ok"] != 4 {
		t.Fatalf("got statuses %v, outcomes %v; want 200: 4, 500 internal: 1, ok: 4", m.Statuses, m.Outcomes)
	}
	if m.ServiceTime != nil {
		t.Fatalf("got a service time %+v without any op having one; want none", m.ServiceTime)
	}
}

func TestRecordClampsToTheRange(t *testing.T) {
	h := newHist()
	recordNs(h, 10) // below 1 µs
	recordNs(h, int64(time.Hour))
	if h.TotalCount() != 2 || h.Min() != 1 || h.Max() < histMaxUS*999/1000 {
		t.Fatalf("got count %d, min %d, max %d; want 2, 1, about %d", h.TotalCount(), h.Min(), h.Max(), histMaxUS)
	}
}

func TestStatusKey(t *testing.T) {
	f := func(k statusKey, want string) {
		t.Helper()
		if got := k.String(); got != want {
			t.Fatalf("got %q; want %q", got, want)
		}
	}
	f(statusKey{200, ""}, "200")
	f(statusKey{409, "operation_in_progress"}, "409 operation_in_progress")
	f(statusKey{0, "connection refused"}, "error connection refused")
}

func TestProblemCodeAndID(t *testing.T) {
	body := []byte(`{"type":"about:blank","title":"Conflict","status":409,"code":"invalid_state","detail":"x"}`)
	if got := string(problemCode(body)); got != "invalid_state" {
		t.Fatalf("got code %q; want invalid_state", got)
	}
	if got := problemCode([]byte(`{"status":"ok"}`)); got != nil {
		t.Fatalf("got code %q; want none", got)
	}
	rule := []byte(`{"id":"01JRULE","machine_id":"01JVM","direction":"in"}`)
	if got := string(jsonID(rule)); got != "01JRULE" {
		t.Fatalf("got id %q; want 01JRULE", got)
	}
	if got := string(jsonID([]byte(`{"machine_id":"01JVM","id":"01JRULE"}`))); got != "01JRULE" {
		t.Fatalf("got id %q; want 01JRULE (machine_id is not id)", got)
	}
}

func TestFmtUS(t *testing.T) {
	f := func(us int64, want string) {
		t.Helper()
		if got := fmtUS(us); got != want {
			t.Fatalf("fmtUS(%d): got %q; want %q", us, got, want)
		}
	}
	f(0, "-")
	f(850, "850µs")
	f(1234, "1.23ms")
	f(2_500_000, "2.50s")
}

func TestParseWrk(t *testing.T) {
	out := `Running 10s test @ http://127.0.0.1:8080/api/health
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.02ms    1.40ms  40.28ms   93.61%
    Req/Sec    16.50k     1.62k   20.11k    71.50%
  Latency Distribution
     50%  694.00us
     75%    1.07ms
     90%    1.87ms
     99%    7.42ms
  328563 requests in 10.01s, 77.66MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 5
Requests/sec:  32824.21
Transfer/sec:      7.76MB
`
	r, err := parseWrk(out)
	if err != nil {
		t.Fatal(err)
	}
	want := WrkResult{Requests: 328563, Throughput: 32824.21, P50US: 694, P99US: 7420, Errors: 8}
	if r != want {
		t.Fatalf("got %+v; want %+v", r, want)
	}
	if _, err := parseWrk("wrk: command not found"); err == nil {
		t.Fatalf("got no error for output without Requests/sec; want one")
	}
}

func TestReportText(t *testing.T) {
	rep := Report{Target: "http://x", Scenario: "power", Model: ModelClosed, Connections: 2, ElapsedS: 1,
		Requests: 3, Throughput: 3, Statuses: map[string]int64{"202": 1, "409 operation_in_progress": 2},
		Outcomes: map[string]int64{"accepted": 1, "conflict": 2},
		Ops:      []OpReport{{Name: "power.reboot", Requests: 3, Outcomes: map[string]int64{"accepted": 1, "conflict": 2}}}}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scenario power against http://x", "409 operation_in_progress 2 (66.7%)", "power.reboot", "conflict 2"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("got text\n%s\nwant it to contain %q", buf.String(), want)
		}
	}
	buf.Reset()
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(buf.Bytes()) {
		t.Fatalf("got invalid JSON %s", buf.String())
	}
}

// TestReportPerTarget: a run over several URLs reports each URL's share (connections,
// requests, errors by class, outcomes, latency) beside totals that sum them; a run
// over one URL reports as it always did, without a per-URL part.
func TestReportPerTarget(t *testing.T) {
	ts, err := parseTargets("http://a:8080, http://b:8080/")
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(Options{BaseURL: "http://a:8080,http://b:8080", Connections: 3, Model: ModelClosed, Scenario: "login"}, ts, &loginScenario{})
	r.start = time.Now()
	r.measureFrom, r.end = r.start, r.start.Add(time.Second)
	r.stopAt = r.end
	c := newCollector(r)
	for _, s := range []sample{
		{target: 0, status: 200, lat: 1e6},
		{target: 0, status: 401, code: "invalid_credentials", lat: 2e6},
		{target: 1, status: 401, code: "invalid_credentials", lat: 3e6},
		{target: 1, status: 500, code: "internal", lat: 4e6},
		{target: 1, status: 0, code: "connection refused", lat: 5e6},
		{target: 1, status: 200, lat: 1e6, warm: true}, // a warm-up straggler: not measured
	} {
		c.add(&s)
	}
	rep := c.report(r)
	if rep.Target != "http://a:8080,http://b:8080" || rep.Requests != 5 || rep.Errors != 2 || rep.Throughput != 5 {
		t.Fatalf("got target %q, %d requests, %d errors, %v req/s; want both URLs, 5, 2, 5", rep.Target, rep.Requests, rep.Errors, rep.Throughput)
	}
	if op := rep.Ops[0]; op.Requests != 5 || op.Errors != 2 || op.Method != "POST" || op.Route != "/api/auth/login" || op.Latency.Count != 4 {
		t.Fatalf("got op %+v; want the sum of both URLs' requests, with its method and route", op)
	}
	if len(rep.Targets) != 2 {
		t.Fatalf("got %d per-URL reports; want 2", len(rep.Targets))
	}
	a, b := rep.Targets[0], rep.Targets[1]
	if a.URL != "http://a:8080" || a.Connections != 2 || a.Requests != 2 || a.Errors != 0 || len(a.ErrorsByClass) != 0 || a.Outcomes["allowed"] != 2 {
		t.Fatalf("got %+v; want a:8080 with 2 connections, 2 requests, both allowed", a)
	}
	if a.Latency.Count != 2 || a.Latency.MaxUS < 1990 || a.Latency.MaxUS > 2010 || a.Throughput != 2 {
		t.Fatalf("got a:8080 latency %+v, %v req/s; want 2 latencies up to 2 ms, 2 req/s", a.Latency, a.Throughput)
	}
	wantErrs := map[string]int64{"500 internal": 1, "error connection refused": 1}
	if b.URL != "http://b:8080" || b.Connections != 1 || b.Requests != 3 || b.Errors != 2 || !reflect.DeepEqual(b.ErrorsByClass, wantErrs) {
		t.Fatalf("got %+v; want b:8080 with 1 connection, 3 requests, errors %v", b, wantErrs)
	}
	if b.Statuses["401 invalid_credentials"] != 1 || b.Outcomes["allowed"] != 1 || b.Latency.Count != 2 {
		t.Fatalf("got b:8080 statuses %v, outcomes %v, %d latencies; want the 401 allowed and 2 answers timed", b.Statuses, b.Outcomes, b.Latency.Count)
	}

	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"url ", "error classes", "http://b:8080  1 ", "500 internal 1 (33.3%)", "error connection refused 1 (33.3%)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("got text\n%s\nwant it to contain %q", buf.String(), want)
		}
	}
	buf.Reset()
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"targets": [`, `"url": "http://b:8080"`, `"connections": 1`, `"errors_by_class": {`, `"500 internal": 1`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("got JSON\n%s\nwant it to contain %s", buf.String(), want)
		}
	}

	// One URL: no per-URL part, in the text or the JSON.
	r = newRunner(Options{BaseURL: "http://a:8080", Connections: 3, Model: ModelClosed, Scenario: "login"}, ts[:1], &loginScenario{})
	r.start = time.Now()
	r.measureFrom, r.end = r.start, r.start.Add(time.Second)
	r.stopAt = r.end
	c = newCollector(r)
	c.add(&sample{status: 500, code: "internal", lat: 1e6})
	rep = c.report(r)
	if rep.Target != "http://a:8080" || rep.Targets != nil || rep.Errors != 1 {
		t.Fatalf("got target %q, per-URL %v, %d errors; want a:8080, none, 1", rep.Target, rep.Targets, rep.Errors)
	}
	buf.Reset()
	_ = rep.WriteJSON(&buf)
	_ = rep.WriteText(&buf)
	if strings.Contains(buf.String(), `"targets"`) || strings.Contains(buf.String(), "error classes") {
		t.Fatalf("got\n%s\nwant no per-URL part for one URL", buf.String())
	}
}
