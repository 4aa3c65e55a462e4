package cli

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/client"
)

// The signed-in user's own account: its sessions and its password.

func (a *app) sessionCmd() *cobra.Command {
	var lim int
	list := &cobra.Command{
		Use:   "list",
		Short: "list your sessions (logins that have not ended), newest first; * marks this one",
		Args:  args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := collect(c.Sessions(cmd.Context(), client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.print(items, func(w *tabwriter.Writer) {
				header(w, "ID", "", "CREATED", "LAST USED", "EXPIRES", "ADDRESS", "USER AGENT")
				for _, s := range items {
					mark := ""
					if s.Current {
						mark = "*"
					}
					row(w, s.ID, mark, when(s.CreatedAt), when(s.LastUsedAt), when(s.ExpiresAt), orDash(s.ClientAddr), orDash(s.UserAgent))
				}
			})
		},
	}
	limitFlag(list, &lim)
	end := &cobra.Command{
		Use:   "end ID",
		Short: "end one of your sessions: its tokens stop working at once",
		Args:  args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.EndSession(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("ended session %s", args[0])
			return nil
		},
	}
	return group(&cobra.Command{Use: "session", Short: "your own sessions: list them, end one"}, list, end)
}

func (a *app) passwordCmd() *cobra.Command {
	var fromStdin bool
	cmd := &cobra.Command{
		Use:   "password",
		Short: "change your own password; your other sessions end",
		Long: `Change the signed-in user's password. The current and the new password are asked
for without echo, or read from the first two lines of standard input with
--password-stdin. Every other session of the user ends; this one goes on.`,
		Args: args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			in := newLineReader(a.env.Stdin)
			current, err := a.readPassword(in, fromStdin, "Current password: ")
			if err != nil {
				return err
			}
			next, err := a.readPassword(in, fromStdin, "New password: ")
			if err != nil {
				return err
			}
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.ChangePassword(cmd.Context(), current, next); err != nil {
				return err
			}
			a.done("password changed; your other sessions have ended")
			return nil
		},
	}
	cmd.Flags().BoolVar(&fromStdin, "password-stdin", false, "read the current and the new password from the first two lines of standard input")
	return cmd
}
