package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/cli"
)

// versionInfo is what `vmplane version --json` prints: the values `make dist` stamps
// into the binary, and the Go release it was built with.
type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Go      string `json:"go"`
}

// versionCmd is `vmplane version [--json]` (also `vmplane --version`).
func versionCmd(env cli.Env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:         "version [--json]",
		Short:       "print the version, commit, build date and Go version (--json: as JSON)",
		Annotations: goFlags,
		RunE: func(_ *cobra.Command, args []string) error {
			return exit(runVersion(asJSON, args, env.Stdout, env.Stderr))
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, `print {"version","commit","date","go"} as JSON`)
	return c
}

// runVersion prints the version; args are what follows `vmplane --version` (or the
// arguments left after version's flags): only --json may be there.
func runVersion(asJSON bool, args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "--json" || a == "-json" {
			asJSON = true
			continue
		}
		fmt.Fprintf(stderr, "vmplane version: unexpected arguments %q\n", args)
		return 2
	}
	v := versionInfo{Version: app.Version, Commit: app.Commit, Date: app.Date, Go: runtime.Version()}
	if asJSON {
		b, _ := json.Marshal(v) // four strings: cannot fail
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintf(stdout, "vmplane %s (commit %s, built %s, %s)\n", v.Version, v.Commit, v.Date, v.Go)
	return 0
}
