package machinecmd

import (
	"bufio"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/cli/terminal"
	"github.com/vmplane/vmplane/client"
)

// The machine verbs beyond create, power, resize and delete: the operators'
// reinstall, migrate and usage graph, and update (rename, move between tenants).

func (a verbs) machineReinstallCmd() *cobra.Command {
	var (
		tplRef  string
		keys    []string
		pwStdin bool
		wf      cmdline.WaitFlags
	)
	cmd := &cobra.Command{
		Use:   "reinstall ID --template ID-or-name [--ssh-key KEY] [--password-stdin]",
		Short: "rebuild a machine's system disk from a template; its data is lost",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if tplRef == "" {
				return cmdline.Usagef("--template is needed (see 'vmplane template list')")
			}
			r := client.Reinstall{SSHKeys: keys}
			var err error
			if r.Password, err = a.stdinPassword(pwStdin); err != nil {
				return err
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			tpl, err := findTemplate(cmd.Context(), c, tplRef)
			if err != nil {
				return err
			}
			r.TemplateID = tpl.ID
			mc, ok, err := ClientArea(cmd.Context(), c, a.TenantScope(), args[0])
			if err != nil {
				return err
			}
			var t *client.Task
			if ok {
				t, err = mc.Reinstall(cmd.Context(), args[0], r)
			} else {
				t, err = c.ReinstallMachine(cmd.Context(), args[0], r)
			}
			if err != nil {
				return err
			}
			return a.Started(cmd.Context(), c, p, t, wf)
		},
	}
	cmd.Flags().StringVar(&tplRef, "template", "", "the template's id or name")
	cmd.Flags().StringArrayVar(&keys, "ssh-key", nil, "an SSH public key for cloud-init (repeatable)")
	cmd.Flags().BoolVar(&pwStdin, "password-stdin", false, "read the new root password from the first line of standard input")
	wf.Add(cmd)
	return cmd
}

func (a verbs) machineMigrateCmd() *cobra.Command {
	var (
		node            string
		online, offline bool
		wf              cmdline.WaitFlags
	)
	cmd := &cobra.Command{
		Use:   "migrate ID --node NODE [--online | --offline]",
		Short: "move a machine to another node (operators): a running one live unless --offline",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if node == "" {
				return cmdline.Usagef("--node is needed (the target node's name)")
			}
			if online && offline {
				return cmdline.Usagef("--online and --offline: one or the other")
			}
			var mode *bool
			if online || offline {
				mode = &online
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			t, err := c.MigrateMachine(cmd.Context(), args[0], node, mode)
			if err != nil {
				return err
			}
			return a.Started(cmd.Context(), c, p, t, wf)
		},
	}
	cmd.Flags().StringVar(&node, "node", "", "the node to move the machine to")
	cmd.Flags().BoolVar(&online, "online", false, "migrate live (the default for a running machine)")
	cmd.Flags().BoolVar(&offline, "offline", false, "migrate stopped (a running machine is stopped for the move)")
	wf.Add(cmd)
	return cmd
}

func (a verbs) machineUsageCmd() *cobra.Command {
	var (
		timeframe string
		last      int
	)
	cmd := &cobra.Command{
		Use:   "usage ID [--timeframe hour|day|week|month|year] [--last N]",
		Short: "a machine's usage graph as a table of its points, oldest first",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if last < 0 {
				return cmdline.Usagef("--last %d: want a number of points (0: all)", last)
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			mc, ok, err := ClientArea(cmd.Context(), c, a.TenantScope(), args[0])
			if err != nil {
				return err
			}
			var g *client.UsageGraph
			if ok {
				g, err = mc.MachineGraph(cmd.Context(), args[0], timeframe)
			} else {
				g, err = c.MachineUsage(cmd.Context(), args[0], timeframe)
			}
			if err != nil {
				return err
			}
			if g.Points == nil {
				g.Points = []client.UsagePoint{}
			}
			if last > 0 && len(g.Points) > last {
				g.Points = g.Points[len(g.Points)-last:]
			}
			return p.Print(g, func(w *tabwriter.Writer) {
				output.Header(w, "TIME", "CPU", "MEMORY", "NET_IN/S", "NET_OUT/S", "DISK_READ/S", "DISK_WRITE/S")
				for _, pt := range g.Points {
					output.Row(w, output.When(pt.Time), output.Percent(pt.CPU), output.Size(pt.MemBytes), output.Size(pt.NetInBps), output.Size(pt.NetOutBps), output.Size(pt.DiskReadBps), output.Size(pt.DiskWriteBps))
				}
			})
		},
	}
	tfs := []string{client.TimeframeHour, client.TimeframeDay, client.TimeframeWeek, client.TimeframeMonth, client.TimeframeYear}
	cmd.Flags().StringVar(&timeframe, "timeframe", "", "hour, day, week, month or year (default: the server's)")
	cmd.Flags().IntVar(&last, "last", 0, "show only the newest N points (0: all)")
	_ = cmd.RegisterFlagCompletionFunc("timeframe", cobra.FixedCompletions(tfs, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// stdinPassword is the machine's root password, read from the first line of standard
// input when --password-stdin (given) says so; "" otherwise.
func (a verbs) stdinPassword(given bool) (string, error) {
	if !given {
		return "", nil
	}
	return terminal.Password(bufio.NewReader(a.Stdin()), true, a.Stdin(), a.Stderr(), "")
}

func (a verbs) machineUpdateCmd() *cobra.Command {
	var (
		name, moveTo string
		clearTenant  bool
		wf           cmdline.WaitFlags
	)
	cmd := &cobra.Command{
		Use:   "update ID [--name NAME] [--move-to TENANT_ID | --clear-tenant]",
		Short: "rename a machine, or move it to another tenant or out of its tenant (operators)",
		Long: `Rename a machine (a task: --wait waits for it), or move it to another tenant
(--move-to, operators), or take it from its tenant (--clear-tenant, which sends
tenant_id null). A move alone is done at once and shows the machine.`,
		Args: cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ch client.MachineChange
			if cmd.Flags().Changed("name") {
				ch.Name = client.Set(name)
			}
			switch {
			case clearTenant && cmd.Flags().Changed("move-to"):
				return cmdline.Usagef("--move-to and --clear-tenant: one or the other")
			case clearTenant:
				ch.TenantID = client.Null[string]()
			case cmd.Flags().Changed("move-to"):
				ch.TenantID = client.Set(moveTo)
			}
			if ch == (client.MachineChange{}) {
				return cmdline.Usagef("nothing to change: give --name, --move-to or --clear-tenant")
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			m, t, err := c.UpdateMachine(cmd.Context(), args[0], ch)
			if err != nil {
				return err
			}
			if t != nil {
				return a.Started(cmd.Context(), c, p, t, wf)
			}
			return cards.Machine(p, m)
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the machine's new name (a hostname)")
	cmd.Flags().StringVar(&moveTo, "move-to", "", "the tenant to move the machine to")
	cmd.Flags().BoolVar(&clearTenant, "clear-tenant", false, "take the machine from its tenant (sends tenant_id null)")
	wf.Add(cmd)
	return cmd
}
