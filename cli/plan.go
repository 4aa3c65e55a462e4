package cli

import (
	"context"
	"errors"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/machinecmd"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/cli/planflags"
	"github.com/vmplane/vmplane/client"
)

func (a *app) planCmd() *cobra.Command {
	var lim int
	var listLocation string
	list := &cobra.Command{
		Use:   "list [--location ID-OR-NAME]",
		Short: "list the plans: the machine sizes sold",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			f := client.LocationFilter{}
			if listLocation != "" {
				if f.Location, err = planflags.FindLocation(cmd.Context(), c, listLocation); err != nil {
					return err
				}
			}
			items, err := cmdline.Collect(c.PlansIn(cmd.Context(), f), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "NAME", "CORES", "MEMORY_MB", "DISK_GB", "IPV4", "BACKUPS", "SNAPSHOTS", "TEMPLATES", "LOCATION")
				for _, pl := range items {
					output.Row(w, pl.ID, pl.Name, output.Num(pl.CPUCores), output.Num(pl.MemoryMB), output.Num(pl.DiskGB), output.Num(pl.IPv4),
						output.Bound(pl.Backups), output.Bound(pl.Snapshots), output.List(pl.AllowedTemplates, "all"), pl.LocationID)
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)
	list.Flags().StringVar(&listLocation, "location", "", "only the plans of this location (id or name; default: the default one)")
	show := &cobra.Command{
		Use:   "show ID-OR-NAME",
		Short: "show a plan",
		Args:  cmdline.Args(1, "ID-OR-NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			pl, err := findPlan(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			return cards.Plan(p, pl)
		},
	}
	var spec planflags.Flags
	create := &cobra.Command{
		Use:   "create NAME --cores N --memory SIZE --disk SIZE",
		Short: "create a plan (operators)",
		Args:  cmdline.Args(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ps, err := spec.Spec(cmd, args[0])
			if err != nil {
				return err
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			if ref := spec.LocationRef(cmd); ref != "" {
				if ps.LocationID, err = planflags.FindLocation(cmd.Context(), c, ref); err != nil {
					return err
				}
			}
			pl, err := c.CreatePlan(cmd.Context(), ps)
			if err != nil {
				return err
			}
			return cards.Plan(p, pl)
		},
	}
	spec.Add(create, false)
	var upd planflags.Flags
	update := &cobra.Command{
		Use:   "update ID-OR-NAME",
		Short: "change a plan (operators); its machines keep their sizes until moved to it again",
		Args:  cmdline.Args(1, "ID-OR-NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ch, err := upd.Change(cmd)
			if err != nil {
				return err
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			pl, err := findPlan(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			if ref := upd.LocationRef(cmd); ref != "" {
				id, err := planflags.FindLocation(cmd.Context(), c, ref)
				if err != nil {
					return err
				}
				ch.LocationID = client.Set(id)
			}
			if pl, err = c.UpdatePlan(cmd.Context(), pl.ID, ch); err != nil {
				return err
			}
			return cards.Plan(p, pl)
		},
	}
	upd.Add(update, true)
	del := &cobra.Command{
		Use:   "delete ID-OR-NAME",
		Short: "delete a plan no machine uses (operators)",
		Args:  cmdline.Args(1, "ID-OR-NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			pl, err := findPlan(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			if err := c.DeletePlan(cmd.Context(), pl.ID); err != nil {
				return err
			}
			a.done("deleted plan %s", pl.Name)
			return nil
		},
	}
	var capLocation string
	capacity := &cobra.Command{
		Use:   "capacity ID-OR-NAME",
		Short: "how many more machines of a plan fit now, node by node (the nodes of its location)",
		Args:  cmdline.Args(1, "ID-OR-NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			pl, err := findPlan(cmd.Context(), c, args[0])
			if err != nil {
				return err
			}
			loc := ""
			if capLocation != "" {
				// The plan's own location is the only one it is counted in: another
				// is refused by the server, saying which it is.
				if loc, err = planflags.FindLocation(cmd.Context(), c, capLocation); err != nil {
					return err
				}
			}
			cp, err := c.PlanCapacityIn(cmd.Context(), pl.ID, loc)
			if err != nil {
				return err
			}
			return p.Print(cp, func(w *tabwriter.Writer) {
				output.Header(w, "NODE", "ONLINE", "FITS", "FREE_CORES", "FREE_MEMORY_MB", "FREE_DISK_GB")
				for _, n := range cp.Nodes {
					output.Row(w, n.Node, output.YesNo(n.Online), output.Num(n.Fits), output.Num(n.FreeCPUCores), output.Num(n.FreeMemoryMB), output.Num(n.FreeDiskGB))
				}
				output.Row(w, "total", "", output.Num(cp.Total), "", "", "")
			})
		},
	}
	capacity.Flags().StringVar(&capLocation, "location", "", "the plan's location (id or name): another is refused")
	return cmdline.Group(&cobra.Command{Use: "plan", Short: "plans: the machine sizes sold, and how many more fit"},
		list, show, create, update, del, capacity)
}

// machinePlanCmd moves a machine to a plan.
func (a *app) machinePlanCmd() *cobra.Command {
	var wf cmdline.WaitFlags
	cmd := &cobra.Command{
		Use:   "plan ID PLAN",
		Short: "move a machine to a plan (its id or name): a resize to the plan's sizes; disks never shrink",
		Args:  cmdline.Args(2, "ID PLAN"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			pl, err := findPlan(cmd.Context(), c, args[1])
			if err != nil {
				return err
			}
			cc, inArea, err := machinecmd.ClientArea(cmd.Context(), c, a.tenantScope(), args[0])
			if err != nil {
				return err
			}
			var t *client.Task
			if inArea {
				t, err = cc.ChangePlan(cmd.Context(), args[0], pl.ID)
			} else {
				t, err = c.ChangeMachinePlan(cmd.Context(), args[0], pl.ID)
			}
			if err != nil {
				return err
			}
			return a.started(cmd.Context(), cc, p, t, wf)
		},
	}
	wf.Add(cmd)
	return cmd
}

// findPlan is the plan whose id, or else whose name (ignoring case), is ref; none is a
// usage error.
func findPlan(ctx context.Context, c *client.Client, ref string) (*client.Plan, error) {
	pl, err := planflags.Find(ctx, c, ref)
	if errors.Is(err, planflags.ErrNoPlan) {
		return nil, cmdline.Usagef("plan %q: %v (see 'vmplane plan list')", ref, err)
	}
	return pl, err
}
