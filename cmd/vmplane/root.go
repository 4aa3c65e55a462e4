package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli"
)

// The groups of the overview: the server binary's own commands, and the client's verbs.
const (
	groupServer = "server"
	groupClient = "client"
)

// serverOrder is the root's annotation of the server commands' names, in the
// overview's order.
const serverOrder = "server-order"

// goFlags marks the commands that parsed their flags with Go's flag package before they
// were cobra commands (see goStyleFlags).
var goFlags = map[string]string{"go-style-flags": "true"}

// newRoot is the binary's one command tree: the server's commands (serve, bench,
// config check, proxmox check, admin ..., version) and the client's verbs (package
// cli), side by side. Every command parses its own flags; the root has none and runs
// only to print the overview (or to say what is wrong with a command line that names
// no command): it never starts a server.
func newRoot(env cli.Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "vmplane",
		Short:         "vmplane: a control plane for virtual machines, and its command-line client",
		SilenceErrors: true,
		SilenceUsage:  true,
		// The root reads its few arguments itself (-h, --version, and what is not a
		// command), so that a flag before any command is named in the error.
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
	}
	root.RunE = func(_ *cobra.Command, args []string) error { return bare(root, env, args) }
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetFlagErrorFunc(cli.FlagError)
	root.AddGroup(&cobra.Group{ID: groupServer, Title: "Server commands:"},
		&cobra.Group{ID: groupClient, Title: "Client commands (they talk to a server: see 'vmplane help COMMAND'):"})
	var order []string
	for _, c := range []*cobra.Command{serveCmd(env), benchCmd(env), configCmd(env), proxmoxCmd(env), adminCmd(env), versionCmd(env)} {
		c.GroupID = groupServer
		root.AddCommand(c)
		order = append(order, c.Name())
	}
	// The overview lists the server's commands in this order, serve first; cobra sorts.
	root.Annotations = map[string]string{serverOrder: strings.Join(order, " ")}
	for _, c := range cli.Commands(env) {
		c.GroupID = groupClient
		if c.Name() == "backup" {
			oldStoreBackup(c, env)
		}
		root.AddCommand(c)
	}
	root.AddCommand(oldRestoreCmd(env), hashWorkerCmd(env), benchBaselineCmd(env))
	root.SetCompletionCommandGroupID(groupClient)
	cli.InitCompletion(root)
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		if c == root {
			overview(c.OutOrStdout(), root)
			return
		}
		help(c, args)
	})
	return root
}

// bare runs `vmplane` with no command: the overview, the version, or a usage error
// for what stands where the command should.
func bare(root *cobra.Command, env cli.Env, args []string) error {
	if len(args) == 0 {
		overview(env.Stdout, root)
		return nil
	}
	switch first := args[0]; {
	case first == "-h" || first == "-help" || first == "--help":
		overview(env.Stdout, root)
		return nil
	case first == "--version" || first == "-version":
		return exit(runVersion(false, args[1:], env.Stdout, env.Stderr))
	case cli.IsGlobalFlag(first):
		// `vmplane --remote lab`: the client's flags, and no verb after them.
		return cli.Usagef("a command is needed after %s (see 'vmplane help')", strings.Join(args, " "))
	case strings.HasPrefix(first, "-"):
		// serve's flags without the command, or a client flag mistyped: a server starts
		// only when named, so that a stray flag never opens ./data and listens on every
		// interface.
		if s := cli.SimilarGlobalFlags(first); len(s) > 0 {
			return cli.Usagef("unknown flag %s; did you mean %s?", first, strings.Join(s, " or "))
		}
		return cli.Usagef("%s: a command comes first (see 'vmplane help'); to run the server: vmplane serve %s",
			first, strings.Join(args, " "))
	}
	return cli.UnknownCommand(root, args[0])
}

// overview is what a bare `vmplane`, `vmplane -h` and `vmplane help` print: every
// command of the tree, the server's with their subcommands spelled out.
func overview(w io.Writer, root *cobra.Command) {
	fmt.Fprint(w, "Usage: vmplane COMMAND [flags]\n")
	for _, g := range root.Groups() {
		fmt.Fprintf(w, "\n%s\n", g.Title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		cmds := root.Commands()
		if g.ID == groupServer {
			cmds = nil
			for _, name := range strings.Fields(root.Annotations[serverOrder]) {
				c, _, _ := root.Find([]string{name})
				cmds = append(cmds, c)
			}
		}
		for _, c := range cmds {
			if c.GroupID != g.ID || !c.IsAvailableCommand() {
				continue
			}
			if g.ID == groupServer && c.HasAvailableSubCommands() {
				for _, sub := range c.Commands() {
					if sub.IsAvailableCommand() {
						fmt.Fprintf(tw, "  %s %s\t%s\n", c.Name(), sub.Name(), sub.Short)
					}
				}
				continue
			}
			fmt.Fprintf(tw, "  %s\t%s\n", c.Name(), c.Short)
		}
		_ = tw.Flush()
	}
	fmt.Fprint(w, "\nGlobal flags of the client commands: --remote, --url, --token, --tenant, -o table|json|yaml\n"+
		"vmplane COMMAND -h (or vmplane help COMMAND) explains a command; vmplane -h (or help) prints this overview;\n"+
		"vmplane --version prints the version.\n")
}

// goStyleFlags lets the command lines written for Go's flag package keep working.
// serve, bench, admin and the other server commands parsed their flags with it, and it
// reads -name like --name; pflag reads -name as the shorthands n, a, m and e. For
// those commands (marked goFlags), a single-dash argument that names one of the
// command's long flags is given to cobra with two dashes. The command itself is the
// one cobra finds: nothing here decides which command runs.
func goStyleFlags(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd.Annotations["go-style-flags"] == "" {
		return args
	}
	cmd.InitDefaultHelpFlag()
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "--" {
			break
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(name) > 1 && cmd.Flags().Lookup(name) != nil {
			out[i] = "-" + a
		}
	}
	return out
}

// exit is the error that ends a command with status code (nil for 0), after the
// command printed what it had to say.
func exit(code int) error {
	if code == 0 {
		return nil
	}
	return cli.ExitError{Code: code}
}
