package bench_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/app/apptest"
	"github.com/vmplane/vmplane/bench"
)

// startMembers starts n real vmplane servers from apptest, each over its own Badger
// store: separate single-node servers, not a cluster, which is enough to see where
// the harness sends its requests and how it reports them.
func startMembers(t *testing.T, n int) []string {
	t.Helper()
	var bases []string
	for range n {
		s, err := apptest.Start(t.TempDir())
		if err != nil {
			t.Fatalf("start: %v", err)
		}
		t.Cleanup(func() {
			if err := s.Stop(); err != nil {
				t.Errorf("stop: %v", err)
			}
		})
		bases = append(bases, s.Base)
	}
	return bases
}

// served is how many requests a server counted on route with method (its
// vmplane_http_requests_total at /metrics, summed over statuses). The server counts a
// request before it writes the answer, so a request the harness saw answered is in it.
func served(t *testing.T, base, method, route string) int64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatalf("GET %s/metrics: %v", base, err)
	}
	defer resp.Body.Close()
	var n int64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "vmplane_http_requests_total{") ||
			!strings.Contains(line, `method="`+method+`"`) || !strings.Contains(line, `route="`+route+`"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		n += int64(v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// memberOpts is a short run over several URLs, without warm-up, so that every request
// a server counts is either the harness's reachability check, the setup's, or one
// the report counts.
func memberOpts(bases []string, scenario string) bench.Options {
	o := opts(strings.Join(bases, ","), scenario)
	o.Warmup, o.Connections = 0, 5
	o.MaxRequests, o.Duration = 400, time.Minute // a count, not a time: each URL gets some however loaded the machine
	return o
}

// checkTargets checks the per-URL breakdown against the totals and against what each
// server counted: 3 and 2 connections over 5, no errors, and every request reported
// for a URL served by that URL's server (plus extra, the requests before the load).
func checkTargets(t *testing.T, rep bench.Report, bases []string, method, route string, extra []int64) {
	t.Helper()
	if rep.Target != strings.Join(bases, ",") {
		t.Fatalf("got target %q; want %q", rep.Target, strings.Join(bases, ","))
	}
	if len(rep.Targets) != len(bases) {
		t.Fatalf("got %d per-URL reports; want %d", len(rep.Targets), len(bases))
	}
	var sum, conns int64
	for i, tr := range rep.Targets {
		if tr.URL != bases[i] {
			t.Errorf("per-URL report %d is for %s; want %s (the order of --url)", i, tr.URL, bases[i])
		}
		if want := []int{3, 2}[i]; tr.Connections != want {
			t.Errorf("%s: got %d connections; want %d of 5, round-robin", tr.URL, tr.Connections, want)
		}
		if tr.Requests == 0 || tr.Errors != 0 || len(tr.ErrorsByClass) != 0 || tr.Latency.Count != tr.Requests {
			t.Errorf("%s: got %d requests, %d errors %v, %d latencies; want some, none, and one latency each",
				tr.URL, tr.Requests, tr.Errors, tr.ErrorsByClass, tr.Latency.Count)
		}
		if tr.Throughput <= 0 || tr.Latency.P50US <= 0 || tr.Latency.P99US < tr.Latency.P50US {
			t.Errorf("%s: got throughput %v, latency %+v; want figures", tr.URL, tr.Throughput, tr.Latency)
		}
		if got := served(t, bases[i], method, route); got != tr.Requests+extra[i] {
			t.Errorf("%s served %d × %s %s; want the %d the report gives it and %d before the load",
				tr.URL, got, method, route, tr.Requests, extra[i])
		}
		sum += tr.Requests
		conns += int64(tr.Connections)
	}
	if sum != rep.Requests || conns != int64(rep.Connections) || rep.Errors != 0 {
		t.Fatalf("got %d requests over %d connections per URL, %d and %d in total, %d errors; want the sums to match, no errors",
			sum, conns, rep.Requests, rep.Connections, rep.Errors)
	}
}

// TestHealthSpreadOverTwoServers: each connection is pinned to one URL, round-robin,
// and the report splits the figures by URL; each server served exactly its share.
func TestHealthSpreadOverTwoServers(t *testing.T) {
	bases := startMembers(t, 2)
	rep, err := bench.Run(context.Background(), memberOpts(bases, "health"))
	if err != nil {
		t.Fatal(err)
	}
	// Each server also answered the harness's reachability check.
	checkTargets(t, rep, bases, "GET", "/api/health", []int64{1, 1})

	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Target  string `json:"target"`
		Targets []struct {
			URL           string           `json:"url"`
			Connections   int              `json:"connections"`
			Requests      int64            `json:"requests"`
			Throughput    float64          `json:"throughput_rps"`
			ErrorsByClass map[string]int64 `json:"errors_by_class"`
			Latency       struct {
				P99US int64 `json:"p99_us"`
			} `json:"latency"`
			Statuses map[string]int64 `json:"statuses"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Targets) != 2 || doc.Targets[1].URL != bases[1] || doc.Targets[1].Statuses["200"] != doc.Targets[1].Requests ||
		doc.Targets[0].Latency.P99US == 0 || doc.Targets[0].ErrorsByClass == nil {
		t.Fatalf("got JSON %s; want targets with url, statuses, latency and errors_by_class", buf.String())
	}
	buf.Reset()
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, b := range bases {
		if !strings.Contains(buf.String(), "\n  "+b+" ") {
			t.Errorf("got text\n%s\nwant a row for %s", buf.String(), b)
		}
	}
}

// TestLoginStormSpreadOverTwoServers: login workers log in on their own URL; the setup
// (one login, to check the route) talks to the first only.
func TestLoginStormSpreadOverTwoServers(t *testing.T) {
	bases := startMembers(t, 2)
	rep, err := bench.Run(context.Background(), memberOpts(bases, "login"))
	if err != nil {
		t.Fatal(err)
	}
	checkTargets(t, rep, bases, "POST", "/api/auth/login", []int64{1, 0})
	for _, tr := range rep.Targets {
		if tr.Outcomes["allowed"] != tr.Requests || tr.Statuses["401 invalid_credentials"] != tr.Requests {
			t.Errorf("%s: got statuses %v; want only 401 invalid_credentials (unknown addresses)", tr.URL, tr.Statuses)
		}
	}
}

// TestUnrelatedServersAreRefused: the setup logs in on the first URL; a second URL
// that does not take its token (a separate server, not a member of the same cluster)
// ends the run before the load with an error that says so.
func TestUnrelatedServersAreRefused(t *testing.T) {
	bases := startMembers(t, 2)
	_, err := bench.Run(context.Background(), memberOpts(bases, "power"))
	want := fmt.Sprintf("%s refused the admin token %s issued (GET /api/auth/me answered 401): several --url must be members of one cluster, which take each other's tokens", bases[1], bases[0])
	if err == nil || err.Error() != want {
		t.Fatalf("got error %v; want %q", err, want)
	}
}

// TestOneMemberDownIsClear: every URL is checked before the load.
func TestOneMemberDownIsClear(t *testing.T) {
	bases := startMembers(t, 1)
	o := memberOpts(append(bases, "http://127.0.0.1:1"), "health")
	_, err := bench.Run(context.Background(), o)
	if want := "cannot reach http://127.0.0.1:1: connection refused"; err == nil || err.Error() != want {
		t.Fatalf("got error %v; want %q", err, want)
	}
}
