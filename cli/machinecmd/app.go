// Package machinecmd holds the machine verbs of the command-line client (`vmplane
// machine`: list, show, create, power, resize, delete, reinstall, migrate, usage,
// update, backups, restore, snapshots, tasks, console), built on App, what they need
// of the client around them (package cli): its client of the target server, its
// printer of -o, its --tenant, its waiting for tasks and its standard streams.
package machinecmd

import (
	"context"
	"io"
	"time"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// App is what the machine verbs need of the command-line client.
type App interface {
	// Client is a client of the target server with the command's login, acting for
	// --tenant when it is given.
	Client() (*client.Client, error)
	// Setup is Client and the printer of -o; the printer first, so that a bad -o is a
	// usage error before anything is sent.
	Setup() (*client.Client, output.Printer, error)
	// TenantScope is the tenant of --tenant (or VMPLANE_TENANT), "" when none.
	TenantScope() string
	// Started prints the task t a command started, or with --wait waits for its end
	// and prints the ended task.
	Started(ctx context.Context, c *client.Client, p output.Printer, t *client.Task, wf cmdline.WaitFlags) error
	// Wait waits for t to end (at most timeout when positive), telling how it goes on
	// standard error; a failed task comes with a *client.TaskError.
	Wait(ctx context.Context, c *client.Client, t *client.Task, timeout time.Duration) (*client.Task, error)
	// Stdin, Stdout and Stderr are the command's standard streams.
	Stdin() io.Reader
	Stdout() io.Writer
	Stderr() io.Writer
}

// verbs builds the machine verbs on an App.
type verbs struct{ App }
