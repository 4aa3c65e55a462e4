package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/bench"
	"github.com/vmplane/vmplane/cli"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// parseBench parses args as `vmplane bench` would, in the environment getenv.
func parseBench(args []string, getenv func(string) string, stderr io.Writer) (bench.Options, benchFlags, error) {
	b := newBenchSetup()
	if err := b.fs.Parse(args); err != nil {
		return b.o, b.f, err
	}
	err := b.finish(b.fs.Args(), getenv, stderr)
	return b.o, b.f, err
}

func TestParseBenchFlagsAndEnvironment(t *testing.T) {
	var stderr bytes.Buffer
	o, f, err := parseBench([]string{"--scenario", "power", "--connections", "8", "--json"},
		env(map[string]string{
			"VMPLANE_BENCH_CONNECTIONS":    "64", // the flag wins
			"VMPLANE_BENCH_DURATION":       "3s",
			"VMPLANE_BENCH_ADMIN_PASSWORD": "from-bench-env",
			"VMPLANE_ADMIN_PASSWORD":       "from-server-env", // the bench's own variable wins
			"VMPLANE_ADMIN_EMAIL":          "ops@example.test",
		}), &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if o.Scenario != "power" || o.Connections != 8 || o.Duration != 3*time.Second {
		t.Fatalf("got scenario %q, %d connections, %s; want power, 8, 3s", o.Scenario, o.Connections, o.Duration)
	}
	if o.AdminPassword != "from-bench-env" || o.AdminEmail != "ops@example.test" {
		t.Fatalf("got admin %q / %q; want ops@example.test / from-bench-env", o.AdminEmail, o.AdminPassword)
	}
	if !f.json || f.progress {
		t.Fatalf("got json %v, progress %v; want JSON and no progress line", f.json, f.progress)
	}

	_, f, err = parseBench([]string{"--progress"}, env(nil), &stderr)
	if err != nil || !f.progress {
		t.Fatalf("got progress %v, %v; want it on when asked", f.progress, err)
	}
	_, _, err = parseBench(nil, env(map[string]string{"VMPLANE_BENCH_RATE": "fast"}), &stderr)
	if err == nil || !strings.Contains(err.Error(), `VMPLANE_BENCH_RATE="fast"`) {
		t.Fatalf("got error %v; want one naming VMPLANE_BENCH_RATE", err)
	}
	_, _, err = parseBench([]string{"--scenario", "read", "--wrk", "/usr/bin/wrk"}, env(nil), &stderr)
	if err == nil {
		t.Fatalf("got no error for --wrk with the read scenario; want one")
	}
}

// TestBenchCommandJSON: a run with --baseline reports both runs and their ratio; the
// bare server is a child process (this test binary as `vmplane bench-baseline`).
func TestBenchCommandJSON(t *testing.T) {
	t.Setenv("VMPLANE_TEST_MAIN", "1") // the child runs run(), not the tests
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	b, err := bench.StartBaseline([]byte(`{"status":"ok"}`), "application/json")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var stdout, stderr bytes.Buffer
	code := run([]string{"bench", "--url", b.URL, "--duration", "300ms", "--warmup", "0s", "--connections", "2", "--json", "--baseline"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("got exit %d (stderr %s); want 0", code, stderr.String())
	}
	var rep struct {
		Scenario      string  `json:"scenario"`
		Requests      int64   `json:"requests"`
		BaselineRatio float64 `json:"baseline_ratio"`
		Baseline      *struct {
			Requests int64 `json:"requests"`
		} `json:"baseline"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("decode %s: %v", stdout.String(), err)
	}
	if rep.Scenario != "health" || rep.Requests == 0 || rep.Baseline == nil || rep.Baseline.Requests == 0 || rep.BaselineRatio <= 0 {
		t.Fatalf("got %s; want a health run with a baseline and a ratio", stdout.String())
	}
}

func TestBenchCommandErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bench", "--url", url, "--duration", "1s"}, &stdout, &stderr); code != 1 {
		t.Fatalf("got exit %d; want 1", code)
	}
	if want := "vmplane bench: cannot reach " + url + ": connection refused\n"; stderr.String() != want {
		t.Fatalf("got stderr %q; want %q", stderr.String(), want)
	}
	stderr.Reset()
	if code := run([]string{"bench", "--model", "sideways"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), `unknown model "sideways"`) {
		t.Fatalf("got exit %d, stderr %q; want 2 and the unknown model", code, stderr.String())
	}
}

// TestParseBenchURLs: --url and VMPLANE_BENCH_URL take a comma-separated list; a bad
// entry is one clear line and exit 2; --wrk takes one URL.
func TestParseBenchURLs(t *testing.T) {
	var stderr bytes.Buffer
	const two = "http://10.0.0.1:8080,http://10.0.0.2:8080"
	o, _, err := parseBench(nil, env(map[string]string{"VMPLANE_BENCH_URL": two}), &stderr)
	if err != nil || o.BaseURL != two {
		t.Fatalf("got URL %q, %v; want %q from the environment", o.BaseURL, err, two)
	}
	o, _, err = parseBench([]string{"--url", "http://a:1, http://b:1 ,http://c:1"}, env(map[string]string{"VMPLANE_BENCH_URL": two}), &stderr)
	if err != nil || o.BaseURL != "http://a:1, http://b:1 ,http://c:1" {
		t.Fatalf("got URL %q, %v; want the flag's list", o.BaseURL, err)
	}
	_, _, err = parseBench([]string{"--url", two, "--wrk", "/usr/bin/wrk"}, env(nil), &stderr)
	if err == nil || !strings.Contains(err.Error(), "--wrk compares against one --url") {
		t.Fatalf("got error %v; want --wrk refused with several URLs", err)
	}

	bad := func(args []string, envs map[string]string, want string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := execute(cli.Env{Stdout: &stdout, Stderr: &stderr, Getenv: env(envs)}, append([]string{"bench"}, args...))
		if code != 2 || stderr.String() != "vmplane bench: "+want+"\n" {
			t.Fatalf("%v %v: got exit %d, stderr %q; want 2 and %q", args, envs, code, stderr.String(), want)
		}
	}
	bad([]string{"--url", "http://a:1,ftp://b"}, nil, `--url "ftp://b": want an http:// or https:// URL`)
	bad(nil, map[string]string{"VMPLANE_BENCH_URL": "http://a:1,,http://b:1"}, `--url "http://a:1,,http://b:1": an empty URL in the list`)
	bad([]string{"--url", "http://a:1,http://a:1"}, nil, "--url: http://a:1 given twice")
	bad([]string{"--url", "http://a:1,http://b:1,http://c:1", "--connections", "2"}, nil,
		"--connections 2 leaves some of the 3 URLs without a connection: give at least one per URL")
}

// TestBenchCommandSeveralURLs: the JSON report of a run over two URLs has the per-URL
// part; the baseline is one bare server with all the connections, so it has none. It
// runs in the harness's process here (--baseline-in-process).
func TestBenchCommandSeveralURLs(t *testing.T) {
	var urls []string
	for range 2 {
		b, err := bench.StartBaseline([]byte(`{"status":"ok"}`), "application/json")
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		urls = append(urls, b.URL)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"bench", "--url", strings.Join(urls, ","), "--duration", "300ms", "--warmup", "0s", "--connections", "3", "--json", "--baseline", "--baseline-in-process"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("got exit %d (stderr %s); want 0", code, stderr.String())
	}
	type target struct {
		URL         string `json:"url"`
		Connections int    `json:"connections"`
		Requests    int64  `json:"requests"`
	}
	var rep struct {
		Target   string   `json:"target"`
		Requests int64    `json:"requests"`
		Targets  []target `json:"targets"`
		Baseline *struct {
			Connections int      `json:"connections"`
			Targets     []target `json:"targets"`
		} `json:"baseline"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("decode %s: %v", stdout.String(), err)
	}
	if rep.Target != strings.Join(urls, ",") || len(rep.Targets) != 2 || rep.Targets[0].Connections != 2 || rep.Targets[1].Connections != 1 ||
		rep.Targets[0].Requests == 0 || rep.Targets[1].Requests == 0 || rep.Targets[0].Requests+rep.Targets[1].Requests != rep.Requests {
		t.Fatalf("got %s; want both URLs, 2 and 1 connections, requests on each summing to the total", stdout.String())
	}
	if rep.Baseline == nil || rep.Baseline.Connections != 3 || rep.Baseline.Targets != nil {
		t.Fatalf("got baseline %+v; want one bare server with the 3 connections", rep.Baseline)
	}
}
