package cli

import (
	"context"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/machinecmd"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// The invoices' usage (hour by hour, as the server closed it): `vmplane usage` for the
// signed-in tenant or one of its machines, `vmplane tenant usage ID` for a billing
// system or an operator. `machine usage` is another thing: the graphs.

// rangeFlags choose the hours a usage report covers: a calendar month (UTC), or
// from/to given as RFC 3339 times on whole hours.
type rangeFlags struct{ month, from, to string }

func (f *rangeFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.month, "month", "", "a calendar month in UTC, YYYY-MM (default: this month up to the last whole hour)")
	cmd.Flags().StringVar(&f.from, "from", "", "the first hour, an RFC 3339 time on a whole hour (with --to, instead of --month)")
	cmd.Flags().StringVar(&f.to, "to", "", "the hour after the last, an RFC 3339 time on a whole hour")
}

// hours is the range the flags ask for, as of now. The month running ends at the last
// whole hour: the server has not closed the hour under way, which would count as a gap.
func (f *rangeFlags) hours(now time.Time) (from, to time.Time, err error) {
	now = now.UTC()
	switch {
	case f.from != "" || f.to != "":
		if f.month != "" || f.from == "" || f.to == "" {
			return from, to, cmdline.Usagef("give --from and --to together, or --month")
		}
		if from, err = time.Parse(time.RFC3339, f.from); err != nil {
			return from, to, cmdline.Usagef("--from: %v", err)
		}
		if to, err = time.Parse(time.RFC3339, f.to); err != nil {
			return from, to, cmdline.Usagef("--to: %v", err)
		}
		return from, to, nil
	case f.month != "":
		m, err := time.Parse("2006-01", f.month)
		if err != nil {
			return from, to, cmdline.Usagef("--month %q: want YYYY-MM", f.month)
		}
		from, to = m, m.AddDate(0, 1, 0)
	default:
		from, to = time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC), now
	}
	if last := now.Truncate(time.Hour); to.After(last) {
		to = last
	}
	if !to.After(from) {
		return from, to, cmdline.Usagef("no whole hour of that month has passed yet")
	}
	return from, to, nil
}

// usageCmd is `vmplane usage [--machine ID]`: the tenant's own, through the client area.
func (a *app) usageCmd() *cobra.Command {
	var rf rangeFlags
	var machine string
	cmd := &cobra.Command{
		Use:   "usage [--machine ID] [--month YYYY-MM | --from T --to T]",
		Short: "what your machines used, hour by hour, for invoices (an operator: with --tenant, or a machine of no tenant)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			from, to, err := rf.hours(time.Now())
			if err != nil {
				return err
			}
			return a.printUsage(cmd.Context(), func(ctx context.Context, c *client.Client) (*client.UsageReport, error) {
				if machine == "" {
					return c.MyUsage(ctx, from, to)
				}
				mc, ok, err := machinecmd.ClientArea(ctx, c, a.tenantScope(), machine)
				if err != nil {
					return nil, err
				}
				if !ok {
					return mc.MachineInvoiceUsage(ctx, machine, from, to)
				}
				return mc.MyMachineUsage(ctx, machine, from, to)
			})
		},
	}
	cmd.Flags().StringVar(&machine, "machine", "", "one machine's usage only")
	rf.add(cmd)
	return cmd
}

// tenantUsageCmd is `vmplane tenant usage ID`: operators and billing keys.
func (a *app) tenantUsageCmd() *cobra.Command {
	var rf rangeFlags
	cmd := &cobra.Command{
		Use:   "usage ID [--month YYYY-MM | --from T --to T]",
		Short: "what a tenant's machines used, hour by hour, for its invoice (operators, billing keys)",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			from, to, err := rf.hours(time.Now())
			if err != nil {
				return err
			}
			return a.printUsage(cmd.Context(), func(ctx context.Context, c *client.Client) (*client.UsageReport, error) {
				return c.TenantUsage(ctx, args[0], from, to)
			})
		},
	}
	rf.add(cmd)
	return cmd
}

// printUsage prints a report: a line per machine and plan, the totals, and the hours
// no record covers (unknown, which an invoice must not bill as zero).
func (a *app) printUsage(ctx context.Context, read func(context.Context, *client.Client) (*client.UsageReport, error)) error {
	c, p, err := a.setup()
	if err != nil {
		return err
	}
	r, err := read(ctx, c)
	if err != nil {
		return err
	}
	return p.Print(r, func(w *tabwriter.Writer) {
		output.Header(w, "MACHINE", "NAME", "PLAN", "HOURS", "CORE_H", "MEMORY_MB_H", "DISK_GB_H", "BACKUP_H", "SNAPSHOT_H", "TRAFFIC_IN", "TRAFFIC_OUT", "ESTIMATED_H")
		line := func(l client.UsageLine, id, name string) {
			output.Row(w, id, name, output.Str(l.PlanID), output.Num(l.Hours), output.Num(l.CoreHours), output.Num(l.MemoryMBHours),
				output.Num(l.DiskGBHours), output.Num(l.BackupHours), output.Num(l.SnapshotHours), output.BytesIEC(float64(l.TrafficInBytes)),
				output.BytesIEC(float64(l.TrafficOutBytes)), output.Num(l.EstimatedHours))
		}
		for _, l := range r.Lines {
			line(l, l.MachineID, output.OrDash(l.Name))
		}
		line(r.Totals, "TOTAL", "-")
		output.Row(w, "")
		output.Row(w, "from "+output.When(r.From)+" to "+output.When(r.To)+": "+output.Num(r.Gaps)+" hour(s) no record covers (unknown, not zero)")
	})
}
