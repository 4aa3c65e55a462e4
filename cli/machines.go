package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/machinecmd"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// machineCmd is the machine verb (package machinecmd), with the machine verbs of the
// other rooms here: plan, media (with the ISOs), billing.
func (a *app) machineCmd() *cobra.Command {
	more := append([]*cobra.Command{a.machinePlanCmd()}, a.machineMediaCmds()...)
	return machinecmd.Command(machineApp{a}, append(more, a.machineBillingCmds()...)...)
}

// machineApp is the app as the machine verbs see it (machinecmd.App).
type machineApp struct{ a *app }

// Client is app.client.
func (m machineApp) Client() (*client.Client, error) { return m.a.client() }

// Setup is app.setup.
func (m machineApp) Setup() (*client.Client, output.Printer, error) { return m.a.setup() }

// TenantScope is app.tenantScope.
func (m machineApp) TenantScope() string { return m.a.tenantScope() }

// Started is app.started.
func (m machineApp) Started(ctx context.Context, c *client.Client, p output.Printer, t *client.Task, wf cmdline.WaitFlags) error {
	return m.a.started(ctx, c, p, t, wf)
}

// Wait is app.wait.
func (m machineApp) Wait(ctx context.Context, c *client.Client, t *client.Task, timeout time.Duration) (*client.Task, error) {
	return m.a.wait(ctx, c, t, timeout)
}

// Stdin is the environment's standard input.
func (m machineApp) Stdin() io.Reader { return m.a.env.Stdin }

// Stdout is the environment's standard output.
func (m machineApp) Stdout() io.Writer { return m.a.env.Stdout }

// Stderr is the environment's standard error.
func (m machineApp) Stderr() io.Writer { return m.a.env.Stderr }
