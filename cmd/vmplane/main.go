// Command vmplane is the vmplane control plane: `vmplane serve` runs the API server,
// `vmplane version` (or --version) prints the version, `vmplane admin ...` works on a
// server's store, and the client verbs of package cli (`vmplane login`, `vmplane
// machine list`, ...) speak to a server over its API: one cobra command tree (root.go).
// A bare `vmplane`, like `vmplane -h`, prints the overview of the commands: a server
// starts only when asked for by name.
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
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/bench"
	"github.com/vmplane/vmplane/cli"
	"github.com/vmplane/vmplane/persistence"
	"github.com/vmplane/vmplane/sdnotify"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	return execute(cli.Env{Stdin: os.Stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv}, args)
}

// execute runs `vmplane args...` in env and returns the exit status.
func execute(env cli.Env, args []string) int {
	root := newRoot(env)
	return cli.Execute(root, goStyleFlags(root, args), env)
}

// serveCmd is `vmplane serve`: its flags are the settings table's (app.AddFlags), read
// with the configuration file and the environment by app's Load, as before cobra.
func serveCmd(env cli.Env) *cobra.Command {
	c := &cobra.Command{
		Use:   "serve [flags]",
		Short: "run the API server (see 'vmplane serve -h')",
		Long: "Runs the API server: the store, the hypervisor driver, the actors and the HTTP API, until SIGTERM or SIGINT.\n\n" +
			app.SettingsHelp,
		Args:        cobra.ArbitraryArgs, // Load names extra arguments as a configuration error
		Annotations: goFlags,
	}
	settings := settingsFlags(c, env)
	c.RunE = func(_ *cobra.Command, args []string) error {
		cfg, err := settings.Load(args, env.Getenv)
		if err != nil {
			fmt.Fprintf(env.Stderr, "vmplane: %v\n", err)
			return exit(2)
		}
		return exit(serve(cfg.Config, env.Stderr))
	}
	return c
}

// settingsFlags gives c a flag for every setting; a value that does not parse is a
// configuration error (one line, status 2), as a bad environment variable is.
func settingsFlags(c *cobra.Command, env cli.Env) *app.Flags {
	f := app.AddFlags(c.Flags())
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		fmt.Fprintf(env.Stderr, "vmplane: %v\n", app.FlagError(err))
		return exit(2)
	})
	return f
}

// checkCmd is a `check` subcommand that reads the configuration exactly as serve would
// (its flags, environment and file) and hands it to run, whose result is the exit
// status; settings that do not load exit 2 with one line naming what is wrong.
func checkCmd(env cli.Env, c *cobra.Command, run func(app.Loaded) int) *cobra.Command {
	c.Args = cobra.ArbitraryArgs // Load names extra arguments as a configuration error
	c.Annotations = goFlags
	settings := settingsFlags(c, env)
	c.RunE = func(_ *cobra.Command, args []string) error {
		l, err := settings.Load(args, env.Getenv)
		if err != nil {
			fmt.Fprintf(env.Stderr, "vmplane: %v\n", err)
			return exit(2)
		}
		return exit(run(l))
	}
	return c
}

// hashWorkerCmd is the password hashing process serve starts: see
// auth.AuthOptions.HashCommand.
func hashWorkerCmd(env cli.Env) *cobra.Command {
	return &cobra.Command{
		Use:                "hash-worker",
		Short:              "(internal) the password hashing process serve starts",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(*cobra.Command, []string) error {
			if err := auth.ServeHashWorker(env.Stdin, env.Stdout); err != nil {
				fmt.Fprintf(env.Stderr, "vmplane hash-worker: %v\n", err)
				return exit(1)
			}
			return nil
		},
	}
}

// selfCommand is this binary run with args. On Linux, /proc/self/exe is the running
// binary even after an upgrade replaced the file, so a child is never another version.
func selfCommand(args ...string) ([]string, error) {
	exe := "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	return append([]string{exe}, args...), nil
}

