// Package schedulecmd holds the schedule verbs of the command-line client (`vmplane
// schedule`: list, show, create, update, delete, for power and backup schedules),
// built on App, what they need of the client around them (package cli).
package schedulecmd

import (
	"fmt"
	"io"

	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// App is what the schedule verbs need of the command-line client.
type App interface {
	// Setup is a client of the target server with the command's login (acting for
	// --tenant when given) and the printer of -o; the printer first, so that a bad -o
	// is a usage error before anything is sent.
	Setup() (*client.Client, output.Printer, error)
	// TenantScope is the tenant of --tenant (or VMPLANE_TENANT), "" when none.
	TenantScope() string
	// Stdout is the command's standard output.
	Stdout() io.Writer
}

// verbs builds the schedule verbs on an App.
type verbs struct{ App }

// done says what a command did that has no record to print; with -o json or yaml,
// standard output holds data only: nothing then.
func (a verbs) done(p output.Printer, format string, args ...any) {
	if output.IsData(p.Format) {
		return
	}
	fmt.Fprintf(a.Stdout(), format+"\n", args...)
}
