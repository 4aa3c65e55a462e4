package cli

import (
	"bufio"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

func (a *app) userCmd() *cobra.Command {
	var lim int
	var byExternal string
	list := &cobra.Command{
		Use:   "list",
		Short: "list the users (operators), of one tenant with --tenant, or the one another system knows by --external-id",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			var items []client.User
			if cmdline.Changed(cmd, "external-id") {
				u, err := c.UserByExternalID(cmd.Context(), byExternal)
				if err != nil {
					return err
				}
				items = []client.User{*u}
			} else if items, err = cmdline.Collect(c.Users(cmd.Context(), a.tenantScope(), client.ListOptions{}), lim); err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "EMAIL", "NAME", "ROLE", "TENANT", "DISABLED")
				for _, u := range items {
					output.Row(w, u.ID, u.Email, output.OrDash(u.Name), u.Role, output.Str(u.TenantID), output.YesNo(u.Disabled))
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)
	list.Flags().StringVar(&byExternal, "external-id", "", "the user another system (a billing system) knows by this id")
	show := &cobra.Command{
		Use:   "show ID",
		Short: "show a user",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			u, err := c.GetUser(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return cards.User(p, u)
		},
	}
	var nu client.UserCreate
	var fromStdin bool
	create := &cobra.Command{
		Use:   "create --email E [--name N] [--role user|admin] --tenant ID",
		Short: "create a user: a tenant's (--tenant) or an admin (--role admin)",
		Long: `Create a user. A user of role user belongs to the tenant --tenant names; an admin
to none. The password is asked for without echo, or read from the first line of
standard input with --password-stdin.`,
		Args: cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if nu.Email == "" {
				return cmdline.Usagef("--email is needed")
			}
			nu.TenantID = a.tenantScope()
			if nu.Role == client.RoleUser && nu.TenantID == "" {
				return cmdline.Usagef("a user of role user needs --tenant")
			}
			pw, err := a.readPassword(bufio.NewReader(a.env.Stdin), fromStdin, "Password of "+nu.Email+": ")
			if err != nil {
				return err
			}
			nu.Password = pw
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			u, err := c.CreateUser(cmd.Context(), nu)
			if err != nil {
				return err
			}
			return cards.User(p, u)
		},
	}
	cf := create.Flags()
	cf.StringVar(&nu.Email, "email", "", "the user's e-mail, the login name")
	cf.StringVar(&nu.Name, "name", "", "the user's full name")
	cf.StringVar(&nu.Role, "role", client.RoleUser, "user (of the tenant --tenant names) or admin")
	cf.BoolVar(&fromStdin, "password-stdin", false, "read the password from the first line of standard input")
	cf.StringVar(&nu.ExternalID, "external-id", "", "the id another system (a billing system) knows the user by")

	var name, role, external string
	var disabled, newPassword bool
	update := &cobra.Command{
		Use:   "update ID",
		Short: "change a user's name, role, tenant, password or whether it is disabled",
		Long: `Change a user. A change of password, role, tenant or --disabled ends the user's
logins. --password asks for the new password without echo (with --password-stdin:
reads it from standard input).`,
		Args: cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ch client.UserChange
			if cmdline.Changed(cmd, "name") {
				ch.Name = &name
			}
			if cmdline.Changed(cmd, "role") {
				ch.Role = &role
			}
			if cmdline.Changed(cmd, "tenant") {
				t := a.tenantScope()
				ch.TenantID = &t
			}
			if cmdline.Changed(cmd, "disabled") {
				ch.Disabled = &disabled
			}
			if cmdline.Changed(cmd, "external-id") {
				ch.ExternalID = externalID(external)
			}
			if newPassword || fromStdin {
				pw, err := a.readPassword(bufio.NewReader(a.env.Stdin), fromStdin, "New password: ")
				if err != nil {
					return err
				}
				ch.Password = &pw
			}
			if ch == (client.UserChange{}) {
				return cmdline.Usagef("nothing to change: give --name, --role, --tenant, --disabled, --external-id or --password")
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			u, err := c.UpdateUser(cmd.Context(), args[0], ch)
			if err != nil {
				return err
			}
			return cards.User(p, u)
		},
	}
	uf := update.Flags()
	uf.StringVar(&name, "name", "", "the new full name")
	uf.StringVar(&role, "role", "", "the new role: user or admin")
	uf.BoolVar(&disabled, "disabled", false, "--disabled turns the login off, --disabled=false on again")
	uf.BoolVar(&newPassword, "password", false, "set a new password, asked for without echo")
	uf.BoolVar(&fromStdin, "password-stdin", false, "set a new password, read from the first line of standard input")
	uf.StringVar(&external, "external-id", "", "the id another system knows the user by (\"\" removes it)")
	del := &cobra.Command{
		Use:   "delete ID",
		Short: "delete a user, ending its logins",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.DeleteUser(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("deleted user %s", args[0])
			return nil
		},
	}
	resetTOTP := &cobra.Command{
		Use:   "reset-totp ID",
		Short: "turn off a user's second factor (it lost the phone and the recovery codes); its logins end",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.ResetUserTOTP(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("the second factor of user %s is off, and its sessions have ended", args[0])
			return nil
		},
	}
	loginLink := &cobra.Command{
		Use:   "login-link ID",
		Short: "make a single-use link that signs a tenant user in within 60 seconds (a billing panel's \"log in to the panel\")",
		Long: `Make a login link for a tenant user: opened within 60 seconds, it signs the user in
once, without the password or the second factor. The link's URL needs the server's
public URL (--public-url); the token alone works with 'vmplane login --link'.`,
		Args: cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			l, err := c.CreateLoginLink(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return p.Print(l, func(w *tabwriter.Writer) {
				output.Field(w, "URL", output.Str(l.URL))
				output.Field(w, "Token", l.Token)
				output.Field(w, "Expires", output.When(l.ExpiresAt))
			})
		},
	}
	return cmdline.Group(&cobra.Command{Use: "user", Short: "users: operators and tenants' users (operators)"}, list, show, create, update, del, resetTOTP, loginLink)
}

// externalID is the change of an external id a flag gives: "" removes it.
func externalID(v string) client.Optional[string] {
	if v == "" {
		return client.Null[string]()
	}
	return client.Set(v)
}
