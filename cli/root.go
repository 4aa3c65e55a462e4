// Package cli is vmplane's command-line client: the verbs of `vmplane` that speak to a
// server over its API (remote, login, tenant, user, machine, task, events, firewall,
// template, overview, schedule, backup, health-check, alert, monitoring), in the style
// of incus and kubectl, built on the Go client (package client) alone, so cmd/vmplane
// only wires it in next to serve. The machine verbs are package machinecmd's; what the
// verbs share is in the sub-packages remotes, cmdline, output, terminal and console.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/cli/remotes"
	"github.com/vmplane/vmplane/cli/schedulecmd"
	"github.com/vmplane/vmplane/client"
)

// The client's stored remotes and logins (package remotes), under the names cmd/vmplane
// and the tests use.
type (
	Store       = remotes.Store
	Remote      = remotes.Remote
	Config      = remotes.Config
	Credentials = remotes.Credentials
)

// Env is what the commands read and write: the process's standard streams and
// environment, or a test's.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the environment (VMPLANE_URL, VMPLANE_TOKEN, XDG_CONFIG_HOME, ...).
	Getenv func(string) string
}

// ExitError ends a command with an exit status and no message of its own (the
// command printed what it had to say): what cmd/vmplane's server commands return.
type ExitError = cmdline.ExitError

// Execute runs root with args and returns the exit status: cmdline.Execute, its
// messages on env.Stderr.
func Execute(root *cobra.Command, args []string, env Env) int {
	return cmdline.Execute(root, args, env.Stderr)
}

// Usagef is a command line that does not parse: cmdline.Usagef.
func Usagef(format string, a ...any) error { return cmdline.Usagef(format, a...) }

// UnknownCommand is the usage error of a command name cmd does not have:
// cmdline.UnknownCommand.
func UnknownCommand(cmd *cobra.Command, name string) error {
	return cmdline.UnknownCommand(cmd, name)
}

// FlagError is the root's flag error function: cmdline.FlagError.
func FlagError(cmd *cobra.Command, err error) error { return cmdline.FlagError(cmd, err) }

// Group makes cmd a command that only holds subcommands: cmdline.Group.
func Group(cmd *cobra.Command, subs ...*cobra.Command) *cobra.Command {
	return cmdline.Group(cmd, subs...)
}

// app holds the global flags and the environment the commands run in.
type app struct {
	env    Env
	remote string // --remote
	url    string // --url
	token  string // --token
	tenant string // --tenant
	format string // -o

	sess *remotes.Session // the stored login the command uses, if any
}

// InitCompletion adds cobra's completion command to root, with its help in our words.
func InitCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Short = "print a shell completion script (bash, zsh, fish or powershell)"
		}
	}
}

// Commands returns the client's verbs (remote, login, tenant, machine, backup, ...),
// each with the client's global flags (--remote, --url, --token, --tenant, -o) as its
// persistent flags: they may come before the verb or after it, as cobra hands every
// flag to the command it finds. The server's commands do not have them.
func Commands(env Env) []*cobra.Command {
	a := &app{env: env}
	global := a.globalFlags()
	cmds := []*cobra.Command{a.remoteCmd(), a.loginCmd(), a.logoutCmd(), a.passwordCmd(), a.sessionCmd(), a.totpCmd(), a.apiKeyCmd(), a.tenantCmd(), a.userCmd(), a.machineCmd(), a.planCmd(),
		a.taskCmd(), a.eventsCmd(), a.firewallCmd(), a.templateCmd(), a.overviewCmd(),
		schedulecmd.Command(machineApp{a}), a.backupCmd(), a.isoCmd(), a.healthCheckCmd(), a.alertCmd(), a.monitoringCmd(), a.webhookCmd(), a.ipPoolCmd(), a.locationCmd(), a.auditCmd(), a.usageCmd()}
	for _, c := range cmds {
		c.PersistentFlags().AddFlagSet(global)
		cmdline.WrapAll(c, a.explain)
	}
	// The flags are shared by every verb, so are their completions (keyed by flag).
	_ = cmds[0].RegisterFlagCompletionFunc("output", cobra.FixedCompletions(output.Formats, cobra.ShellCompDirectiveNoFileComp))
	_ = cmds[0].RegisterFlagCompletionFunc("remote", a.completeRemotes)
	return cmds
}

// globalFlags are the client's global flags, bound to a.
func (a *app) globalFlags() *pflag.FlagSet {
	pf := pflag.NewFlagSet("global", pflag.ContinueOnError)
	pf.StringVar(&a.remote, "remote", "", "the remote to talk to (default: the current one, see 'vmplane remote switch'; env VMPLANE_REMOTE)")
	pf.StringVar(&a.url, "url", "", "the server's URL, instead of a remote's (env VMPLANE_URL)")
	pf.StringVar(&a.token, "token", "", "an access token to send instead of the remote's login (env VMPLANE_TOKEN)")
	pf.StringVar(&a.tenant, "tenant", "", "the tenant to act for (operators: machines, firewall rules, the overview, schedules, backups, health checks; env VMPLANE_TENANT)")
	pf.StringVarP(&a.format, "output", "o", output.Table, "output format: table, json or yaml")
	return pf
}

