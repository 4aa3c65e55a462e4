package cli

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/cli/remotes"
	"github.com/vmplane/vmplane/cli/terminal"
)

func (a *app) remoteCmd() *cobra.Command {
	add := &cobra.Command{
		Use:   "add NAME URL",
		Short: "add a server under a name (the first one added becomes the current one)",
		Args:  cmdline.Args(2, "NAME URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name, raw := args[0], args[1]
			u, err := url.Parse(raw)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return cmdline.Usagef("remote URL %q: want http(s)://host[:port]", raw)
			}
			if name == "" || strings.ContainsAny(name, " \t/") {
				return cmdline.Usagef("remote name %q: want a word without spaces or slashes", name)
			}
			st, cfg, err := a.config()
			if err != nil {
				return err
			}
			if _, ok := cfg.Remote(name); ok {
				return fmt.Errorf("remote %q exists already (remove it first)", name)
			}
			cfg.Remotes = append(cfg.Remotes, Remote{Name: name, URL: remotes.TrimBase(u.String())})
			current := cfg.Current == ""
			if current {
				cfg.Current = name
			}
			if err := st.SaveConfig(cfg); err != nil {
				return err
			}
			if current {
				a.done("added remote %s (%s), now the current one; log in with 'vmplane login'", name, remotes.TrimBase(u.String()))
			} else {
				a.done("added remote %s (%s); use it with --remote %s or 'vmplane remote switch %s'", name, remotes.TrimBase(u.String()), name, name)
			}
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "list the remotes, the current one and who is logged in to each",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := a.printer()
			if err != nil {
				return err
			}
			st, cfg, err := a.config()
			if err != nil {
				return err
			}
			creds, err := st.LoadCredentials()
			if err != nil {
				return err
			}
			type remoteRow struct {
				Name    string `json:"name"`
				URL     string `json:"url"`
				Current bool   `json:"current"`
				User    string `json:"user"`
			}
			rows := []remoteRow{}
			for _, r := range cfg.Remotes {
				rows = append(rows, remoteRow{Name: r.Name, URL: r.URL, Current: r.Name == cfg.Current, User: creds[r.Name].Email})
			}
			return p.Print(rows, func(w *tabwriter.Writer) {
				output.Header(w, "NAME", "URL", "CURRENT", "USER")
				for _, r := range rows {
					cur := ""
					if r.Current {
						cur = "*"
					}
					output.Row(w, r.Name, r.URL, cur, output.OrDash(r.User))
				}
			})
		},
	}
	remove := &cobra.Command{
		Use:               "remove NAME",
		Aliases:           []string{"rm"},
		Short:             "forget a remote and its login (log out first to end the login on the server)",
		Args:              cmdline.Args(1, "NAME"),
		ValidArgsFunction: a.completeRemotes,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, cfg, err := a.config()
			if err != nil {
				return err
			}
			if _, ok := cfg.Remote(args[0]); !ok {
				return fmt.Errorf("no remote %q", args[0])
			}
			var keep []Remote
			for _, r := range cfg.Remotes {
				if r.Name != args[0] {
					keep = append(keep, r)
				}
			}
			cfg.Remotes = keep
			if cfg.Current == args[0] {
				cfg.Current = ""
			}
			if err := st.SaveConfig(cfg); err != nil {
				return err
			}
			if err := st.UpdateCredentials(args[0], func(Credentials, bool) (*Credentials, error) { return nil, nil }); err != nil {
				return err
			}
			a.done("removed remote %s", args[0])
			return nil
		},
	}
	sw := &cobra.Command{
		Use:               "switch NAME",
		Short:             "make a remote the current one",
		Args:              cmdline.Args(1, "NAME"),
		ValidArgsFunction: a.completeRemotes,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, cfg, err := a.config()
			if err != nil {
				return err
			}
			if _, ok := cfg.Remote(args[0]); !ok {
				return fmt.Errorf("no remote %q (see 'vmplane remote list')", args[0])
			}
			cfg.Current = args[0]
			if err := st.SaveConfig(cfg); err != nil {
				return err
			}
			r, _ := cfg.Remote(args[0])
			a.done("the current remote is now %s (%s)", r.Name, r.URL)
			return nil
		},
	}
	return cmdline.Group(&cobra.Command{Use: "remote", Short: "the servers this client knows: add, list, remove, switch"}, add, list, remove, sw)
}

