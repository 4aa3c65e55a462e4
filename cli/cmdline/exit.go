package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/client"
)

// ExitError ends a command with an exit status and no message of its own (the
// command printed what it had to say): what cmd/vmplane's server commands return.
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// errInterrupted ends a command that Ctrl-C (or SIGTERM) cancelled.
var errInterrupted = errors.New("interrupted")

// WrapAll wraps the RunE of every command of the tree: Ctrl-C (or SIGTERM) cancels the
// command's context, which ends it as interrupted, and its error passes through f.
func WrapAll(cmd *cobra.Command, f func(error) error) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			c.SetContext(ctx)
			err := f(run(c, args))
			if errors.Is(err, context.Canceled) && ctx.Err() != nil {
				return errInterrupted
			}
			return err
		}
	}
	for _, c := range cmd.Commands() {
		WrapAll(c, f)
	}
}

// Execute runs root with args and returns the exit status: 0 done, 1 failed (the
// error printed on stderr in one line), 2 a command line that does not parse, or an
// ExitError's code (its command printed its message).
func Execute(root *cobra.Command, args []string, stderr io.Writer) int {
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err == nil {
		return 0
	}
	var exit ExitError
	if errors.As(err, &exit) {
		return exit.Code
	}
	var ue UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "vmplane: %v\n", err)
		return 2
	}
	if errors.Is(err, errInterrupted) {
		fmt.Fprintln(stderr, "vmplane: interrupted")
		return 1
	}
	fmt.Fprintf(stderr, "vmplane: %s\n", Describe(err))
	return 1
}

// Describe is an error in one line: for an API error its code and detail, and the
// invalid fields.
func Describe(err error) string {
	var ae *client.Error
	if errors.As(err, &ae) {
		s := ae.Code
		if ae.Detail != "" {
			s += ": " + ae.Detail
		}
		var fs []string
		for _, f := range ae.Fields {
			if m := f.Field + ": " + f.Message; !strings.Contains(ae.Detail, m) {
				fs = append(fs, m)
			}
		}
		if len(fs) > 0 {
			s += " (" + strings.Join(fs, "; ") + ")"
		}
		return s
	}
	var te *client.TaskError
	if errors.As(err, &te) {
		return "task_failed: " + strings.TrimPrefix(te.Error(), "vmplane: ")
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
