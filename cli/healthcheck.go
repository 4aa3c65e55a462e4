package cli

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// checkFlags are the flags of health-check create and update.
type checkFlags struct {
	name, typ, target, machine             string
	interval, timeout, expected, threshold int64
	enabled                                bool
}

func (f *checkFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.name, "name", "", "the check's name")
	fl.StringVar(&f.typ, "type", "", "http (a URL answers) or tcp (a host:port accepts)")
	fl.StringVar(&f.target, "target", "", "the URL (http) or host:port (tcp) to probe; a tenant's user may probe its machines' addresses only")
	fl.Int64Var(&f.interval, "interval", 0, "seconds between probes (default 60)")
	fl.Int64Var(&f.timeout, "timeout-ms", 0, "a probe's deadline in milliseconds (default 5000, or half the interval)")
	fl.Int64Var(&f.expected, "expected-status", 0, "the HTTP status a probe must get (default: any 2xx or 3xx)")
	fl.Int64Var(&f.threshold, "failure-threshold", 0, "how many failed probes in a row make the check failing")
	fl.StringVar(&f.machine, "machine", "", "the machine the check is about")
	fl.BoolVar(&f.enabled, "enabled", true, "--enabled=false keeps the check but does not probe")
	_ = cmd.RegisterFlagCompletionFunc("type", cobra.FixedCompletions([]string{client.CheckHTTP, client.CheckTCP}, cobra.ShellCompDirectiveNoFileComp))
}

func (a *app) healthCheckCmd() *cobra.Command {
	var lim int
	list := &cobra.Command{
		Use:   "list",
		Short: "list health checks with their latest result (operators: of --tenant, else all)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.HealthChecks(cmd.Context(), a.tenantScope(), client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "NAME", "TYPE", "TARGET", "EVERY", "ENABLED", "STATUS", "CHECKED", "LATENCY_MS")
				for _, hc := range items {
					output.Row(w, hc.ID, hc.Name, hc.Type, hc.Target, output.Num(hc.IntervalS)+"s", output.YesNo(hc.Enabled), hc.Last.Status, output.WhenPtr(hc.Last.CheckedAt), cards.Latency(hc.Last.CheckedAt != nil, hc.Last.LatencyMS))
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)

	show := &cobra.Command{
		Use:   "show ID",
		Short: "show a health check and its latest result",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			hc, err := c.GetHealthCheck(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return cards.Check(p, hc)
		},
	}

	results := &cobra.Command{
		Use:   "results ID",
		Short: "the check's recent probes, oldest first",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			hc, err := c.GetHealthCheck(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			rs := hc.Results
			if rs == nil {
				rs = []client.ProbeResult{}
			}
			return p.Print(rs, func(w *tabwriter.Writer) {
				output.Header(w, "CHECKED", "OK", "LATENCY_MS", "HTTP_STATUS", "ERROR")
				for _, r := range rs {
					code := "-"
					if r.StatusCode != nil {
						code = output.Num(*r.StatusCode)
					}
					output.Row(w, output.When(r.CheckedAt), output.YesNo(r.OK), cards.Latency(true, r.LatencyMS), code, output.Str(r.Error))
				}
			})
		},
	}

	var cf checkFlags
	create := &cobra.Command{
		Use:   "create --name N --type http|tcp --target URL|HOST:PORT [--interval S] [--machine ID] ...",
		Short: "create a health check; it starts probing at once",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cf.name == "" || cf.typ == "" || cf.target == "" {
				return cmdline.Usagef("--name, --type and --target are needed")
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			spec := client.HealthCheckSpec{Name: cf.name, Type: cf.typ, Target: cf.target, IntervalS: cf.interval,
				TimeoutMS: cf.timeout, ExpectedStatus: cf.expected, FailureThreshold: cf.threshold, MachineID: cf.machine}
			if cmdline.Changed(cmd, "enabled") {
				spec.Enabled = &cf.enabled
			}
			hc, err := c.CreateHealthCheck(cmd.Context(), spec)
			if err != nil {
				return err
			}
			return cards.Check(p, hc)
		},
	}
	cf.add(create)

	var uf checkFlags
	var clearMachine bool
	update := &cobra.Command{
		Use:   "update ID [flags of create] [--clear-machine]",
		Short: "change the fields of a health check that the flags give; a new type, target or expected status starts it afresh",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if clearMachine && cmdline.Changed(cmd, "machine") {
				return cmdline.Usagef("--machine and --clear-machine: one or the other")
			}
			var ch client.HealthCheckChange
			setStr := func(name, v string, dst *client.Optional[string]) {
				if cmdline.Changed(cmd, name) {
					*dst = client.Set(v)
				}
			}
			setNum := func(name string, v int64, dst *client.Optional[int64]) {
				if cmdline.Changed(cmd, name) {
					*dst = client.Set(v)
				}
			}
			setStr("name", uf.name, &ch.Name)
			setStr("type", uf.typ, &ch.Type)
			setStr("target", uf.target, &ch.Target)
			setStr("machine", uf.machine, &ch.MachineID)
			setNum("interval", uf.interval, &ch.IntervalS)
			setNum("timeout-ms", uf.timeout, &ch.TimeoutMS)
			setNum("expected-status", uf.expected, &ch.ExpectedStatus)
			setNum("failure-threshold", uf.threshold, &ch.FailureThreshold)
			if cmdline.Changed(cmd, "enabled") {
				ch.Enabled = client.Set(uf.enabled)
			}
			if clearMachine {
				ch.MachineID = client.Null[string]()
			}
			if ch == (client.HealthCheckChange{}) {
				return cmdline.Usagef("nothing to change: give a flag of the fields to change")
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			hc, err := c.UpdateHealthCheck(cmd.Context(), args[0], ch)
			if err != nil {
				return err
			}
			return cards.Check(p, hc)
		},
	}
	uf.add(update)
	update.Flags().BoolVar(&clearMachine, "clear-machine", false, "untie the check from its machine (sends machine_id null)")

	del := &cobra.Command{
		Use:     "delete ID",
		Aliases: []string{"rm"},
		Short:   "delete a health check: it stops probing and its alert resolves",
		Args:    cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.DeleteHealthCheck(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("deleted health check %s", args[0])
			return nil
		},
	}
	return cmdline.Group(&cobra.Command{Use: "health-check", Aliases: []string{"hc"}, Short: "HTTP and TCP health checks; a failing one raises an alert"},
		list, show, create, update, del, results)
}