// config is the store and the remotes it holds.
func (a *app) config() (Store, *Config, error) {
	st, err := a.store()
	if err != nil {
		return st, nil, err
	}
	cfg, err := st.LoadConfig()
	return st, cfg, err
}

func (a *app) loginCmd() *cobra.Command {
	var email, code, link, oidc string
	var fromStdin bool
	cmd := &cobra.Command{
		Use:   "login [REMOTE]",
		Short: "log in to a remote (the current one by default) and keep the login",
		Long: `Log in to a remote with e-mail and password. The password is asked for without
echo, or read from the first line of standard input with --password-stdin. Only the
token pair is kept (in credentials.json, mode 0600), never the password; it is renewed
by itself for as long as the server's refresh tokens last (30 days by default).`,
		Args:              cmdline.MaxArgs(1, "[REMOTE]"),
		ValidArgsFunction: a.completeRemotes,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				a.remote = args[0]
			}
			st, t, err := a.target()
			if err != nil {
				return err
			}
			if t.Name == "" {
				return cmdline.Usagef("%s is no remote: add it with 'vmplane remote add NAME %s' to keep a login", t.Base, t.Base)
			}
			hc := &http.Client{Transport: remotes.NewTransport(), Timeout: time.Minute}
			if oidc != "" {
				if email != "" || fromStdin || link != "" {
					return cmdline.Usagef("--oidc signs in through the provider: no --email, --password-stdin or --link with it")
				}
				return a.loginOIDC(cmd.Context(), st, t, hc, oidc, code)
			}
			if link != "" {
				if email != "" || fromStdin || code != "" {
					return cmdline.Usagef("--link signs in on its own: no --email, --password-stdin or --totp-code with it")
				}
				creds, err := remotes.LoginWithLink(cmd.Context(), hc, t.Base, linkToken(link))
				if err != nil {
					return err
				}
				if err := st.UpdateCredentials(t.Name, func(Credentials, bool) (*Credentials, error) { return creds, nil }); err != nil {
					return err
				}
				fmt.Fprintf(a.env.Stdout, "logged in to %s as %s (%s) with a login link\n", t.Name, creds.Email, creds.Role)
				a.enrolHint(creds)
				return nil
			}
			in := bufio.NewReader(a.env.Stdin)
			if email == "" {
				if fromStdin || !terminal.Is(a.env.Stdin) {
					return cmdline.Usagef("--email is needed with --password-stdin or without a terminal")
				}
				if email, err = terminal.Ask(in, a.env.Stderr, "E-mail: "); err != nil {
					return err
				}
			}
			password, err := a.readPassword(in, fromStdin, "Password: ")
			if err != nil {
				return err
			}
			creds, err := remotes.Login(cmd.Context(), hc, t.Base, email, password, func() (string, error) {
				if code != "" {
					return code, nil
				}
				question := "Code of your authenticator app (or a recovery code): "
				if fromStdin {
					question = ""
				}
				line, err := terminal.Ask(in, a.env.Stderr, question)
				if err != nil {
					return "", err
				}
				if line == "" {
					return "", cmdline.Usagef("the account has a second factor: give its code with --totp-code, or on the next line of standard input")
				}
				return line, nil
			})
			if err != nil {
				return err
			}
			if err := st.UpdateCredentials(t.Name, func(Credentials, bool) (*Credentials, error) { return creds, nil }); err != nil {
				return err
			}
			fmt.Fprintf(a.env.Stdout, "logged in to %s as %s (%s)\n", t.Name, creds.Email, creds.Role)
			a.enrolHint(creds)
			return nil
		},
	}
	cmd.Flags().StringVar(&email, "email", "", "the user's e-mail (asked for when not given)")
	cmd.Flags().BoolVar(&fromStdin, "password-stdin", false, "read the password from the first line of standard input (and a second factor's code from the next)")
	cmd.Flags().StringVar(&code, "totp-code", "", "a code of the account's second factor (or a recovery code); asked for when the account has one and it is not given")
	cmd.Flags().StringVar(&oidc, "oidc", "", "sign in through this single sign-on (OpenID Connect) provider of the server: open the address printed in a browser, sign in, and paste back the address the browser ends on")
	cmd.Flags().StringVar(&link, "link", "", "sign in with a login link (its URL, or its token) an operator or a billing system made, instead of a password")
	return cmd
}

