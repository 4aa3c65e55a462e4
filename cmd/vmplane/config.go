package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/app"
	"github.com/vmplane/vmplane/cli"
)

// configCmd is `vmplane config check [--config FILE] [serve's flags]`: it reads the
// configuration exactly as serve would (file, environment, flags), and prints every
// effective setting with where it came from, secrets masked. Exit status: 0 valid, 2
// not (one line naming the setting, the value and the file).
func configCmd(env cli.Env) *cobra.Command {
	check := checkCmd(env, &cobra.Command{
		Use:   "check [--config FILE] [serve's flags]",
		Short: "validate the configuration (--config FILE, environment, flags) and print it, secrets masked",
		Long: "Validates the configuration serve would use (file, environment, flags) and prints the\n" +
			"effective settings, secrets masked. It takes serve's flags.",
	}, func(l app.Loaded) int { return printConfig(l, env.Stdout, env.Stderr) })
	return cli.Group(&cobra.Command{Use: "config", Short: "the server's configuration"}, check)
}

// printConfig prints the effective settings of l and where each comes from.
func printConfig(l app.Loaded, stdout, stderr io.Writer) int {
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
