package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/vmplane/vmplane/app"
)

// runConfig runs `vmplane config check [--config FILE] [serve's flags]`: it reads the
// configuration exactly as serve would (file, environment, flags), and prints every
// effective setting with where it came from, secrets masked. Exit status: 0 valid, 2
// not (one line naming the setting, the value and the file).
func runConfig(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprint(stderr, "Usage: vmplane config check [--config FILE] [serve's flags]\n\n"+
			"Validates the configuration serve would use (file, environment, flags) and prints the\n"+
			"effective settings, secrets masked.\n")
		return 2
	}
	l, err := app.Load(args[1:], getenv)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "vmplane: %v\n", err)
		return 2
	}
	file := l.File
	if file == "" {
		file = "none"
	}
	fmt.Fprintf(stdout, "# configuration file: %s\n# precedence: flag > environment > file > default\n", file)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, s := range l.Effective() {
		fmt.Fprintf(tw, "%s = %s\t# %s\n", s.Name, s.Value, s.Source)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(stderr, "vmplane: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, "# the configuration is valid")
	return 0
}
