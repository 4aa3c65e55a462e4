package machinecmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/cli/planflags"
	"github.com/vmplane/vmplane/cli/terminal"
	"github.com/vmplane/vmplane/client"
)

// plan is a machine size by name, the --plan of machine create. The API knows no
// plans: these are the CLI's shorthands for cores, memory and disk, which the
// --cores, --memory and --disk flags override one by one.
type plan struct {
	cores    int64
	memoryMB int64
	diskGB   int64
}

var plans = map[string]plan{
	"small":  {cores: 1, memoryMB: 1024, diskGB: 20},
	"medium": {cores: 2, memoryMB: 4096, diskGB: 40},
	"large":  {cores: 4, memoryMB: 8192, diskGB: 80},
	"xlarge": {cores: 8, memoryMB: 16384, diskGB: 160},
}

func planNames() []string {
	var names []string
	for n := range plans {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return plans[names[i]].cores < plans[names[j]].cores })
	return names
}

// Command is the machine verb, its subcommands built on app, with more (the machine
// verbs of other rooms of the client: plan, media, billing) among them.
func Command(app App, more ...*cobra.Command) *cobra.Command {
	a := verbs{app}
	var f client.MachineFilter
	var lim int
	list := &cobra.Command{
		Use:   "list",
		Short: "list the tenant's machines (operators: of the tenant --tenant names)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.Machines(cmd.Context(), f), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "NAME", "VMID", "STATUS", "NODE", "CORES", "MEMORY_MB", "DISK_GB", "ADDRESSES")
				for _, m := range items {
					output.Row(w, m.ID, m.Name, output.Num(m.VMID), m.Status, output.OrDash(m.Node), output.Num(m.CPUCores), output.Num(m.MemoryMB), output.Num(m.DiskGB), addresses(m))
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)
	list.Flags().StringVar(&f.Status, "status", "", "only machines in this status (running, stopped, ...)")
	list.Flags().StringVar(&f.Node, "node", "", "only machines on this node")
	list.Flags().StringVar(&f.Name, "name", "", "only machines of this name")

	show := &cobra.Command{
		Use:   "show ID",
		Short: "show a machine: its size, disks, interfaces and firewall state",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			m, err := c.GetMachine(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return cards.Machine(p, m)
		},
	}

	cmd := cmdline.Group(&cobra.Command{Use: "machine", Aliases: []string{"vm"}, Short: "machines: create, list, power, resize, reinstall, migrate, back up, restore, snapshot, delete"},
		list, show, a.machineCreateCmd(), a.machineResizeCmd(), a.machineDeleteCmd(), a.machineConsoleCmd(),
		a.machineReinstallCmd(), a.machineMigrateCmd(), a.machineUsageCmd(), a.machineUpdateCmd(),
		a.machineBackupCmd(), a.machineBackupsCmd(), a.machineRestoreCmd(), a.machineSnapshotCmd(), a.machineTasksCmd(), a.machinePTRCmd(), a.machineAddressCmd(), a.machineTrafficCmd())
	cmd.AddCommand(more...)
	for _, act := range []struct{ name, short string }{
		{client.ActionStart, "start a machine"},
		{client.ActionStop, "stop a machine at once (power off)"},
		{client.ActionShutdown, "shut a machine down through its guest OS"},
		{client.ActionReboot, "reboot a machine through its guest OS"},
		{client.ActionReset, "reset a machine at once (power cycle)"},
		{client.ActionSuspend, "suspend a machine to memory"},
		{client.ActionResume, "resume a suspended machine"},
	} {
		cmd.AddCommand(a.machineActionCmd(act.name, act.short))
	}
	return cmd
}

// ForMachine is c acting for the tenant of machine id: the client-area routes need
// the tenant named when an operator calls them, and an operator running
// `vmplane machine start ID` should not have to look it up. Without tenant (--tenant,
// for which c acts already) the machine is read first for its tenant.
func ForMachine(ctx context.Context, c *client.Client, tenant, id string) (*client.Client, error) {
	if tenant != "" {
		return c, nil
	}
	m, err := c.GetMachine(ctx, id)
	if err != nil {
		return nil, err
	}
	if m.TenantID == nil {
		return c, nil
	}
	return c.ForTenant(*m.TenantID), nil
}

// ClientArea is c acting for the tenant of machine id (ForMachine), and whether the
// machine has a tenant: its own routes in the client area then serve it, for its
// tenant's users and for operators alike. A machine no tenant has is the operators',
// through /api/virt.
func ClientArea(ctx context.Context, c *client.Client, tenant, id string) (*client.Client, bool, error) {
	if tenant != "" {
		return c, true, nil
	}
	m, err := c.GetMachine(ctx, id)
	if err != nil {
		return nil, false, err
	}
	if m.TenantID == nil {
		return c, false, nil
	}
	return c.ForTenant(*m.TenantID), true, nil
}

func (a verbs) machineActionCmd(action, short string) *cobra.Command {
	var wf cmdline.WaitFlags
	cmd := &cobra.Command{
		Use:   action + " ID",
		Short: short,
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			if c, err = ForMachine(cmd.Context(), c, a.TenantScope(), args[0]); err != nil {
				return err
			}
			t, err := c.MachineAction(cmd.Context(), args[0], action)
			if err != nil {
				return err
			}
			return a.Started(cmd.Context(), c, p, t, wf)
		},
	}
	wf.Add(cmd)
	return cmd
}

