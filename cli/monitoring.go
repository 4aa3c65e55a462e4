package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

func (a *app) monitoringCmd() *cobra.Command {
	overview := &cobra.Command{
		Use:   "overview",
		Short: "the cluster at a glance: nodes, machines, open alerts, health checks, capacity (operators)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			o, err := c.MonitoringOverview(cmd.Context())
			if err != nil {
				return err
			}
			return p.Print(o, func(w *tabwriter.Writer) {
				n, m, al, hc, cp := o.Nodes, o.Machines, o.Alerts, o.HealthChecks, o.Capacity
				output.Field(w, "Nodes", fmt.Sprintf("%d: %d online, %d offline", n.Total, n.Online, n.Offline))
				output.Field(w, "Machines", fmt.Sprintf("%d: %d running, %d stopped, %d error, %d other", m.Total, m.Running, m.Stopped, m.Error, m.Other))
				output.Field(w, "Alerts", fmt.Sprintf("%d firing (%d critical), %d acknowledged", al.Firing, al.Critical, al.Acknowledged))
				output.Field(w, "Health checks", fmt.Sprintf("%d: %d passing, %d failing, %d unknown, %d disabled", hc.Total, hc.Passing, hc.Failing, hc.Unknown, hc.Disabled))
				output.Field(w, "CPU", fmt.Sprintf("%s of %d cores (%s)", output.Fixed(cp.CPU.UsedCores, 1), cp.CPU.TotalCores, output.Ratio(cp.CPU.Ratio)))
				output.Field(w, "Memory", fmt.Sprintf("%s of %d MB (%s)", output.Fixed(cp.Memory.UsedMB, 0), cp.Memory.TotalMB, output.Ratio(cp.Memory.Ratio)))
				output.Field(w, "Disk", fmt.Sprintf("%s of %d GB (%s)", output.Fixed(cp.Disk.UsedGB, 0), cp.Disk.TotalGB, output.Ratio(cp.Disk.Ratio)))
			})
		},
	}

	faulty := &cobra.Command{
		Use:   "faulty",
		Short: "machines in trouble: failed deployments, crash loops, repeated task failures (operators)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := c.FaultyDeployments(cmd.Context())
			if err != nil {
				return err
			}
			if items == nil {
				items = []client.FaultyDeployment{}
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "MACHINE", "NAME", "TENANT", "REASON", "FAILED_TASKS", "SINCE", "LAST_ERROR")
				for _, f := range items {
					output.Row(w, f.MachineID, f.Name, output.Str(f.TenantID), f.Reason, output.Num(f.FailedTasks), output.When(f.Since), output.Str(f.LastError))
				}
			})
		},
	}

	var horizon int
	forecast := &cobra.Command{
		Use:   "forecast [--horizon DAYS]",
		Short: "the cluster's cpu, memory and disk use, its trend, and the day each runs out (operators)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if horizon < 0 || horizon > 365 {
				return cmdline.Usagef("--horizon %d: want 1..365 days (0: the server's default)", horizon)
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			fc, err := c.ClusterForecast(cmd.Context(), horizon)
			if err != nil {
				return err
			}
			return p.Print(fc, func(w *tabwriter.Writer) {
				output.Header(w, "RESOURCE", "UNIT", "USED", "CAPACITY", "TREND_PER_DAY", "EXHAUSTED_WITHIN_"+output.Num(fc.HorizonDays)+"D")
				for _, r := range fc.Resources {
					if r.Unit == "bytes" {
						output.Row(w, r.Resource, r.Unit, output.BytesIEC(r.Used), output.BytesIEC(r.Capacity), output.Signed(output.BytesIEC, r.TrendPerDay), output.Str(r.ExhaustedAt))
						continue
					}
					output.Row(w, r.Resource, r.Unit, output.Fixed(r.Used, 1), output.Fixed(r.Capacity, 1), output.Fixed(r.TrendPerDay, 2), output.Str(r.ExhaustedAt))
				}
			})
		},
	}
	forecast.Flags().IntVar(&horizon, "horizon", 0, "days ahead to look (1..365; default: the server's)")

	var days int
	trends := &cobra.Command{
		Use:   "trends [--days N]",
		Short: "the tenant's daily consumption: core hours, memory GB hours, network (operators: --tenant)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			tr, err := c.UsageTrends(cmd.Context(), days)
			if err != nil {
				return err
			}
			return p.Print(tr, func(w *tabwriter.Writer) {
				output.Header(w, "DATE", "CPU_CORE_HOURS", "MEMORY_GB_HOURS", "NET_IN", "NET_OUT")
				for _, pt := range tr.Points {
					output.Row(w, pt.Date, output.Fixed(pt.CPUCoreHours, 2), output.Fixed(pt.MemoryGBHours, 2), output.BytesIEC(pt.NetInBytes), output.BytesIEC(pt.NetOutBytes))
				}
			})
		},
	}
	trends.Flags().IntVar(&days, "days", 0, "how many days back (default: the server's)")

	return cmdline.Group(&cobra.Command{Use: "monitoring", Short: "the operators' view of the cluster's health, and usage trends"},
		overview, faulty, forecast, trends)
}