// IsGlobalFlag reports whether arg (--remote, -o=json, ...) is one of the client's
// global flags.
func IsGlobalFlag(arg string) bool {
	name, _, _ := strings.Cut(arg, "=")
	flags := (&app{}).globalFlags()
	if long, ok := strings.CutPrefix(name, "--"); ok {
		return long != "" && flags.Lookup(long) != nil
	}
	if short, ok := strings.CutPrefix(name, "-"); ok && len(short) == 1 {
		return flags.ShorthandLookup(short) != nil
	}
	return false
}

// SimilarGlobalFlags are the client's global flags near arg (a mistyped --tenat), for
// cmd/vmplane's message about a flag before any command.
func SimilarGlobalFlags(arg string) []string {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	if name == "" {
		return nil
	}
	return cmdline.SimilarFlags((&app{}).globalFlags(), name)
}

// explain adds what to do to two errors: the 401 of a request sent after the stored
// login ended becomes the reason it ended, and an operator's call of a client-area
// route without a tenant names the --tenant flag.
func (a *app) explain(err error) error {
	if err != nil && a.sess != nil && errors.Is(err, client.ErrUnauthorized) {
		if ended := a.sess.Ended(); ended != nil {
			return ended
		}
	}
	var ae *client.Error
	if errors.As(err, &ae) && errors.Is(err, client.ErrInvalidRequest) && a.tenantScope() == "" {
		for _, f := range ae.Fields {
			if f.Field == "tenant_id" {
				return fmt.Errorf("%s: give --tenant ID (env VMPLANE_TENANT)", cmdline.Describe(err))
			}
		}
	}
	return err
}

func (a *app) printer() (output.Printer, error) {
	switch a.format {
	case output.Table, output.JSON, output.YAML:
		return output.Printer{Format: a.format, Out: a.env.Stdout}, nil
	}
	return output.Printer{}, cmdline.Usagef("-o %q: want table, json or yaml", a.format)
}

func (a *app) getenv(name string) string {
	if a.env.Getenv == nil {
		return ""
	}
	return a.env.Getenv(name)
}

func (a *app) store() (Store, error) {
	dir, err := remotes.Dir(a.getenv)
	if err != nil {
		return Store{}, err
	}
	return Store{Dir: dir}, nil
}

// target resolves --url, --remote and the current remote.
func (a *app) target() (Store, remotes.Target, error) {
	st, cfg, err := a.config()
	if err != nil {
		return st, remotes.Target{}, err
	}
	t, err := cfg.Target(firstOf(a.url, a.getenv("VMPLANE_URL")), firstOf(a.remote, a.getenv("VMPLANE_REMOTE")))
	return st, t, err
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// client is a client of the target server with the login of --token or of the
// remote, acting for --tenant when it is given.
func (a *app) client() (*client.Client, error) {
	base, hc, err := a.connect()
	if err != nil {
		return nil, err
	}
	c, err := client.New(base, client.WithHTTPClient(hc), client.WithUserAgent(remotes.UserAgent))
	if err != nil {
		return nil, cmdline.UsageError{Err: err}
	}
	if tenant := a.tenantScope(); tenant != "" {
		c = c.ForTenant(tenant)
	}
	return c, nil
}

// publicClient is a client of the target server with no login: for the calls made by
// someone who cannot sign in (a forgotten password).
func (a *app) publicClient() (*client.Client, error) {
	_, t, err := a.target()
	if err != nil {
		return nil, err
	}
	c, err := client.New(t.Base, client.WithHTTPClient(&http.Client{Transport: remotes.NewTransport()}), client.WithUserAgent(remotes.UserAgent))
	if err != nil {
		return nil, cmdline.UsageError{Err: err}
	}
	return c, nil
}

// connect is the target server's base URL and an HTTP client that puts the login of
// --token or of the remote on every request (remotes.Store.Connect).
func (a *app) connect() (string, *http.Client, error) {
	st, t, err := a.target()
	if err != nil {
		return "", nil, err
	}
	hc, sess, err := st.Connect(t, firstOf(a.token, a.getenv("VMPLANE_TOKEN")))
	if err != nil {
		return "", nil, err
	}
	a.sess = sess
	return t.Base, hc, nil
}

func (a *app) tenantScope() string { return firstOf(a.tenant, a.getenv("VMPLANE_TENANT")) }

func (a *app) completeRemotes(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	_, cfg, err := a.config()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, r := range cfg.Remotes {
		names = append(names, r.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// ctxTimeout bounds ctx by d when d is positive.
func ctxTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}
