package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vmplane/vmplane/bench"
	"github.com/vmplane/vmplane/cli"
)

// benchFlags is everything `vmplane bench` reads besides bench.Options.
type benchFlags struct {
	json             bool
	progress         bool
	baseline         bool
	baselineBodyFrom string
	baselineInProc   bool
	baselineDir      string
	wrk              string
	wrkThreads       int
	cpuProfile       string
}

// benchEnvPrefix prefixes the environment variable of every flag: --admin-password
// is also VMPLANE_BENCH_ADMIN_PASSWORD.
const benchEnvPrefix = "VMPLANE_BENCH_"

func benchEnvName(flagName string) string {
	return benchEnvPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// benchSetup is what `vmplane bench` reads: its flags, parsed into o and f.
type benchSetup struct {
	o  bench.Options
	f  benchFlags
	fs *pflag.FlagSet
}

// newBenchSetup makes the flags of `vmplane bench`.
func newBenchSetup() *benchSetup {
	b := &benchSetup{o: bench.DefaultOptions()}
	o, f := &b.o, &b.f
	fs := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	b.fs = fs
	fs.StringVar(&o.BaseURL, "url", o.BaseURL, "base URL of the server under load; or several, comma-separated (the members of one\n"+
		"cluster): the connections are dealt out round-robin, the setup uses the first, the\nreport adds a breakdown per URL")
	fs.StringVar(&o.Scenario, "scenario", o.Scenario, "workload: "+strings.Join(bench.Scenarios(), ", ")+
		"\n(health: GET /api/health; read: a tenant's machine list, one machine, overview; power: operator power\n"+
		"actions over many machines; write: firewall rules as a tenant; login: a login storm from one address;\nmix: --mix weights of the others)")
	fs.StringVar(&o.Model, "model", o.Model, "load model: closed (--connections in flight, as fast as answers come) or\nopen (a constant --rate; latency measured from when each request was due)")
	fs.Float64Var(&o.Rate, "rate", o.Rate, "requests per second of the open model")
	fs.IntVar(&o.Connections, "connections", o.Connections, "connections (one worker each)")
	fs.DurationVar(&o.Duration, "duration", o.Duration, "measured phase")
	fs.DurationVar(&o.Warmup, "warmup", o.Warmup, "warm-up before the measured phase; its results are discarded")
	fs.DurationVar(&o.Timeout, "timeout", o.Timeout, "timeout of each request (at most 1m)")
	fs.Int64Var(&o.MaxRequests, "requests", o.MaxRequests, "end the measured phase after this many requests (0: only --duration)")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "seed of the random choice of requests")
	fs.IntVar(&o.Procs, "procs", o.Procs, "GOMAXPROCS of the harness during the load (0: Go's default, every CPU); fewer\ncosts less CPU per request but turns answers around more slowly")
	fs.IntVar(&o.Tenants, "tenants", o.Tenants, "tenants (one user each) that read and write create")
	fs.IntVar(&o.Machines, "machines", o.Machines, "machines per tenant that read and write create")
	fs.StringVar(&o.TemplateID, "template", o.TemplateID, "OS template of created machines (default: the first the server lists)")
	fs.StringVar(&o.Mix, "mix", o.Mix, "weights of the mix scenario over read, power, write, login, health")
	fs.StringVar(&o.ReadWeights, "read-weights", o.ReadWeights, "weights of the read scenario's requests")
	fs.StringVar(&o.PowerActions, "power-actions", o.PowerActions, "actions of the power scenario")
	fs.IntVar(&o.PowerMachines, "power-machines", o.PowerMachines, "at most this many machines take the power actions")
	fs.StringVar(&o.LoginEmail, "login-email", o.LoginEmail, "account the login storm uses (default: unknown addresses with a wrong password)")
	fs.StringVar(&o.LoginPassword, "login-password", o.LoginPassword, "password of --login-email")
	fs.IntVar(&o.LoginEmails, "login-emails", o.LoginEmails, "unknown addresses the login storm rotates over")
	fs.StringVar(&o.AdminEmail, "admin-email", o.AdminEmail, "e-mail of the admin that sets scenarios up (also VMPLANE_ADMIN_EMAIL)")
	fs.StringVar(&o.AdminPassword, "admin-password", o.AdminPassword, "password of that admin (also VMPLANE_ADMIN_PASSWORD)")
	fs.DurationVar(&o.SetupTimeout, "setup-timeout", o.SetupTimeout, "bound of the setup phase")
	fs.DurationVar(&o.CleanupTimeout, "cleanup-timeout", o.CleanupTimeout, "bound of the cleanup phase")
	fs.BoolVar(&o.Keep, "keep", o.Keep, "leave what the setup and the run created on the server")
	fs.BoolVar(&f.json, "json", false, "print the report as JSON")
	fs.BoolVar(&f.progress, "progress", false, "live progress line on stderr (when not given: on when stderr is a terminal and not --json)")
	fs.BoolVar(&f.baseline, "baseline", false, "also run a baseline, with the same connections, and report the ratio: the health scenario\n"+
		"against a bare fasthttp server in a child process (one, however many --url); for --scenario write, the naive\n"+
		"durable writes instead: one goroutine per connection, each write one Badger transaction with\nSyncWrites (256-byte values, no HTTP), for the same warm-up and duration, before the run")
	fs.BoolVar(&f.baselineInProc, "baseline-in-process", false, "run the bare server of --baseline inside this process instead of a child process (one\nGo scheduler for both ends: an easier baseline than a server in a process of its own)")
	fs.StringVar(&f.baselineDir, "baseline-dir", "", "directory under which the write baseline makes (and removes) its store; give one on the\nserver's disk (default: the system's temporary directory)")
	fs.StringVar(&f.baselineBodyFrom, "baseline-body-from", "", "URL whose body the baseline server answers (default: {\"status\":\"ok\"})")
	fs.StringVar(&f.wrk, "wrk", "", "path of wrk: after the run, run it with the same connections and duration on\n/api/health and report the ratio (health scenario and one --url only)")
	fs.IntVar(&f.wrkThreads, "wrk-threads", 2, "wrk threads")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the harness itself to this file (go tool pprof)")
	return b
}