func (a verbs) machineCreateCmd() *cobra.Command {
	var (
		spec     client.MachineSpec
		planName string
		location string
		memory   string
		disk     string
		pwStdin  bool
		wf       cmdline.WaitFlags
	)
	cmd := &cobra.Command{
		Use:   "create --name NAME --template ID [--plan PLAN] [--cores N] [--memory SIZE] [--disk SIZE] [--location ID-OR-NAME]",
		Short: "create a machine in the tenant (operators: --tenant ID) from a template",
		Long: `Create a machine from a template (its id or name, see 'vmplane template list').
With --plan naming a plan of the server (its id or name, see 'vmplane plan list'), the
machine is made from that plan: its sizes are the plan's, and --cores, --memory and
--disk are refused. Otherwise its size comes from one of these (default small) and
the flags that override it:

  small   1 core,  1G memory,  20G disk
  medium  2 cores, 4G memory,  40G disk
  large   4 cores, 8G memory,  80G disk
  xlarge  8 cores, 16G memory, 160G disk

The disk is never smaller than the template's. --memory is in MB and --disk in GB
unless given with a unit (512M, 2G, 1T). With --wait the command waits until the
machine is built and shows it; without, it shows the machine and the task building it.`,
		Args: cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if spec.Name == "" {
				return cmdline.Usagef("--name is needed")
			}
			tplRef := spec.TemplateID
			if tplRef == "" {
				return cmdline.Usagef("--template is needed (see 'vmplane template list')")
			}
			pl, builtin := plans[planName]
			spec.CPUCores, spec.MemoryMB, spec.DiskGB = pl.cores, pl.memoryMB, pl.diskGB
			if cmd.Flags().Changed("cores") {
				n, _ := cmd.Flags().GetInt64("cores")
				spec.CPUCores = n
			}
			var err error
			if memory != "" {
				if spec.MemoryMB, err = cmdline.ParseSize(memory, "M"); err != nil {
					return cmdline.Usagef("--memory: %v", err)
				}
			}
			if disk != "" {
				if spec.DiskGB, err = cmdline.ParseSize(disk, "G"); err != nil {
					return cmdline.Usagef("--disk: %v", err)
				}
			}
			if spec.Password, err = a.stdinPassword(pwStdin); err != nil {
				return err
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("plan") {
				// A plan of the server first; else one of the sizes above.
				sp, err := planflags.Find(cmd.Context(), c, planName)
				switch {
				case err == nil:
					if cmd.Flags().Changed("cores") || memory != "" || disk != "" {
						return cmdline.Usagef("--cores, --memory and --disk do not go with plan %s: it gives the sizes", sp.Name)
					}
					spec.PlanID, spec.CPUCores, spec.MemoryMB, spec.DiskGB = sp.ID, 0, 0, 0
				case !builtin && errors.Is(err, planflags.ErrNoPlan):
					return cmdline.Usagef("--plan %q: no plan of the server has that id or name, and it is none of %s", planName, strings.Join(planNames(), ", "))
				case !builtin:
					return err
				}
			}
			if cmd.Flags().Changed("ipv4") {
				n, _ := cmd.Flags().GetInt64("ipv4")
				spec.IPv4 = &n
			}
			if v6, _ := cmd.Flags().GetBool("ipv6"); v6 {
				spec.IPv6 = &v6
			}
			if location != "" {
				if spec.LocationID, err = planflags.FindLocation(cmd.Context(), c, location); err != nil {
					return err
				}
			}
			tpl, err := findTemplate(cmd.Context(), c, tplRef)
			if err != nil {
				return err
			}
			spec.TemplateID = tpl.ID
			if spec.PlanID == "" && disk == "" && tpl.DiskGB > spec.DiskGB {
				spec.DiskGB = tpl.DiskGB
			}
			m, t, err := c.CreateMachine(cmd.Context(), spec)
			if err != nil {
				return err
			}
			return Provisioned(cmd.Context(), a, c, p, m, t, wf)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&spec.Name, "name", "", "the machine's name (a hostname)")
	fl.StringVar(&spec.TemplateID, "template", "", "the template's id or name")
	fl.StringVar(&planName, "plan", "small", "a plan of the server (id or name), or a size: "+strings.Join(planNames(), ", "))
	fl.Int64("cores", 0, "CPU cores (overrides the plan's)")
	fl.StringVar(&memory, "memory", "", "memory, in MB or with a unit: 2048, 2G (overrides the plan's)")
	fl.StringVar(&disk, "disk", "", "disk size, in GB or with a unit: 40, 1T (overrides the plan's)")
	fl.StringVar(&spec.Node, "node", "", "the node to place it on, by its id or its name in the location (default: the server chooses)")
	fl.StringVar(&location, "location", "", "the location (id or name) to make it in (default: its plan's, or the default one)")
	fl.StringArrayVar(&spec.SSHKeys, "ssh-key", nil, "an SSH public key for cloud-init (repeatable)")
	fl.Int64("ipv4", 0, "operators, without a plan of the server: IPv4 addresses from the IP pools (a plan gives its own)")
	fl.Bool("ipv6", false, "operators, without a plan of the server: a routed IPv6 /64 from the IP pools")
	fl.StringVar(&spec.Address, "address", "", "the machine's first IPv4 address, asked of the IP pools (default: the lowest free)")
	fl.BoolVar(&pwStdin, "password-stdin", false, "read the machine's root password from the first line of standard input")
	_ = cmd.RegisterFlagCompletionFunc("plan", cobra.FixedCompletions(planNames(), cobra.ShellCompDirectiveNoFileComp))
	wf.Add(cmd)
	return cmd
}

// findTemplate is the template whose id, or else whose name, is ref.
func findTemplate(ctx context.Context, c *client.Client, ref string) (*client.Template, error) {
	tpls, err := cmdline.Collect(c.Templates(ctx, client.ListOptions{}), 0)
	if err != nil {
		return nil, err
	}
	for _, t := range tpls {
		if t.ID == ref {
			return &t, nil
		}
	}
	var found []client.Template
	for _, t := range tpls {
		if t.Name == ref {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 1:
		return &found[0], nil
	case 0:
		return nil, fmt.Errorf("no template %q (see 'vmplane template list')", ref)
	}
	return nil, fmt.Errorf("%d templates are called %q: give the id", len(found), ref)
}

func (a verbs) machineResizeCmd() *cobra.Command {
	var (
		cores        int64
		memory, disk string
		wf           cmdline.WaitFlags
	)
	cmd := &cobra.Command{
		Use:   "resize ID [--cores N] [--memory SIZE] [--disk SIZE]",
		Short: "change a machine's cores, memory or disk (disks only grow)",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var r client.Resize
			var err error
			if cmd.Flags().Changed("cores") {
				r.CPUCores = cores
			}
			if memory != "" {
				if r.MemoryMB, err = cmdline.ParseSize(memory, "M"); err != nil {
					return cmdline.Usagef("--memory: %v", err)
				}
			}
			if disk != "" {
				if r.DiskGB, err = cmdline.ParseSize(disk, "G"); err != nil {
					return cmdline.Usagef("--disk: %v", err)
				}
			}
			if r == (client.Resize{}) {
				return cmdline.Usagef("nothing to change: give --cores, --memory or --disk")
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			if c, err = ForMachine(cmd.Context(), c, a.TenantScope(), args[0]); err != nil {
				return err
			}
			t, err := c.ResizeMachine(cmd.Context(), args[0], r)
			if err != nil {
				return err
			}
			return a.Started(cmd.Context(), c, p, t, wf)
		},
	}
	cmd.Flags().Int64Var(&cores, "cores", 0, "CPU cores")
	cmd.Flags().StringVar(&memory, "memory", "", "memory, in MB or with a unit (2G)")
	cmd.Flags().StringVar(&disk, "disk", "", "disk size, in GB or with a unit (1T); only grows")
	wf.Add(cmd)
	return cmd
}

func (a verbs) machineDeleteCmd() *cobra.Command {
	var wf cmdline.WaitFlags
	var yes bool
	cmd := &cobra.Command{
		Use:     "delete ID",
		Aliases: []string{"rm"},
		Short:   "destroy a machine and its disks (asks first on a terminal; --yes otherwise)",
		Args:    cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ask := !yes
			if ask && !terminal.Is(a.Stdin()) {
				return cmdline.Usagef("machine delete destroys machine %s and its disks: give --yes to confirm (there is no terminal to ask on)", args[0])
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			if ask {
				m, err := c.GetMachine(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				q := fmt.Sprintf("delete machine %s (%s, state %s) and its disks? [y/N] ", m.Name, m.ID, m.Status)
				answer, _ := terminal.Ask(bufio.NewReader(a.Stdin()), a.Stderr(), q)
				if answer = strings.ToLower(answer); answer != "y" && answer != "yes" {
					return fmt.Errorf("machine %s not deleted", m.ID)
				}
			}
			t, err := c.DeleteMachine(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.Started(cmd.Context(), c, p, t, wf)
		},
	}
	wf.Add(cmd)
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "delete without asking (needed when standard input is not a terminal)")
	return cmd
}

func addresses(m client.Machine) string {
	var ips []string
	for _, ic := range m.Interfaces {
		ips = append(ips, ic.IPAddresses...)
	}
	if len(ips) == 0 {
		return "-"
	}
	return strings.Join(ips, ",")
}

// Provisioned prints a new machine and the task that makes it (a create, a restore
// into a new machine), or with --wait waits for the task's end and prints the machine
// as it then is.
func Provisioned(ctx context.Context, a App, c *client.Client, p output.Printer, m *client.Machine, t *client.Task, wf cmdline.WaitFlags) error {
	if !wf.Wait {
		return p.Print(struct {
			Machine *client.Machine `json:"machine"`
			Task    *client.Task    `json:"task"`
		}{m, t}, func(w *tabwriter.Writer) {
			cards.MachineFields(w, m)
			output.Field(w, "Task", t.ID+" ("+t.Status+")")
		})
	}
	if _, err := a.Wait(ctx, c, t, wf.Timeout); err != nil {
		return err
	}
	m, err := c.GetMachine(ctx, m.ID)
	if err != nil {
		return err
	}
	return cards.Machine(p, m)
}
