// Command vmplane is the vmplane control plane: `vmplane serve` (the default) runs the
// API server, `vmplane version` prints the version.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/app"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stderr)
	case "bench":
		return runBench(args, os.Getenv, stdout, stderr)
	case "version":
		fmt.Fprintf(stdout, "vmplane %s\n", app.Version)
		return 0
	case "hash-worker":
		// Started by serve: see actors.AuthOptions.HashCommand.
		if err := actors.ServeHashWorker(os.Stdin, stdout); err != nil {
			fmt.Fprintf(stderr, "vmplane hash-worker: %v\n", err)
			return 1
		}
		return 0
	case "help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "vmplane: unknown command %q\n\n", cmd)
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: vmplane [command] [flags]

Commands:
  serve     run the API server (the default; see 'vmplane serve -h')
  bench     load a running server and report latencies (see 'vmplane bench -h')
  version   print the version
  hash-worker
            (internal) the password hashing process serve starts
`)
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

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	a, err := app.Start(cfg, log, nil)
	if err != nil {
		log.Error("cannot start", zap.Error(err))
		return 1
	}
	select {
	case <-ctx.Done():
		log.Info("shutting down", zap.Duration("timeout", cfg.ShutdownTimeout))
	case err := <-a.Served():
		log.Error("server stopped", zap.Error(err))
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := a.Shutdown(sctx); err != nil {
		log.Error("shutdown", zap.Error(err))
		return 1
	}
	return 0
}
