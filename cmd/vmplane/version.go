package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"

	"github.com/vmplane/vmplane/app"
)

// versionInfo is what `vmplane version --json` prints: the values `make dist` stamps
// into the binary, and the Go release it was built with.
type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Go      string `json:"go"`
}

// runVersion runs `vmplane version [--json]`.
func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, `print {"version","commit","date","go"} as JSON`)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "vmplane version: unexpected arguments %q\n", fs.Args())
		return 2
	}
	v := versionInfo{Version: app.Version, Commit: app.Commit, Date: app.Date, Go: runtime.Version()}
	if *asJSON {
		b, _ := json.Marshal(v) // four strings: cannot fail
		fmt.Fprintf(stdout, "%s\n", b)
		return 0
	}
	fmt.Fprintf(stdout, "vmplane %s (commit %s, built %s, %s)\n", v.Version, v.Commit, v.Date, v.Go)
	return 0
}
