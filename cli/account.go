package cli

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// The signed-in user's own account: its sessions and its password.

func (a *app) sessionCmd() *cobra.Command {
	var lim int
	list := &cobra.Command{
		Use:   "list",
		Short: "list your sessions (logins that have not ended), newest first; * marks this one",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.Sessions(cmd.Context(), client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "", "CREATED", "LAST USED", "EXPIRES", "ADDRESS", "USER AGENT")
				for _, s := range items {
					mark := ""
					if s.Current {
						mark = "*"
					}
					output.Row(w, s.ID, mark, output.When(s.CreatedAt), output.When(s.LastUsedAt), output.When(s.ExpiresAt), output.OrDash(s.ClientAddr), output.OrDash(s.UserAgent))
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)
	end := &cobra.Command{
		Use:   "end ID",
		Short: "end one of your sessions: its tokens stop working at once",
		Args:  cmdline.Args(1, "ID"),
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
	return cmdline.Group(&cobra.Command{Use: "session", Short: "your own sessions: list them, end one"}, list, end)
}

func (a *app) passwordCmd() *cobra.Command {
	var fromStdin bool
	cmd := &cobra.Command{
		Use:   "password",
		Short: "change your own password; your other sessions end",
		Long: `Change the signed-in user's password. The current and the new password are asked
for without echo, or read from the first two lines of standard input with
--password-stdin. Every other session of the user ends; this one goes on.`,
		Args: cmdline.Args(0, ""),
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
	cmd.AddCommand(a.resetCmd(), a.resetConfirmCmd())
	return cmd
}

// resetCmd asks for a password reset link by mail: for a user who cannot sign in, so
// it needs no login, only the server (--url or a remote).
func (a *app) resetCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "reset EMAIL",
		Short: "forgot it: have a reset link mailed to EMAIL (no login needed)",
		Long: `Ask the server to mail a password reset link to the account of EMAIL. The answer
is the same whether the address has an account or not. The link works once, for 30
minutes; its token also works with 'vmplane password reset-confirm'.`,
		Args: cmdline.Args(1, "EMAIL"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, err := a.publicClient()
			if err != nil {
				return err
			}
			if err := c.RequestPasswordReset(cmd.Context(), argv[0]); err != nil {
				return err
			}
			a.done("if %s has an account, a reset link is on its way; it works once, for 30 minutes", argv[0])
			return nil
		},
	}
}

func (a *app) resetConfirmCmd() *cobra.Command {
	var token string
	var fromStdin bool
	cmd := &cobra.Command{
		Use:   "reset-confirm --token TOKEN",
		Short: "set a new password with the token of a mailed reset link (no login needed)",
		Long: `Set a new password with the token of a mailed reset link. The new password is asked
for without echo, or read from the first line of standard input with --password-stdin.
Every session of the user ends; sign in again with 'vmplane login'.`,
		Args: cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if token == "" {
				return cmdline.Usagef("--token is required: the token of the mailed link")
			}
			next, err := a.readPassword(newLineReader(a.env.Stdin), fromStdin, "New password: ")
			if err != nil {
				return err
			}
			c, err := a.publicClient()
			if err != nil {
				return err
			}
			if err := c.ConfirmPasswordReset(cmd.Context(), token, next); err != nil {
				return err
			}
			a.done("password set; every session of the account has ended: sign in with the new password")
			return nil
		},
	}
	cmd.Flags().StringVar(&token, "token", "", "the token of the mailed reset link")
	cmd.Flags().BoolVar(&fromStdin, "password-stdin", false, "read the new password from the first line of standard input")
	return cmd
}

// totpCmd turns the signed-in user's second factor on and off.
func (a *app) totpCmd() *cobra.Command {
	enrol := &cobra.Command{
		Use:   "enrol",
		Short: "start turning on a second factor: prints the secret and otpauth:// URI for an authenticator app",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			e, err := c.EnrolTOTP(cmd.Context())
			if err != nil {
				return err
			}
			return p.Print(e, func(w *tabwriter.Writer) {
				output.Field(w, "Secret", e.Secret)
				output.Field(w, "URI", e.URI)
				output.Field(w, "Next", "vmplane totp confirm CODE, with a code the app shows")
			})
		},
	}
	confirm := &cobra.Command{
		Use:   "confirm CODE",
		Short: "turn the second factor on with a first code of the app; prints ten recovery codes, once",
		Args:  cmdline.Args(1, "CODE"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			codes, err := c.ConfirmTOTP(cmd.Context(), argv[0])
			if err != nil {
				return err
			}
			return p.Print(map[string][]string{"recovery_codes": codes}, func(w *tabwriter.Writer) {
				for _, code := range codes {
					output.Field(w, "Recovery code", code)
				}
			})
		},
	}
	disable := &cobra.Command{
		Use:   "disable CODE",
		Short: "turn the second factor off, with a current code or a recovery code",
		Args:  cmdline.Args(1, "CODE"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.DisableTOTP(cmd.Context(), argv[0]); err != nil {
				return err
			}
			a.done("the second factor is off")
			return nil
		},
	}
	return cmdline.Group(&cobra.Command{Use: "totp", Short: "your second factor (time-based codes of an authenticator app): enrol, confirm, disable"}, enrol, confirm, disable)
}
