package machinecmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/console"
	"github.com/vmplane/vmplane/client"
)

func (a verbs) machineConsoleCmd() *cobra.Command {
	var vnc bool
	cmd := &cobra.Command{
		Use:   "console ID",
		Short: "attach the terminal to a machine's serial console; Ctrl-] detaches",
		Long: `Attach the terminal to a running machine's serial console, through the server's
console websocket. On a terminal, keys go to the machine as typed (raw mode) and
Ctrl-] detaches. Without a terminal, standard input is sent as it comes and the
session ends when the console closes (exit, say) or shortly after the input ends, so
that a script can run: printf 'hostname\nexit\n' | vmplane machine console ID

With --vnc, print the websocket URL of the machine's graphical console instead (a
machine with a display): an RFB stream for noVNC, whose URL carries a single-use
ticket that works once, within 60 s.`,
		Args: cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			mc, ok, err := ClientArea(ctx, c, a.TenantScope(), args[0])
			if err != nil {
				return err
			}
			typ := client.ConsoleSerial
			if vnc {
				typ = client.ConsoleVNC
			}
			var ticket *client.Console
			if ok {
				ticket, err = mc.MachineConsole(ctx, args[0], typ)
			} else {
				ticket, err = c.ConsoleTicket(ctx, args[0], typ)
			}
			if err != nil {
				return err
			}
			if vnc {
				_, err := fmt.Fprintln(a.Stdout(), c.ConsoleURL(ticket))
				return err
			}
			// The ticket in the URL's query is the credential: the websocket
			// needs no bearer token.
			return console.Open(ctx, c.ConsoleURL(ticket), a.Stdin(), a.Stdout(), a.Stderr())
		},
	}
	cmd.Flags().BoolVar(&vnc, "vnc", false, "print the websocket URL of the graphical console, for noVNC")
	return cmd
}
