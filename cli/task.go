package cli

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/cli/terminal"
	"github.com/vmplane/vmplane/client"
)

func (a *app) taskCmd() *cobra.Command {
	show := &cobra.Command{
		Use:   "show ID",
		Short: "show a task",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			t, err := c.GetTask(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return cards.Task(p, t)
		},
	}
	var timeout time.Duration
	wait := &cobra.Command{
		Use:   "wait ID",
		Short: "wait for a task to end; exit status 1 when it failed",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			t, err := c.GetTask(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.waitAndPrint(cmd.Context(), c, p, t, timeout)
		},
	}
	wait.Flags().DurationVar(&timeout, "timeout", 0, "give up after this long (0: wait as long as it takes)")
	return cmdline.Group(&cobra.Command{Use: "task", Short: "tasks: the slow work the server does after answering"}, show, wait)
}

// started prints the task a command started, or with --wait waits for its end and
// prints the ended task.
func (a *app) started(ctx context.Context, c *client.Client, p output.Printer, t *client.Task, f cmdline.WaitFlags) error {
	if !f.Wait {
		return cards.Task(p, t)
	}
	return a.waitAndPrint(ctx, c, p, t, f.Timeout)
}

func (a *app) waitAndPrint(ctx context.Context, c *client.Client, p output.Printer, t *client.Task, timeout time.Duration) error {
	ended, werr := a.wait(ctx, c, t, timeout)
	if ended != nil {
		if err := cards.Task(p, ended); err != nil {
			return err
		}
	}
	return werr
}

// wait waits for t to end, telling how it goes on stderr: one line when it starts
// waiting and one when the task ends, and on a terminal a line updated every second.
// A failed task is returned with a *client.TaskError.
func (a *app) wait(ctx context.Context, c *client.Client, t *client.Task, timeout time.Duration) (*client.Task, error) {
	ctx, cancel := ctxTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	what := fmt.Sprintf("task %s (%s of %s %s)", t.ID, t.Type, t.TargetType, t.TargetID)
	tty := terminal.Is(a.env.Stderr)
	if !t.Done() {
		fmt.Fprintf(a.env.Stderr, "waiting for %s: %s\n", what, t.Status)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	if tty {
		wg.Go(func() { terminal.Progress(a.env.Stderr, what, start, done) })
	}
	ended, err := c.WaitTask(ctx, t.ID)
	close(done)
	wg.Wait()
	if tty {
		fmt.Fprint(a.env.Stderr, "\r\033[K")
	}
	elapsed := time.Since(start).Round(100 * time.Millisecond)
	switch {
	case err == nil:
		fmt.Fprintf(a.env.Stderr, "%s succeeded after %s\n", what, elapsed)
	case ended != nil && ended.Status == client.TaskFailed:
		fmt.Fprintf(a.env.Stderr, "%s failed after %s\n", what, elapsed)
	case ctx.Err() == context.DeadlineExceeded:
		return ended, fmt.Errorf("%s still %s after %s (--timeout): it goes on; 'vmplane task wait %s' waits again", what, statusOf(ended, t), timeout, t.ID)
	}
	return ended, err
}

func statusOf(ts ...*client.Task) string {
	for _, t := range ts {
		if t != nil {
			return t.Status
		}
	}
	return "unknown"
}