// finish reads the environment into the flags not given: each flag falls back to its
// VMPLANE_BENCH_* variable, and the admin's credentials also to the server's own
// VMPLANE_ADMIN_EMAIL and VMPLANE_ADMIN_PASSWORD. Then it checks the whole; args are
// the positional arguments, of which there must be none.
func (b *benchSetup) finish(args []string, getenv func(string) string, stderr io.Writer) error {
	o, f, fs := &b.o, &b.f, b.fs
	fallback := map[string]string{"admin-email": "VMPLANE_ADMIN_EMAIL", "admin-password": "VMPLANE_ADMIN_PASSWORD"}
	var err error
	fs.VisitAll(func(fl *pflag.Flag) {
		if err != nil || fl.Changed {
			return
		}
		name := benchEnvName(fl.Name)
		v := getenv(name)
		if v == "" && fallback[fl.Name] != "" {
			name = fallback[fl.Name]
			v = getenv(name)
		}
		if v == "" {
			return
		}
		if serr := fl.Value.Set(v); serr != nil {
			err = fmt.Errorf("%s=%q: %v", name, v, serr)
		}
	})
	if err != nil {
		return err
	}
	if len(args) > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(args, " "))
	}
	progressSet := getenv(benchEnvName("progress")) != "" || fs.Changed("progress")
	if !progressSet {
		f.progress = !f.json && isTerminal(stderr)
	}
	if f.wrk != "" && o.Scenario != "health" {
		return errors.New("--wrk compares on the health scenario only")
	}
	if f.wrk != "" && strings.Contains(o.BaseURL, ",") {
		// wrk loads one URL; several wrk processes side by side would share the CPUs
		// differently from the harness and give no percentiles of the whole.
		return errors.New("--wrk compares against one --url (wrk loads one URL): give one member's URL, or the load balancer's")
	}
	return o.Validate()
}

