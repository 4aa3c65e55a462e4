package cmdline

import (
	"time"

	"github.com/spf13/cobra"
)

// WaitFlags are --wait and --timeout of a command that starts a task.
type WaitFlags struct {
	Wait    bool
	Timeout time.Duration
}

// Add adds --wait and --timeout to cmd, bound to f.
func (f *WaitFlags) Add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.Wait, "wait", false, "wait for the task to end, with a progress line on stderr; exit status 1 when it failed")
	cmd.Flags().DurationVar(&f.Timeout, "timeout", 0, "with --wait: give up waiting after this long (0: as long as it takes)")
}
