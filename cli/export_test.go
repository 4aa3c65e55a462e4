package cli

import (
	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
)

// rootHelp is the long help of the client's root.
const rootHelp = `vmplane runs the control plane (vmplane serve) and is its command-line client.

Add a server as a remote and log in once; the login is kept under
$XDG_CONFIG_HOME/vmplane (or ~/.config/vmplane) and renewed by itself:

  vmplane remote add local http://localhost:8080
  vmplane login --email admin@localhost
  vmplane machine list --tenant TENANT_ID

Output is a table, or JSON or YAML with -o. Exit status: 0 done, 1 failed (the API's
error code and detail on one line), 2 a command line that does not parse.`

// New returns a root holding the client's verbs alone, with shell completion: what
// this package's tests run. The binary's root (cmd/vmplane) holds the same verbs, from
// Commands, next to the server's commands. (An export_test.go file: the tests of
// package cli_test see it, the program does not.)
func New(env Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "vmplane",
		Short:         "vmplane: a control plane for virtual machines, and its command-line client",
		Long:          rootHelp,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdline.Usagef("a command is needed (see 'vmplane help')")
			}
			return cmdline.UnknownCommand(cmd, args[0])
		},
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetFlagErrorFunc(FlagError)
	root.AddCommand(Commands(env)...)
	InitCompletion(root)
	return root
}