func isTerminal(w io.Writer) bool {
	file, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := file.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// benchCmd is `vmplane bench`.
func benchCmd(env cli.Env) *cobra.Command {
	b := newBenchSetup()
	c := &cobra.Command{
		Use:         "bench [flags]",
		Short:       "load a running server and report latencies (see 'vmplane bench -h')",
		Long:        "Loads a running vmplane server. Every flag also reads VMPLANE_BENCH_<FLAG>; the flag wins.",
		Annotations: goFlags,
		RunE: func(_ *cobra.Command, args []string) error {
			return exit(runBench(b, args, env.Getenv, env.Stdout, env.Stderr))
		},
	}
	c.Flags().AddFlagSet(b.fs)
	return c
}

// runBench runs the load b's flags describe and returns the exit status.
func runBench(b *benchSetup, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if err := b.finish(args, getenv, stderr); err != nil {
		fmt.Fprintf(stderr, "vmplane bench: %v\n", err)
		return 2
	}
	o, f := b.o, b.f
	if f.progress {
		o.Progress = stderr
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(pf)
		}
		if err != nil {
			fmt.Fprintf(stderr, "vmplane bench: --cpuprofile: %v\n", err)
			return 2
		}
		defer func() {
			pprof.StopCPUProfile()
			pf.Close()
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second interrupt ends the process, cleanup or not
	}()

	var base *bench.Report
	if f.baseline {
		r, err := runBaseline(ctx, o, f)
		if err != nil {
			fmt.Fprintf(stderr, "vmplane bench: baseline: %v\n", err)
			return 1
		}
		base = &r
	}
	rep, err := bench.Run(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "vmplane bench: %v\n", err)
		return 1
	}
	if base != nil {
		rep.Baseline = base
		if base.Throughput > 0 {
			rep.BaselineRatio = rep.Throughput / base.Throughput
		}
	}
	if f.wrk != "" && ctx.Err() == nil {
		url := strings.TrimRight(o.BaseURL, "/") + "/api/health"
		if o.Progress != nil {
			fmt.Fprintf(stderr, "running wrk on %s for %s ...\n", url, o.Duration)
		}
		w, err := bench.RunWrk(ctx, f.wrk, url, o.Connections, f.wrkThreads, o.Duration, o.Timeout)
		if err != nil {
			fmt.Fprintf(stderr, "vmplane bench: wrk: %v\n", err)
			return 1
		}
		rep.Wrk = &w
		if w.Throughput > 0 {
			rep.WrkRatio = rep.Throughput / w.Throughput
		}
	}
	if f.json {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "vmplane bench: %v\n", err)
		return 1
	}
	return 0
}

// runBaseline runs the health scenario, with the same load, against a bare fasthttp
// server in a child process (this binary's `bench-baseline`), or in this process with
// --baseline-in-process.
// For the write scenario it runs the naive synced writes instead (bench.RunSyncedWrites).
func runBaseline(ctx context.Context, o bench.Options, f benchFlags) (bench.Report, error) {
	if o.Scenario == "write" {
		return bench.RunSyncedWrites(ctx, f.baselineDir, o.Connections, o.Warmup, o.Duration)
	}
	body, ctype := []byte(`{"status":"ok"}`), "application/json"
	if f.baselineBodyFrom != "" {
		var err error
		if body, ctype, err = bench.FetchBody(f.baselineBodyFrom, 10*time.Second); err != nil {
			return bench.Report{}, err
		}
	}
	var b *bench.Baseline
	var err error
	if f.baselineInProc {
		b, err = bench.StartBaseline(body, ctype)
	} else {
		var command []string
		if command, err = selfCommand("bench-baseline"); err != nil {
			return bench.Report{}, fmt.Errorf("cannot find this executable to start the bare server (%w); give --baseline-in-process", err)
		}
		b, err = bench.StartBaselineProcess(command, body, ctype)
	}
	if err != nil {
		return bench.Report{}, err
	}
	defer b.Close() //nolint:errcheck // the report is what matters here
	bo := o
	bo.BaseURL, bo.Scenario = b.URL, "health"
	if f.baselineInProc {
		bo.Procs = 0 // the bare server runs in this process and needs the CPUs too
	}
	return bench.Run(ctx, bo)
}