// benchBaselineCmd is the bare server `vmplane bench --baseline` starts as a child
// process: see bench.StartBaselineProcess.
func benchBaselineCmd(env cli.Env) *cobra.Command {
	return &cobra.Command{
		Use:                "bench-baseline",
		Short:              "(internal) the bare server vmplane bench --baseline starts",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			if err := bench.ServeBaselineProcess(args, env.Stdin, env.Stdout); err != nil {
				fmt.Fprintf(env.Stderr, "vmplane bench-baseline: %v\n", err)
				return exit(1)
			}
			return nil
		},
	}
}

// serve runs the server with cfg until a signal ends it, and returns the exit status.
func serve(cfg app.Config, stderr io.Writer) int {
	log, err := app.NewLogger(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "vmplane: %v\n", err)
		return 2
	}
	defer log.Sync() //nolint:errcheck // nothing useful to do when stderr is gone
	applySoftMemoryLimit(log)
	defer keepHeapFloor(cfg.HeapFloorMB, log)()

	// Password hashes are computed in child processes at the lowest priority: this
	// binary, as `vmplane hash-worker`.
	if cfg.HashCommand, err = selfCommand("hash-worker"); err != nil {
		log.Warn("cannot find this executable; password hashing runs in this process", zap.Error(err))
	}

	// Under systemd (Type=notify) the state goes to $NOTIFY_SOCKET; read before the
	// hash workers start, so that they do not inherit it.
	notify, err := sdnotify.FromEnv()
	if err != nil {
		log.Warn("systemd notification settings ignored", zap.Error(err))
	}
	_ = notify.Notify(sdnotify.Status("starting: opening the store in %s", cfg.DataDir))

	// The signals are read by hand, not through signal.NotifyContext: the first starts
	// the graceful shutdown, a second one while it runs ends the process at once.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	a, code, err := start(cfg, log, sigs)
	if code >= 0 {
		return code
	}
	if err != nil {
		_ = notify.Notify(sdnotify.Status("cannot start: %v", err))
	}
	var ce *app.ConfigError
	if errors.As(err, &ce) {
		fmt.Fprintf(stderr, "vmplane: %v\n", ce)
		return 2
	}
	// The API's address is taken: one line, status 1, and nothing was written.
	var le *app.ListenError
	if errors.As(err, &le) {
		fmt.Fprintf(stderr, "vmplane: %v\n", le)
		return 1
	}
	// Another process owns the data directory: one line naming it, and status 1 (the
	// configuration is fine; the directory is taken).
	var inUse *persistence.InUseError
	if errors.As(err, &inUse) {
		fmt.Fprintf(stderr, "vmplane: %v\n", inUse)
		return 1
	}
	// A store written by a newer vmplane: one line, and status 2 like a configuration
	// error, since restarting this binary cannot fix it (systemd's
	// RestartPreventExitStatus=2 stops the retries).
	var newer *persistence.NewerSchemaError
	if errors.As(err, &newer) {
		fmt.Fprintf(stderr, "vmplane: data directory %s: %v\n", cfg.DataDir, newer)
		return 2
	}
	if err != nil {
		log.Error("cannot start", zap.Error(err))
		return 1
	}
	// The store is open and the listener accepts: ready.
	if err := notify.Notify("READY=1", sdnotify.Status("serving on %s", a.Addr())); err != nil {
		log.Warn("cannot tell systemd the server is ready", zap.Error(err))
	}
	stopWatchdog := startWatchdog(notify, a.Addr(), log)
	select {
	case sig := <-sigs:
		log.Info("shutting down", zap.Stringer("signal", sig), zap.Duration("timeout", cfg.ShutdownTimeout),
			zap.Duration("hard_deadline", hardDeadline(cfg)))
	case err := <-a.Served():
		log.Error("server stopped", zap.Error(err))
	case <-a.Lost():
		log.Error("leaving", zap.Error(app.ErrLeaseLost))
		stopWatchdog()
		_ = notify.Notify("STOPPING=1", sdnotify.Status("lost the cluster lease"))
		shutdown(a, cfg, log, sigs)
		return 1
	}
	stopWatchdog()
	_ = notify.Notify("STOPPING=1", sdnotify.Status("shutting down"))
	return shutdown(a, cfg, log, sigs)
}

