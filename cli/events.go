package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

func (a *app) eventsCmd() *cobra.Command {
	var since int64
	var n int
	cmd := &cobra.Command{
		Use:   "events [--since ID] [--limit N]",
		Short: "follow the event stream: tasks, machines and alerts as they change",
		Long: `Print the server's events as they happen, one per line (with -o json one JSON
object per line, with -o yaml one document each), until interrupted or --limit events
were printed. --since 0 replays the backlog the server keeps first; --since ID goes on
after the event ID (as after a dropped connection). A tenant's user sees its tenant's
events only.`,
		Args: cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			last := client.FromNow
			if cmdline.Changed(cmd, "since") {
				if since < 0 {
					return cmdline.Usagef("--since must be 0 or an event id")
				}
				last = since
			}
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			count := 0
			for ev, err := range c.Events(ctx, last) {
				if err != nil {
					if errors.Is(err, context.Canceled) && cmd.Context().Err() != nil {
						return nil // interrupted: the normal end of following
					}
					return err
				}
				if err := printEvent(p, ev); err != nil {
					return err
				}
				count++
				if n > 0 && count >= n {
					break
				}
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&since, "since", 0, "start after this event id (0: the whole kept backlog; default: from now on)")
	cmd.Flags().IntVar(&n, "limit", 0, "stop after this many events (0: follow until interrupted)")
	return cmd
}

// eventLine is an event as -o json and -o yaml print it.
type eventLine struct {
	ID   uint64          `json:"id"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

func printEvent(p output.Printer, ev client.Event) error {
	return p.PrintItem(eventLine{ev.ID, ev.Type, ev.Data}, fmt.Sprintf("%d\t%s\t%s", ev.ID, ev.Type, summary(ev)))
}

// summary is the gist of an event's record for its line in the table output.
func summary(ev client.Event) string {
	var r struct {
		ID         string  `json:"id"`
		Type       string  `json:"type"`
		Name       string  `json:"name"`
		Status     string  `json:"status"`
		TargetType string  `json:"target_type"`
		TargetID   string  `json:"target_id"`
		Error      *string `json:"error"`
		Kind       string  `json:"kind"`
		Severity   string  `json:"severity"`
		Message    string  `json:"message"`
	}
	if json.Unmarshal(ev.Data, &r) != nil {
		return string(ev.Data)
	}
	switch ev.Type {
	case "task.updated":
		s := fmt.Sprintf("task %s %s of %s %s: %s", r.ID, r.Type, r.TargetType, r.TargetID, r.Status)
		if r.Error != nil && *r.Error != "" {
			s += " (" + *r.Error + ")"
		}
		return s
	case "machine.updated", "machine.deleted":
		return fmt.Sprintf("machine %s %s: %s", r.ID, r.Name, output.OrDash(r.Status))
	case "alert.updated":
		return fmt.Sprintf("alert %s %s %s: %s (%s)", r.ID, r.Severity, r.Kind, r.Status, r.Message)
	}
	return string(ev.Data)
}
