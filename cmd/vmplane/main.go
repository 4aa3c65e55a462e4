// Command vmplane is the vmplane control plane: `vmplane serve` runs the API server,
// `vmplane version` (or --version) prints the version, and the client verbs of package
// cli (`vmplane login`, `vmplane machine list`, ...) speak to a server over its API.
// A bare `vmplane`, like `vmplane -h`, prints the overview of the commands: a server
// starts only when asked for by name.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/cli"
	"github.com/vmplane/vmplane/persistence"
	"github.com/vmplane/vmplane/sdnotify"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	env := cli.Env{Stdin: os.Stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv}
	if len(args) == 0 {
		usage(stdout, env)
		return 0
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout, env)
		return 0
	case "--version", "-version":
		return runVersion(args[1:], stdout, stderr)
	}
	if cli.IsGlobalFlag(args[0]) {
		// `vmplane --remote lab machine list`: the client's flags before its command.
		return cli.Execute(commandTree(env), args, env)
	}
	if strings.HasPrefix(args[0], "-") {
		// serve's flags without the command, or a client flag mistyped: a server starts
		// only when named, so that a stray flag never opens ./data and listens on every
		// interface.
		if s := cli.SimilarGlobalFlags(args[0]); len(s) > 0 {
			fmt.Fprintf(stderr, "vmplane: unknown flag %s; did you mean %s?\n", args[0], strings.Join(s, " or "))
		} else {
			fmt.Fprintf(stderr, "vmplane: %s: a command comes first (see 'vmplane help'); to run the server: vmplane serve %s\n",
				args[0], strings.Join(args, " "))
		}
		return 2
	}
	cmd, args := args[0], args[1:]
	if code, ok := runServerCommand(cmd, args, stdout, stderr); ok {
		return code
	}
	if cmd == "help" && len(args) == 0 {
		usage(stdout, env)
		return 0
	}
	// Everything else is the command-line client's (and cobra's own completion and
	// help commands); an unknown command is a usage error there.
	return cli.Execute(commandTree(env), append([]string{cmd}, args...), env)
}

// serverCommands are the commands of the server binary proper, with their one-line
// help; they keep their own flag parsing, outside the client's command tree.
var serverCommands = []struct{ name, short string }{
	{"serve", "run the API server (see 'vmplane serve -h')"},
	{"bench", "load a running server and report latencies (see 'vmplane bench -h')"},
	{"proxmox", "proxmox check: test the connection to Proxmox VE and the API token's privileges"},
	{"config", "config check: validate the configuration (--config FILE, environment, flags) and print it, secrets masked"},
	{"admin", "admin reset-password: set a user's password in the data directory of a stopped server"},
	{"backup", "save a running server's store to a file (--url URL --out FILE, token in VMPLANE_TOKEN)"},
	{"restore", "load a backup into an empty data directory (restore FILE --data-dir DIR)"},
	{"version", "print the version, commit, build date and Go version (--json: as JSON)"},
}

// runServerCommand runs cmd when it is one of the server's commands; ok reports
// whether it was.
func runServerCommand(cmd string, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	switch cmd {
	case "serve":
		return serve(args, stderr), true
	case "bench":
		return runBench(args, os.Getenv, stdout, stderr), true
	case "proxmox":
		return runProxmox(args, os.Getenv, stdout, stderr), true
	case "config":
		return runConfig(args, os.Getenv, stdout, stderr), true
	case "admin":
		return runAdmin(args, os.Getenv, os.Stdin, stdout, stderr), true
	case "backup":
		// Two commands share the name, as the issues ask: `vmplane backup list|show|delete`
		// are the client's verbs for machines' backups; `vmplane backup --out FILE` (flags
		// only) saves a running server's store.
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			return 0, false
		}
		return runBackup(args, os.Getenv, stdout, stderr), true
	case "restore":
		return runRestore(args, os.Getenv, stdout, stderr), true
	case "version":
		return runVersion(args, stdout, stderr), true
	case "hash-worker":
		// Started by serve: see auth.AuthOptions.HashCommand.
		if err := auth.ServeHashWorker(os.Stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "vmplane hash-worker: %v\n", err)
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// commandTree is the client's command tree with the server's commands added, so
// that `vmplane help` and shell completion know them too. They run here only when
// reached through the tree, which run never does: it runs them first, by name.
func commandTree(env cli.Env) *cobra.Command {
	root := cli.New(env)
	for _, sc := range serverCommands {
		name := sc.name
		if own, _, err := root.Find([]string{name}); err == nil && own != root {
			// The client has a command of this name (backup): its help names the
			// server's form too.
			own.Long = own.Short + ".\n\nWith flags only, 'vmplane " + name + "' is the server's command: " + sc.short +
				" (see 'vmplane " + name + " -h')."
			continue
		}
		c := &cobra.Command{
			Use:                name,
			Short:              sc.short,
			DisableFlagParsing: true,
			RunE: func(_ *cobra.Command, args []string) error {
				code, _ := runServerCommand(name, args, env.Stdout, env.Stderr)
				if code != 0 {
					return cli.ExitError{Code: code}
				}
				return nil
			},
		}
		// `vmplane help serve` shows serve's own help, flags and all.
		c.SetHelpFunc(func(*cobra.Command, []string) { runServerCommand(name, []string{"-h"}, env.Stdout, env.Stderr) })
		root.AddCommand(c)
	}
	return root
}

func usage(w io.Writer, env cli.Env) {
	fmt.Fprint(w, `Usage: vmplane COMMAND [flags]

Commands:
  serve     run the API server (see 'vmplane serve -h')
  bench     load a running server and report latencies (see 'vmplane bench -h')
  proxmox check
            test the connection to Proxmox VE and the API token's privileges
  config check
            validate the configuration (--config FILE, environment, flags) and print it, secrets masked
  admin reset-password
            set a user's password in the data directory of a stopped server
  backup    save a running server's store to a file (--url URL --out FILE, token in VMPLANE_TOKEN)
  restore   load a backup into an empty data directory (restore FILE --data-dir DIR)
  version   print the version, commit, build date and Go version (--json: as JSON)
  hash-worker
            (internal) the password hashing process serve starts

Client commands (they talk to a server: see 'vmplane help COMMAND'):
`)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range cli.New(env).Commands() {
		if c.IsAvailableCommand() {
			fmt.Fprintf(tw, "  %s\t%s\n", c.Name(), c.Short)
		}
	}
	_ = tw.Flush()
	fmt.Fprint(w, "\nGlobal flags of the client commands: --remote, --url, --token, --tenant, -o table|json|yaml\n"+
		"vmplane -h (or help) prints this overview; vmplane --version the version.\n")
}

func serve(args []string, stderr io.Writer) int {
	cfg, err := app.Parse(args, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "vmplane: %v\n", err)
		return 2
	}
	log, err := app.NewLogger(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "vmplane: %v\n", err)
		return 2
	}
	defer log.Sync() //nolint:errcheck // nothing useful to do when stderr is gone

	// Password hashes are computed in child processes at the lowest priority: this
	// binary, as `vmplane hash-worker`. On Linux, /proc/self/exe is the running binary
	// even after an upgrade replaced the file, so a child is never another version.
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		cfg.HashCommand = []string{"/proc/self/exe", "hash-worker"}
	} else if exe, err := os.Executable(); err == nil {
		cfg.HashCommand = []string{exe, "hash-worker"}
	} else {
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