// loginOIDC signs in through an OpenID Connect provider. The browser that signs in at
// the provider is not this program's: the provider sends it back to the server's
// callback, whose page there says the sign-in belongs to the program that started it;
// the person pastes that address here, and the login completes (asking for a second
// factor's code when the account has one).
func (a *app) loginOIDC(ctx context.Context, st Store, t remotes.Target, hc *http.Client, provider, code string) error {
	start, err := remotes.OIDCStart(ctx, hc, t.Base, provider)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.env.Stderr, "Open this address in a browser and sign in:\n\n  %s\n\nThen paste the address the browser ends on (vmplane's page there says to):\n", start.URL)
	in := bufio.NewReader(a.env.Stdin)
	callback, err := terminal.Ask(in, a.env.Stderr, "Address: ")
	if err != nil {
		return err
	}
	if callback == "" {
		return cmdline.Usagef("no address given: the sign-in is left unfinished")
	}
	creds, err := remotes.LoginWithOIDC(ctx, hc, t.Base, callback, start.Secret, func() (string, error) {
		if code != "" {
			return code, nil
		}
		line, err := terminal.Ask(in, a.env.Stderr, "Code of your authenticator app (or a recovery code): ")
		if err == nil && line == "" {
			err = cmdline.Usagef("the account has a second factor: give its code with --totp-code, or on the next line of standard input")
		}
		return line, err
	})
	if err != nil {
		return err
	}
	if err := st.UpdateCredentials(t.Name, func(Credentials, bool) (*Credentials, error) { return creds, nil }); err != nil {
		return err
	}
	fmt.Fprintf(a.env.Stdout, "logged in to %s as %s (%s) through %s\n", t.Name, creds.Email, creds.Role, provider)
	a.enrolHint(creds)
	return nil
}

// enrolHint tells a user whose login may only enrol a second factor what to do.
func (a *app) enrolHint(creds *Credentials) {
	if creds.MustEnrolTOTP {
		fmt.Fprintln(a.env.Stderr, "this account must have a second factor: until it has, only 'vmplane totp enrol' and 'vmplane totp confirm CODE' work")
	}
}

// linkToken is the token of a login link given as its URL (the token= of its query)
// or as the token itself.
func linkToken(link string) string {
	if u, err := url.Parse(link); err == nil && u.Query().Get("token") != "" {
		return u.Query().Get("token")
	}
	return link
}

// readPassword reads a password: from the first line of in with fromStdin, else from
// the terminal without echo (terminal.Password).
func (a *app) readPassword(in *bufio.Reader, fromStdin bool, prompt string) (string, error) {
	return terminal.Password(in, fromStdin, a.env.Stdin, a.env.Stderr, prompt)
}

func (a *app) logoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "logout [REMOTE]",
		Short:             "end the login to a remote (the current one by default), on the server too",
		Args:              cmdline.MaxArgs(1, "[REMOTE]"),
		ValidArgsFunction: a.completeRemotes,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				a.remote = args[0]
			}
			st, t, err := a.target()
			if err != nil {
				return err
			}
			creds, err := st.LoadCredentials()
			if err != nil {
				return err
			}
			cr, ok := creds[t.Name]
			if t.Name == "" || !ok {
				fmt.Fprintf(a.env.Stderr, "not logged in to %s\n", firstOf(t.Name, t.Base))
				return nil
			}
			s := remotes.NewSession(st, t.Name, t.Base, remotes.NewTransport(), cr)
			if err := s.Logout(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintf(a.env.Stdout, "logged out of %s\n", t.Name)
			return nil
		},
	}
}
