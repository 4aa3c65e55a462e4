package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// fakeServer serves h on a loopback port and returns its base URL.
func fakeServer(t *testing.T, h fasthttp.RequestHandler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: h, CloseOnShutdown: true}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Shutdown()
		<-done
	})
	return "http://" + ln.Addr().String()
}

// slowHandler answers 200 after d, like a server whose every request costs d.
func slowHandler(d time.Duration) fasthttp.RequestHandler {
	return func(rc *fasthttp.RequestCtx) {
		time.Sleep(d) // the request's cost is what the model tests measure
		rc.SetContentType("application/json")
		rc.SetBodyString(`{"status":"ok"}`)
	}
}

func run(t *testing.T, o Options) Report {
	t.Helper()
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

// TestSchedulesSplitTheRate: each target's timetable runs at its share of the
// connections' share of the rate; one target keeps the whole rate.
func TestSchedulesSplitTheRate(t *testing.T) {
	start := time.Unix(1000, 0)
	ts, err := parseTargets("http://a:1,http://b:1")
	if err != nil {
		t.Fatal(err)
	}
	r := newRunner(Options{Model: ModelOpen, Rate: 300, Connections: 3}, ts, &healthScenario{})
	s := r.schedules(start)
	// a has 2 of the 3 connections: 200/s, one every 5 ms; b 100/s, one every 10 ms.
	if len(s) != 2 || s[0].at(2) != start.Add(10*time.Millisecond) || s[1].at(2) != start.Add(20*time.Millisecond) {
		t.Fatalf("got %d timetables, request 2 due at %v and %v; want 2, at +10ms and +20ms", len(s), s[0].at(2).Sub(start), s[1].at(2).Sub(start))
	}
	r = newRunner(Options{Model: ModelOpen, Rate: 300, Connections: 3}, ts[:1], &healthScenario{})
	if s := r.schedules(start); len(s) != 1 || s[0].gapNs != 1e9/300.0 {
		t.Fatalf("got %d timetables, a gap of %v ns; want one at the whole rate", len(s), s[0].gapNs)
	}
}

func TestScheduleDueTimes(t *testing.T) {
	start := time.Unix(1000, 0)
	s := newSchedule(start, 1000) // one every millisecond
	f := func(i int64, want time.Duration) {
		t.Helper()
		if got := s.at(i).Sub(start); got != want {
			t.Fatalf("at(%d): got start+%s; want start+%s", i, got, want)
		}
	}
	f(0, 0)
	f(1, time.Millisecond)
	f(1500, 1500*time.Millisecond)
	f(3_600_000, time.Hour)
	for i := range int64(5) {
		if got, want := s.take(), start.Add(time.Duration(i)*time.Millisecond); !got.Equal(want) {
			t.Fatalf("take %d: got %s; want %s", i, got, want)
		}
	}
	d := func(at time.Duration, want int64) {
		t.Helper()
		if got := s.dueBefore(start.Add(at)); got != want {
			t.Fatalf("dueBefore(start+%s): got %d; want %d", at, got, want)
		}
	}
	d(-time.Second, 0)
	d(0, 0)
	d(time.Nanosecond, 1)
	d(time.Second, 1000)
	d(time.Second+time.Nanosecond, 1001)

	odd := newSchedule(start, 3) // a third of a second apart: no drift over many
	if got, want := odd.at(3_000_000).Sub(start), 1_000_000*time.Second; got < want-time.Microsecond || got > want+time.Microsecond {
		t.Fatalf("at(3e6) at 3/s: got start+%s; want start+%s", got, want)
	}
}

// TestOpenModelShowsTheBacklog overloads a server that serves 2 connections × 100
// requests/s at 400 requests/s: latency measured from the due time must grow with the
// backlog (coordinated omission corrected) while the service time stays near 10 ms.
func TestOpenModelShowsTheBacklog(t *testing.T) {
	base := fakeServer(t, slowHandler(10*time.Millisecond))
	over := run(t, Options{BaseURL: base, Model: ModelOpen, Rate: 400, Connections: 2, Duration: time.Second})
	if over.ServiceTime == nil {
		t.Fatalf("got no service time in the open model; want one")
	}
	if over.Requests == 0 || over.Requests > 260 {
		t.Fatalf("got %d requests; want at most about 200 (the server's capacity over 1 s)", over.Requests)
	}
	if over.Intended < 390 || over.Intended > 410 || over.Unsent < 100 {
		t.Fatalf("got %d due, %d unsent; want about 400 due and over 100 unsent", over.Intended, over.Unsent)
	}
	svc, lat := over.ServiceTime.P99US, over.Latency.P99US
	if svc > 100_000 {
		t.Fatalf("got service time p99 %s; want about 10ms", fmtUS(svc))
	}
	if lat < 300_000 || lat < 5*svc {
		t.Fatalf("got latency p99 %s with service time p99 %s; want the backlog (several 100 ms) in the latency", fmtUS(lat), fmtUS(svc))
	}
	if !strings.Contains(strings.Join(over.Hints, "\n"), "could not keep up") {
		t.Fatalf("got hints %q; want one about the backlog", over.Hints)
	}

	// Below capacity the same server answers in about its service time.
	under := run(t, Options{BaseURL: base, Model: ModelOpen, Rate: 50, Connections: 2, Duration: time.Second})
	// A request or two due in the last instant may miss the end on a loaded machine;
	// a backlog would leave dozens unsent.
	if under.Unsent > 5 || under.Requests < 40 || under.Requests > 55 {
		t.Fatalf("got %d requests, %d unsent at 50/s; want about 50, hardly any unsent", under.Requests, under.Unsent)
	}
	if under.Latency.P99US > 250_000 || under.Latency.P99US*2 > lat {
		t.Fatalf("got latency p99 %s below capacity (%s above); want it near the 10ms service time", fmtUS(under.Latency.P99US), fmtUS(lat))
	}
}

func TestClosedModelKeepsConnectionsBusy(t *testing.T) {
	base := fakeServer(t, slowHandler(5*time.Millisecond))
	rep := run(t, Options{BaseURL: base, Connections: 4, Duration: 500 * time.Millisecond})
	// 4 connections × 200/s × 0.5 s = 400 at most.
	if rep.Requests < 100 || rep.Requests > 420 {
		t.Fatalf("got %d requests; want about 400", rep.Requests)
	}
	if rep.Latency.P50US < 5000 {
		t.Fatalf("got p50 %s; want at least the 5ms the server takes", fmtUS(rep.Latency.P50US))
	}
	if rep.ServiceTime != nil || rep.Intended != 0 {
		t.Fatalf("got service time %v, %d due in the closed model; want neither", rep.ServiceTime, rep.Intended)
	}
	if rep.Outcomes[outcomeOK] != rep.Requests || rep.Errors != 0 {
		t.Fatalf("got outcomes %v, %d errors; want every request ok", rep.Outcomes, rep.Errors)
	}
}

func TestWarmupIsDiscarded(t *testing.T) {
	var served atomic.Int64
	base := fakeServer(t, func(rc *fasthttp.RequestCtx) {
		served.Add(1)
		time.Sleep(time.Millisecond) // a cost per request, so the warmup is a share of all requests
	})
	rep := run(t, Options{BaseURL: base, Connections: 2, Warmup: 300 * time.Millisecond, Duration: 300 * time.Millisecond})
	total := served.Load() - 1 // the reachability check
	if rep.Requests == 0 || rep.Requests > total*3/4 {
		t.Fatalf("got %d measured of %d served; want about half (the warm-up is not measured)", rep.Requests, total)
	}
	if rep.Latency.Count != rep.Requests {
		t.Fatalf("got %d latencies for %d requests; want as many", rep.Latency.Count, rep.Requests)
	}
}

func TestMaxRequestsEndsEarly(t *testing.T) {
	base := fakeServer(t, slowHandler(0))
	// Only MaxRequests can end an hour's run within the test.
	rep := run(t, Options{BaseURL: base, Connections: 2, Duration: time.Hour, MaxRequests: 50})
	if rep.Requests < 50 || rep.Requests > 52 {
		t.Fatalf("got %d requests; want 50 (at most one more per connection)", rep.Requests)
	}
}

func TestInterruptEndsTheRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var served atomic.Int64
	base := fakeServer(t, func(rc *fasthttp.RequestCtx) {
		if served.Add(1) == 10 { // interrupted once the run is under way
			cancel()
		}
	})
	// Only the interrupt can end an hour's run within the test.
	rep, err := Run(ctx, Options{BaseURL: base, Connections: 2, Duration: time.Hour, Model: ModelOpen, Rate: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.Requests == 0 {
		t.Fatalf("got interrupted %v after %d requests; want true, after some", rep.Interrupted, rep.Requests)
	}
}

// TestReportJSONShape pins the field names scripts read from --json.
func TestReportJSONShape(t *testing.T) {
	base := fakeServer(t, func(rc *fasthttp.RequestCtx) {
		if rc.Request.Header.IsPost() {
			rc.SetStatusCode(409)
			rc.SetBodyString(`{"status":409,"code":"operation_in_progress"}`)
		}
	})
	var progress bytes.Buffer
	rep := run(t, Options{BaseURL: base, Connections: 2, Duration: 200 * time.Millisecond, Progress: &progress})
	if !strings.Contains(progress.String(), "requests") {
		t.Fatalf("got progress %q; want a progress line", progress.String())
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("decode %s: %v", buf.String(), err)
	}
	for _, k := range []string{"target", "scenario", "model", "connections", "warmup_s", "duration_s", "elapsed_s",
		"requests", "throughput_rps", "errors", "latency", "statuses", "outcomes", "ops", "setup", "cleanup"} {
		if _, ok := got[k]; !ok {
			t.Errorf("got no %q in %s; want it", k, buf.String())
		}
	}
	lat, _ := got["latency"].(map[string]any)
	for _, k := range []string{"count", "min_us", "mean_us", "p50_us", "p90_us", "p99_us", "p99_9_us", "max_us"} {
		if _, ok := lat[k]; !ok {
			t.Errorf("got no latency.%s; want it", k)
		}
	}
	ops, _ := got["ops"].([]any)
	if len(ops) != 1 {
		t.Fatalf("got ops %v; want one", got["ops"])
	}
	op, _ := ops[0].(map[string]any)
	for _, k := range []string{"name", "scenario", "method", "route", "requests", "throughput_rps", "errors", "latency", "statuses", "outcomes"} {
		if _, ok := op[k]; !ok {
			t.Errorf("got no ops[0].%s; want it", k)
		}
	}
	if op["name"] != "health" || op["route"] != "/api/health" {
		t.Fatalf("got op %v %v; want health /api/health", op["name"], op["route"])
	}
}

// TestErrorsAreCountedAndClassified: unexpected statuses are errors, with their code.
func TestErrorsAreCountedAndClassified(t *testing.T) {
	var n atomic.Int64
	base := fakeServer(t, func(rc *fasthttp.RequestCtx) {
		if n.Add(1)%2 == 0 {
			rc.SetStatusCode(503)
			rc.SetContentType("application/problem+json")
			rc.SetBodyString(`{"type":"about:blank","status":503,"code":"unavailable"}`)
		}
	})
	rep := run(t, Options{BaseURL: base, Connections: 1, Duration: 200 * time.Millisecond})
	if rep.Errors == 0 || rep.Statuses["503 unavailable"] != rep.Errors || rep.Statuses["200"]+rep.Errors != rep.Requests {
		t.Fatalf("got %d errors, statuses %v of %d; want the 503s as errors", rep.Errors, rep.Statuses, rep.Requests)
	}
}

func TestTargetDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ln.Close()
	_, err = Run(context.Background(), Options{BaseURL: base, Duration: time.Second})
	want := "cannot reach " + base + ": connection refused"
	if err == nil || err.Error() != want {
		t.Fatalf("got error %v; want %q", err, want)
	}
}

func TestBaseline(t *testing.T) {
	b, err := StartBaseline([]byte(`{"status":"ok","version":"x"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	body, ctype, err := FetchBody(b.URL+"/api/health", time.Second)
	if err != nil || string(body) != `{"status":"ok","version":"x"}` || ctype != "application/json" {
		t.Fatalf("got %q %q %v; want the fixed body as JSON", body, ctype, err)
	}
	rep := run(t, Options{BaseURL: b.URL, Connections: 2, Duration: 200 * time.Millisecond})
	if rep.Requests == 0 || rep.Errors != 0 {
		t.Fatalf("got %d requests, %d errors; want some, none", rep.Requests, rep.Errors)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
}

// TestTimeoutsEndStuckRequests: a request the server never answers ends at --timeout
// as a timeout error, and the connection is dialled again for the next one.
func TestTimeoutsEndStuckRequests(t *testing.T) {
	var n atomic.Int64
	stuck := make(chan struct{})
	base := fakeServer(t, func(rc *fasthttp.RequestCtx) {
		if n.Add(1)%5 == 0 {
			<-stuck // never answered while the run lasts
		}
	})
	t.Cleanup(func() { close(stuck) }) // before fakeServer's cleanup waits for its handlers
	rep := run(t, Options{BaseURL: base, Connections: 2, Duration: 500 * time.Millisecond, Timeout: 100 * time.Millisecond})
	if rep.Statuses["error timeout"] == 0 || rep.Statuses["200"] == 0 {
		t.Fatalf("got statuses %v; want 200s and timeouts", rep.Statuses)
	}
	if rep.Latency.MaxUS > 300_000 {
		t.Fatalf("got max latency %s; want answers only (timeouts are not latencies)", fmtUS(rep.Latency.MaxUS))
	}
}

// TestAnswerShapes: the client reads long answers, chunked answers and answers that
// close the connection.
func TestAnswerShapes(t *testing.T) {
	long := strings.Repeat("x", 300<<10)
	f := func(name string, h fasthttp.RequestHandler) {
		t.Helper()
		base := fakeServer(t, h)
		rep := run(t, Options{BaseURL: base, Connections: 2, Duration: 200 * time.Millisecond})
		if rep.Requests == 0 || rep.Errors != 0 {
			t.Fatalf("%s: got %d requests, statuses %v; want only 200s", name, rep.Requests, rep.Statuses)
		}
	}
	f("long", func(rc *fasthttp.RequestCtx) { rc.SetBodyString(long) })
	f("chunked", func(rc *fasthttp.RequestCtx) {
		rc.SetBodyStreamWriter(func(w *bufio.Writer) {
			for range 3 {
				w.WriteString(`{"part":1}`)
				w.Flush()
			}
		})
	})
	f("close", func(rc *fasthttp.RequestCtx) {
		rc.SetConnectionClose()
		rc.SetBodyString("{}")
	})
}

// TestHotLoopAllocations: a request on a kept-alive connection allocates nothing.
func TestHotLoopAllocations(t *testing.T) {
	base := fakeServer(t, func(rc *fasthttp.RequestCtx) { rc.SetBodyString(`{"status":"ok"}`) })
	tg, err := newTarget(base)
	if err != nil {
		t.Fatal(err)
	}
	sc := &healthScenario{uris: [][]byte{[]byte(tg.url("/api/health"))}}
	r := newRunner(Options{BaseURL: base, Connections: 1, Timeout: time.Second, Model: ModelClosed}, []target{tg}, sc)
	r.measureFrom = time.Now()
	r.end = r.measureFrom.Add(time.Hour)
	w := r.newWorker(0)
	go func() { // the collector's part: take batches back
		for b := range r.out {
			b.n = 0
			r.free <- b
		}
	}()
	defer close(r.out)
	w.flushed = time.Now()
	send := func() {
		now := time.Now()
		w.send(w.gen.next(w.req), now, now)
	}
	send() // dial
	if got := testing.AllocsPerRun(2000, send); got > 0.05 {
		t.Fatalf("got %.2f allocations per request; want none", got)
	}
	if w.resp.StatusCode() != 200 {
		t.Fatalf("got status %d; want 200", w.resp.StatusCode())
	}
}

// fakeVmplane answers the setup of the read scenario like a vmplane server would,
// except for the routes in missing, which answer 404 as an unknown route does.
func fakeVmplane(t *testing.T, missing ...string) string {
	t.Helper()
	return fakeServer(t, fakeVmplaneHandler(missing...))
}

// fakeVmplaneHandler is fakeVmplane's handler.
func fakeVmplaneHandler(missing ...string) fasthttp.RequestHandler {
	answers := map[string]struct {
		status int
		body   string
	}{
		"GET /api/health":                   {200, `{"status":"ok"}`},
		"POST /api/auth/login":              {200, `{"token":"tok","expires_in":900}`},
		"GET /api/auth/me":                  {200, `{"id":"usr"}`},
		"GET /api/virt/templates":           {200, `{"items":[{"id":"tpl","disk_gb":10}]}`},
		"POST /api/resources/tenants":       {201, `{"id":"ten"}`},
		"POST /api/resources/users":         {201, `{"id":"usr"}`},
		"POST /api/client/machines":         {202, `{"machine":{"id":"m1"},"task":{"id":"task1"}}`},
		"GET /api/tasks/task1":              {200, `{"id":"task1","status":"succeeded"}`},
		"GET /api/client/machines":          {200, `{"items":[],"next_cursor":null}`},
		"GET /api/resources/machines/m1":    {200, `{"id":"m1"}`},
		"GET /api/client/overview":          {200, `{}`},
		"DELETE /api/resources/machines/m1": {202, `{"task":{"id":"task1"}}`},
		"DELETE /api/resources/users/usr":   {204, ``},
		"DELETE /api/resources/tenants/ten": {204, ``},
		// The write and power scenarios, for runs over several URLs.
		"POST /api/client/firewall/rules":       {201, `{"id":"r1"}`},
		"DELETE /api/client/firewall/rules/r1":  {204, ``},
		"GET /api/virt/vms":                     {200, `{"items":[{"id":"vm1"}],"next_cursor":null}`},
		"POST /api/virt/vms/vm1/actions/reboot": {202, `{}`},
		"POST /api/virt/vms/vm1/actions/start":  {202, `{}`},
		"POST /api/virt/vms/vm1/actions/stop":   {409, `{"status":409,"code":"invalid_state"}`},
	}
	for _, m := range missing {
		delete(answers, m)
	}
	return func(rc *fasthttp.RequestCtx) {
		a, ok := answers[string(rc.Method())+" "+string(rc.Path())]
		if !ok {
			rc.SetStatusCode(404)
			rc.SetBodyString(`{"status":404,"code":"not_found","detail":"no route"}`)
			return
		}
		rc.SetStatusCode(a.status)
		rc.SetBodyString(a.body)
	}
}

func TestMissingRouteIsClear(t *testing.T) {
	f := func(missing, want string) {
		t.Helper()
		base := fakeVmplane(t, missing)
		_, err := Run(context.Background(), Options{BaseURL: base, Scenario: "read", AdminPassword: "pw",
			Tenants: 1, Machines: 1, Duration: 100 * time.Millisecond})
		if err == nil || err.Error() != want {
			t.Fatalf("without %s: got error %v; want %q", missing, err, want)
		}
	}
	f("GET /api/client/overview", "scenario read needs GET /api/client/overview, which answered 404 — is the server too old?")
	f("POST /api/resources/tenants", "scenario read needs POST /api/resources/tenants, which answered 404 — is the server too old?")
	f("POST /api/client/machines", "scenario read needs POST /api/client/machines, which answered 404 — is the server too old?")

	// And with every route there, the fake serves a clean run.
	rep := run(t, Options{BaseURL: fakeVmplane(t), Scenario: "read", AdminPassword: "pw", Tenants: 1, Machines: 1, Duration: 100 * time.Millisecond})
	if rep.Requests == 0 || rep.Errors != 0 || rep.Setup.Machines != 1 || rep.Cleanup.Deleted["tenants"] != 1 {
		t.Fatalf("got %d requests, %d errors, setup %+v, cleanup %+v; want a clean run that cleans up", rep.Requests, rep.Errors, rep.Setup, rep.Cleanup)
	}
}

// TestMixSpreadOverMembers: with several URLs the setup and cleanup talk to the first
// only, and the workers of every scenario send to their own URL with the tokens the
// setup obtained, as a cluster's members take each other's tokens: the second member
// sees the reachability and token checks and its share of the load, nothing else.
func TestMixSpreadOverMembers(t *testing.T) {
	var mu sync.Mutex
	seen := []map[string]int64{{}, {}}
	bases := make([]string, 2)
	for i := range 2 {
		h := fakeVmplaneHandler()
		base := fakeServer(t, func(rc *fasthttp.RequestCtx) {
			key := string(rc.Method()) + " " + string(rc.Path())
			if a := string(rc.Request.Header.Peek("Authorization")); a != "" && a != "Bearer tok" {
				key += " with " + a
			}
			mu.Lock()
			if host := "http://" + string(rc.Host()); host != bases[i] { // a balancer routes by it
				key += " for " + host
			}
			seen[i][key]++
			mu.Unlock()
			h(rc)
		})
		mu.Lock()
		bases[i] = base
		mu.Unlock()
	}
	rep := run(t, Options{BaseURL: strings.Join(bases, ","), Scenario: "mix", Mix: "read=1,write=1,power=1,login=1,health=1",
		AdminPassword: "pw", Tenants: 2, Machines: 1, Connections: 4, MaxRequests: 400, Duration: time.Minute})
	if rep.Errors != 0 || len(rep.Targets) != 2 || rep.Targets[0].Requests == 0 || rep.Targets[1].Requests == 0 {
		t.Fatalf("got %d errors (%v), per-URL %+v; want requests on both URLs, no errors", rep.Errors, rep.Statuses, rep.Targets)
	}
	mu.Lock()
	defer mu.Unlock()
	load := []string{"GET /api/client/machines", "GET /api/client/overview", "GET /api/resources/machines/m1",
		"POST /api/client/firewall/rules", "DELETE /api/client/firewall/rules/r1",
		"POST /api/virt/vms/vm1/actions/reboot", "POST /api/virt/vms/vm1/actions/start", "POST /api/virt/vms/vm1/actions/stop",
		"POST /api/auth/login", "GET /api/health"}
	var loaded int64
	for _, k := range load {
		if seen[1][k] == 0 {
			t.Errorf("the second URL served no %s; want its share of every request of the mix (%v)", k, seen[1])
		}
		loaded += seen[1][k]
	}
	// Besides the load: reachable (GET /api/health), the admin's and a user's token checked.
	if want := rep.Targets[1].Requests + 1 + 2; loaded+seen[1]["GET /api/auth/me"] != want {
		t.Errorf("the second URL served %d requests; want the %d the report gives it, 1 health check and 2 token checks (%v)",
			loaded+seen[1]["GET /api/auth/me"], rep.Targets[1].Requests, seen[1])
	}
	for k := range seen[1] {
		if !slices.Contains(load, k) && k != "GET /api/auth/me" {
			t.Errorf("the second URL served %s; want the setup and cleanup on the first only", k)
		}
	}
	for _, k := range []string{"POST /api/resources/tenants", "POST /api/client/machines", "GET /api/virt/vms", "DELETE /api/resources/tenants/ten"} {
		if seen[0][k] == 0 {
			t.Errorf("the first URL served no %s; want the setup and cleanup there (%v)", k, seen[0])
		}
	}
}

// TestOpenModelSplitsTheRate: in the open model each URL's workers keep their own
// timetable, at the URL's share of the rate, so a slow URL builds its own backlog
// instead of handing its due requests to the others.
func TestOpenModelSplitsTheRate(t *testing.T) {
	fast := fakeServer(t, slowHandler(0))
	slow := fakeServer(t, slowHandler(50*time.Millisecond))
	rep := run(t, Options{BaseURL: fast + "," + slow, Model: ModelOpen, Rate: 400, Connections: 4, Duration: 500 * time.Millisecond})
	if len(rep.Targets) != 2 {
		t.Fatalf("got %d per-URL reports; want 2", len(rep.Targets))
	}
	f, s := rep.Targets[0], rep.Targets[1]
	if f.Intended != s.Intended || f.Intended+s.Intended != rep.Intended || f.Intended < 90 {
		t.Fatalf("got %d and %d due of %d; want about 100 each, the same: 2 connections each, half the rate each", f.Intended, s.Intended, rep.Intended)
	}
	// The slow one's 2 connections answer at most 40 a second: 22 in 0.5 s, of 100 due,
	// each in 50 ms at least.
	if f.Requests == 0 || s.Latency.MinUS < 50_000 {
		t.Fatalf("got latencies %+v and %+v; want the fast URL's and the slow one's", f.Latency, s.Latency)
	}
	if s.Requests == 0 || s.Requests > 25 || s.Unsent < s.Intended-25 {
		t.Fatalf("got %d sent and %d unsent of %d due on the slow URL; want at most 22 sent, the rest unsent", s.Requests, s.Unsent, s.Intended)
	}
	if !strings.Contains(strings.Join(rep.Hints, "\n"), fmt.Sprintf("%s: %d of its %d due requests never went out", slow, s.Unsent, s.Intended)) {
		t.Fatalf("got hints %q; want one naming the slow URL's backlog", rep.Hints)
	}
}
