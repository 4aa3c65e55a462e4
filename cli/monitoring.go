package cli

import (
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/client"
)

func (a *app) monitoringCmd() *cobra.Command {
	overview := &cobra.Command{
		Use:   "overview",
		Short: "the cluster at a glance: nodes, machines, open alerts, health checks, capacity (operators)",
		Args:  args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			o, err := c.MonitoringOverview(cmd.Context())
			if err != nil {
				return err
			}
			return p.print(o, func(w *tabwriter.Writer) {
				n, m, al, hc, cp := o.Nodes, o.Machines, o.Alerts, o.HealthChecks, o.Capacity
				field(w, "Nodes", fmt.Sprintf("%d: %d online, %d offline", n.Total, n.Online, n.Offline))
				field(w, "Machines", fmt.Sprintf("%d: %d running, %d stopped, %d error, %d other", m.Total, m.Running, m.Stopped, m.Error, m.Other))
				field(w, "Alerts", fmt.Sprintf("%d firing (%d critical), %d acknowledged", al.Firing, al.Critical, al.Acknowledged))
				field(w, "Health checks", fmt.Sprintf("%d: %d passing, %d failing, %d unknown, %d disabled", hc.Total, hc.Passing, hc.Failing, hc.Unknown, hc.Disabled))
				field(w, "CPU", fmt.Sprintf("%s of %d cores (%s)", fixed(cp.CPU.UsedCores, 1), cp.CPU.TotalCores, ratio(cp.CPU.Ratio)))
				field(w, "Memory", fmt.Sprintf("%s of %d MB (%s)", fixed(cp.Memory.UsedMB, 0), cp.Memory.TotalMB, ratio(cp.Memory.Ratio)))
				field(w, "Disk", fmt.Sprintf("%s of %d GB (%s)", fixed(cp.Disk.UsedGB, 0), cp.Disk.TotalGB, ratio(cp.Disk.Ratio)))
			})
		},
	}

	faulty := &cobra.Command{
		Use:   "faulty",
		Short: "machines in trouble: failed deployments, crash loops, repeated task failures (operators)",
		Args:  args(0, ""),
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
			return p.print(items, func(w *tabwriter.Writer) {
				header(w, "MACHINE", "NAME", "TENANT", "REASON", "FAILED_TASKS", "SINCE", "LAST_ERROR")
				for _, f := range items {
					row(w, f.MachineID, f.Name, str(f.TenantID), f.Reason, num(f.FailedTasks), when(f.Since), str(f.LastError))
				}
			})
		},
	}

	var horizon int
	forecast := &cobra.Command{
		Use:   "forecast [--horizon DAYS]",
		Short: "the cluster's cpu, memory and disk use, its trend, and the day each runs out (operators)",
		Args:  args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if horizon < 0 || horizon > 365 {
				return usagef("--horizon %d: want 1..365 days (0: the server's default)", horizon)
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			fc, err := c.ClusterForecast(cmd.Context(), horizon)
			if err != nil {
				return err
			}
			return p.print(fc, func(w *tabwriter.Writer) {
				header(w, "RESOURCE", "UNIT", "USED", "CAPACITY", "TREND_PER_DAY", "EXHAUSTED_WITHIN_"+num(fc.HorizonDays)+"D")
				for _, r := range fc.Resources {
					if r.Unit == "bytes" {
						row(w, r.Resource, r.Unit, bytesIEC(r.Used), bytesIEC(r.Capacity), signed(bytesIEC, r.TrendPerDay), orDash(deref(r.ExhaustedAt)))
						continue
					}
					row(w, r.Resource, r.Unit, fixed(r.Used, 1), fixed(r.Capacity, 1), fixed(r.TrendPerDay, 2), orDash(deref(r.ExhaustedAt)))
				}
			})
		},
	}
	forecast.Flags().IntVar(&horizon, "horizon", 0, "days ahead to look (1..365; default: the server's)")

	var days int
	trends := &cobra.Command{
		Use:   "trends [--days N]",
		Short: "the tenant's daily consumption: core hours, memory GB hours, network (operators: --tenant)",
		Args:  args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			tr, err := c.UsageTrends(cmd.Context(), days)
			if err != nil {
				return err
			}
			return p.print(tr, func(w *tabwriter.Writer) {
				header(w, "DATE", "CPU_CORE_HOURS", "MEMORY_GB_HOURS", "NET_IN", "NET_OUT")
				for _, pt := range tr.Points {
					row(w, pt.Date, fixed(pt.CPUCoreHours, 2), fixed(pt.MemoryGBHours, 2), bytesIEC(pt.NetInBytes), bytesIEC(pt.NetOutBytes))
				}
			})
		},
	}
	trends.Flags().IntVar(&days, "days", 0, "how many days back (default: the server's)")

	return group(&cobra.Command{Use: "monitoring", Short: "the operators' view of the cluster's health, and usage trends"},
		overview, faulty, forecast, trends)
}

func fixed(v float64, digits int) string { return strconv.FormatFloat(v, 'f', digits, 64) }

func ratio(r float64) string { return fixed(r*100, 1) + "%" }

// signed is f of v's size with its sign: +1.5 GiB, -20.0 MiB.
func signed(f func(float64) string, v float64) string {
	if v < 0 {
		return "-" + f(-v)
	}
	return "+" + f(v)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