// start starts the server. A signal while it starts (opening a big store, settling
// tasks against a slow hypervisor) is not lost: the start may finish within the hard
// deadline and is then shut down at once; otherwise, or at a second signal, the process
// exits with status 1 (code >= 0 says so; a is nil then).
func start(cfg app.Config, log *zap.Logger, sigs chan os.Signal) (*app.App, int, error) {
	type started struct {
		a   *app.App
		err error
	}
	done := make(chan started, 1)
	go func() {
		if testHookStart != nil {
			testHookStart()
		}
		a, err := app.Start(cfg, log, nil)
		done <- started{a, err}
	}()
	select {
	case r := <-done:
		return r.a, -1, r.err
	case sig := <-sigs:
		log.Info("signal while starting: shutting down once started", zap.Stringer("signal", sig),
			zap.Duration("hard_deadline", hardDeadline(cfg)))
		hard := time.NewTimer(hardDeadline(cfg))
		defer hard.Stop()
		select {
		case r := <-done:
			if r.err != nil {
				return nil, -1, r.err
			}
			select {
			case sigs <- sig: // the shutdown below sees it first
			default: // another signal is pending already
			}
			return r.a, -1, nil
		case sig := <-sigs:
			log.Error("second signal while starting: exiting at once", zap.Stringer("signal", sig))
		case <-hard.C:
			log.Error("the start did not finish within the shutdown deadline: exiting", zap.String("goroutines", goroutines()))
		}
		return nil, 1, nil
	}
}

// stopGrace is how long, after --shutdown-timeout has ended the drain of requests,
// stopping the actors and closing the store may take before the process exits anyway.
const stopGrace = 10 * time.Second

// hardDeadline is how long a shutdown may take in all before the process exits.
func hardDeadline(cfg app.Config) time.Duration { return cfg.ShutdownTimeout + stopGrace }

// testHookShutdown, set only by tests, runs before the graceful shutdown: a hook that
// blocks stands for whatever might hang it.
var testHookShutdown func()

// testHookStart, set only by tests, runs before the server starts: a slow start.
var testHookStart func()

// shutdown stops a gracefully and returns the exit status: 0 when everything stopped
// in time, 1 when the shutdown failed, passed its hard deadline, or was cut short by a
// second signal. The process never outlives the deadline, whatever hangs.
func shutdown(a *app.App, cfg app.Config, log *zap.Logger, sigs <-chan os.Signal) int {
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		if testHookShutdown != nil {
			testHookShutdown()
		}
		done <- a.Shutdown(sctx)
	}()
	hard := time.NewTimer(hardDeadline(cfg))
	defer hard.Stop()
	select {
	case err := <-done:
		if err != nil {
			log.Error("shutdown incomplete", zap.Error(err))
			return 1
		}
		return 0
	case sig := <-sigs:
		log.Error("second signal: exiting at once, without waiting for the shutdown", zap.Stringer("signal", sig),
			zap.String("still_running", a.ShutdownStage()))
		return 1
	case <-hard.C:
		log.Error("shutdown deadline passed: exiting with work still running", zap.Duration("deadline", hardDeadline(cfg)),
			zap.String("still_running", a.ShutdownStage()), zap.String("goroutines", goroutines()))
		return 1
	}
}

// goroutines is the running goroutines grouped by stack (pprof's debug=1 text), cut
// to a size a log line can carry: it is what tells why a shutdown hung.
func goroutines() string {
	var b strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
	const limit = 64 << 10
	if s := b.String(); len(s) > limit {
		return s[:limit] + "\n[cut]"
	}
	return b.String()
}
