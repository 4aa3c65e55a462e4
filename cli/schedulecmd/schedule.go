package schedulecmd

import (
	"context"
	"errors"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/machinecmd"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// Kinds of schedule, the --kind of the schedule verbs.
const (
	kindPower  = "power"
	kindBackup = "backup"
)

// schedule is a power or a backup schedule in one shape, so that one list shows
// both: Kind says which, Action is a power schedule's, Retention and Mode a backup
// schedule's.
type schedule struct {
	Kind string `json:"kind"`
	client.ScheduleBase
	Action    string `json:"action,omitempty"`
	Retention int64  `json:"retention,omitempty"`
	Mode      string `json:"mode,omitempty"`
}

func fromPower(s client.PowerSchedule) schedule {
	return schedule{Kind: kindPower, ScheduleBase: s.ScheduleBase, Action: s.Action}
}

func fromBackup(s client.BackupSchedule) schedule {
	return schedule{Kind: kindBackup, ScheduleBase: s.ScheduleBase, Retention: s.Retention, Mode: s.Mode}
}

// what is the schedule's job in a few words: the power action, or the backup's mode
// and retention.
func (s schedule) what() string {
	if s.Kind == kindPower {
		return s.Action
	}
	return s.Mode + ", keep " + output.Num(s.Retention)
}

// scheduleFlags are the flags of schedule create and update.
type scheduleFlags struct {
	kind, machine, cron, timezone, action, mode string
	retention                                   int64
	enabled                                     bool
}

func (f *scheduleFlags) add(cmd *cobra.Command, create bool) {
	fl := cmd.Flags()
	kindHelp := "power or backup (default: the schedule's own)"
	if create {
		kindHelp = "power or backup"
		fl.StringVar(&f.machine, "machine", "", "the machine the schedule is for")
	}
	fl.StringVar(&f.kind, "kind", "", kindHelp)
	fl.StringVar(&f.cron, "cron", "", `when it runs: 5 cron fields (minute hour day month weekday), a leading seconds field, or @daily, @weekly, ...`)
	fl.StringVar(&f.timezone, "timezone", "", "the IANA time zone the cron expression is read in (default UTC)")
	fl.StringVar(&f.action, "action", "", "power schedules: start, stop, shutdown or reboot")
	fl.StringVar(&f.mode, "mode", "", "backup schedules: snapshot (default), suspend or stop")
	fl.Int64Var(&f.retention, "retention", 0, "backup schedules: how many of its backups are kept (1..100)")
	fl.BoolVar(&f.enabled, "enabled", true, "--enabled=false keeps the schedule but does not run it")
	for name, vals := range map[string][]string{
		"kind":   {kindPower, kindBackup},
		"action": {client.ActionStart, client.ActionStop, client.ActionShutdown, client.ActionReboot},
		"mode":   {client.BackupSnapshot, client.BackupSuspend, client.BackupStop},
	} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
	}
}

// impliedKind is the kind the flags given imply: --action is a power schedule's,
// --retention and --mode a backup schedule's; "" when they imply none. Flags of both
// kinds are a usage error.
func (f *scheduleFlags) impliedKind(cmd *cobra.Command) (string, error) {
	power := cmdline.Changed(cmd, "action")
	backup := cmdline.Changed(cmd, "retention") || cmdline.Changed(cmd, "mode")
	kind := f.kind
	if err := checkKind(kind); err != nil {
		return "", err
	}
	switch {
	case power && backup:
		return "", cmdline.Usagef("--action is a power schedule's, --retention and --mode a backup schedule's: not both")
	case power && kind == kindBackup, backup && kind == kindPower:
		return "", cmdline.Usagef("--kind %s takes no %s", kind, map[bool]string{true: "--action", false: "--retention or --mode"}[power])
	case power:
		return kindPower, nil
	case backup:
		return kindBackup, nil
	}
	return kind, nil
}

// kindOf is the kind of the schedule id: the one given, or else the one it is found
// as (power schedules first).
func kindOf(ctx context.Context, c *client.Client, id, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	_, err := c.GetPowerSchedule(ctx, id)
	if err == nil {
		return kindPower, nil
	}
	if !errors.Is(err, client.ErrNotFound) {
		return "", err
	}
	if _, err := c.GetBackupSchedule(ctx, id); err != nil {
		return "", err
	}
	return kindBackup, nil
}

func checkKind(kind string) error {
	switch kind {
	case "", kindPower, kindBackup:
		return nil
	}
	return cmdline.Usagef("--kind %q: want power or backup", kind)
}

// Command is the schedule verb (`vmplane schedule`) on app.
func Command(app App) *cobra.Command {
	a := verbs{app}
	var (
		kind, machine string
		lim           int
	)
	list := &cobra.Command{
		Use:   "list [--kind power|backup] [--machine ID]",
		Short: "list power and backup schedules (of one machine with --machine; operators: of --tenant)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkKind(kind); err != nil {
				return err
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			f := client.RecordFilter{MachineID: machine, TenantID: a.TenantScope()}
			items := []schedule{}
			if kind != kindBackup {
				ps, err := cmdline.Collect(c.PowerSchedules(cmd.Context(), f), lim)
				if err != nil {
					return err
				}
				for _, s := range ps {
					items = append(items, fromPower(s))
				}
			}
			if kind != kindPower && (lim == 0 || len(items) < lim) {
				bs, err := cmdline.Collect(c.BackupSchedules(cmd.Context(), f), lim-len(items))
				if err != nil {
					return err
				}
				for _, s := range bs {
					items = append(items, fromBackup(s))
				}
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "KIND", "MACHINE", "CRON", "TIMEZONE", "DOES", "ENABLED", "RUNS", "NEXT_RUN", "LAST_STATUS")
				for _, s := range items {
					output.Row(w, s.ID, s.Kind, s.MachineID, s.Cron, s.Timezone, s.what(), output.YesNo(s.Enabled), output.Num(s.Runs), output.WhenPtr(s.NextRunAt), output.Str(s.LastStatus))
				}
			})
		},
	}
	list.Flags().StringVar(&kind, "kind", "", "only power or only backup schedules")
	list.Flags().StringVar(&machine, "machine", "", "only the schedules of this machine")
	cmdline.LimitFlag(list, &lim)

	var showKind string
	show := &cobra.Command{
		Use:   "show ID [--kind power|backup]",
		Short: "show a schedule: its cron, its job and its last run",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkKind(showKind); err != nil {
				return err
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			k, err := kindOf(cmd.Context(), c, args[0], showKind)
			if err != nil {
				return err
			}
			s, err := getSchedule(cmd.Context(), c, args[0], k)
			if err != nil {
				return err
			}
			return printSchedule(p, s)
		},
	}
	show.Flags().StringVar(&showKind, "kind", "", "power or backup (default: found by the id)")

	var delKind string
	del := &cobra.Command{
		Use:     "delete ID [--kind power|backup]",
		Aliases: []string{"rm"},
		Short:   "delete a schedule (the backups it took stay)",
		Args:    cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkKind(delKind); err != nil {
				return err
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			k, err := kindOf(cmd.Context(), c, args[0], delKind)
			if err != nil {
				return err
			}
			del := c.DeleteBackupSchedule
			if k == kindPower {
				del = c.DeletePowerSchedule
			}
			if err := del(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done(p, "deleted %s schedule %s", k, args[0])
			return nil
		},
	}
	del.Flags().StringVar(&delKind, "kind", "", "power or backup (default: found by the id)")

	return cmdline.Group(&cobra.Command{Use: "schedule", Short: "power and backup schedules of machines (cron)"},
		list, show, a.scheduleCreateCmd(), a.scheduleUpdateCmd(), del)
}

func getSchedule(ctx context.Context, c *client.Client, id, kind string) (schedule, error) {
	if kind == kindPower {
		s, err := c.GetPowerSchedule(ctx, id)
		if err != nil {
			return schedule{}, err
		}
		return fromPower(*s), nil
	}
	s, err := c.GetBackupSchedule(ctx, id)
	if err != nil {
		return schedule{}, err
	}
	return fromBackup(*s), nil
}

func (a verbs) scheduleCreateCmd() *cobra.Command {
	var f scheduleFlags
	cmd := &cobra.Command{
		Use:   "create --kind power|backup --machine ID --cron EXPR [--action A | --retention N [--mode M]] [--timezone TZ]",
		Short: "add a power or backup schedule to a machine",
		Long: `Add a schedule to a machine. A power schedule runs --action (start, stop, shutdown
or reboot); a backup schedule backs the machine up in --mode (snapshot, suspend or
stop) and keeps the newest --retention of its backups. --cron is read in --timezone
(default UTC): "0 2 * * *" is every day at 02:00. --kind may be left out when
--action or --retention says it.`,
		Args: cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			kind, err := f.impliedKind(cmd)
			if err != nil {
				return err
			}
			switch {
			case kind == "":
				return cmdline.Usagef("--kind power or --kind backup is needed")
			case f.machine == "" || f.cron == "":
				return cmdline.Usagef("--machine and --cron are needed")
			case kind == kindPower && f.action == "":
				return cmdline.Usagef("a power schedule needs --action (start, stop, shutdown or reboot)")
			case kind == kindBackup && f.retention == 0:
				return cmdline.Usagef("a backup schedule needs --retention (how many backups to keep)")
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			// An operator's schedule names the machine's tenant, found as the power
			// actions find it.
			if c, err = machinecmd.ForMachine(cmd.Context(), c, a.TenantScope(), f.machine); err != nil {
				return err
			}
			var enabled *bool
			if cmdline.Changed(cmd, "enabled") {
				enabled = &f.enabled
			}
			if kind == kindPower {
				s, err := c.CreatePowerSchedule(cmd.Context(), client.PowerScheduleSpec{
					MachineID: f.machine, Action: f.action, Cron: f.cron, Timezone: f.timezone, Enabled: enabled})
				if err != nil {
					return err
				}
				return printSchedule(p, fromPower(*s))
			}
			s, err := c.CreateBackupSchedule(cmd.Context(), client.BackupScheduleSpec{
				MachineID: f.machine, Cron: f.cron, Retention: f.retention, Mode: f.mode, Timezone: f.timezone, Enabled: enabled})
			if err != nil {
				return err
			}
			return printSchedule(p, fromBackup(*s))
		},
	}
	f.add(cmd, true)
	return cmd
}

func (a verbs) scheduleUpdateCmd() *cobra.Command {
	var f scheduleFlags
	cmd := &cobra.Command{
		Use:   "update ID [--cron EXPR] [--timezone TZ] [--enabled=BOOL] [--action A | --retention N --mode M]",
		Short: "change the fields of a schedule that the flags give",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The flags may contradict each other, and are checked against the
			// schedule's kind once it is known: --kind, or else found by the id.
			if _, err := f.impliedKind(cmd); err != nil {
				return err
			}
			if !anyChanged(cmd, "cron", "timezone", "enabled", "action", "retention", "mode") {
				return cmdline.Usagef("nothing to change: give --cron, --timezone, --enabled, --action, --retention or --mode")
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			kind, err := kindOf(cmd.Context(), c, args[0], f.kind)
			if err != nil {
				return err
			}
			opt := func(name, v string) client.Optional[string] {
				if cmdline.Changed(cmd, name) {
					return client.Set(v)
				}
				return client.Optional[string]{}
			}
			var enabled client.Optional[bool]
			if cmdline.Changed(cmd, "enabled") {
				enabled = client.Set(f.enabled)
			}
			if kind == kindPower {
				if anyChanged(cmd, "retention", "mode") {
					return cmdline.Usagef("%s is a power schedule: --retention and --mode are a backup schedule's", args[0])
				}
				s, err := c.UpdatePowerSchedule(cmd.Context(), args[0], client.PowerScheduleChange{
					Action: opt("action", f.action), Cron: opt("cron", f.cron), Timezone: opt("timezone", f.timezone), Enabled: enabled})
				if err != nil {
					return err
				}
				return printSchedule(p, fromPower(*s))
			}
			if cmdline.Changed(cmd, "action") {
				return cmdline.Usagef("%s is a backup schedule: --action is a power schedule's", args[0])
			}
			ch := client.BackupScheduleChange{Cron: opt("cron", f.cron), Timezone: opt("timezone", f.timezone), Enabled: enabled, Mode: opt("mode", f.mode)}
			if cmdline.Changed(cmd, "retention") {
				ch.Retention = client.Set(f.retention)
			}
			s, err := c.UpdateBackupSchedule(cmd.Context(), args[0], ch)
			if err != nil {
				return err
			}
			return printSchedule(p, fromBackup(*s))
		},
	}
	f.add(cmd, false)
	return cmd
}

// anyChanged reports whether one of the flags names was given.
func anyChanged(cmd *cobra.Command, names ...string) bool {
	for _, n := range names {
		if cmdline.Changed(cmd, n) {
			return true
		}
	}
	return false
}

func printSchedule(p output.Printer, s schedule) error {
	return p.Print(s, func(w *tabwriter.Writer) {
		output.Field(w, "ID", s.ID)
		output.Field(w, "Kind", s.Kind)
		output.Field(w, "Machine", s.MachineID)
		output.Field(w, "Tenant", output.OrDash(s.TenantID))
		output.Field(w, "Cron", s.Cron)
		output.Field(w, "Timezone", s.Timezone)
		if s.Kind == kindPower {
			output.Field(w, "Action", s.Action)
		} else {
			output.Field(w, "Mode", s.Mode)
			output.Field(w, "Retention", output.Num(s.Retention))
		}
		output.Field(w, "Enabled", output.YesNo(s.Enabled))
		output.Field(w, "Runs", output.Num(s.Runs))
		output.Field(w, "Next run", output.WhenPtr(s.NextRunAt))
		output.Field(w, "Last run", output.WhenPtr(s.LastRunAt))
		output.Field(w, "Last status", output.Str(s.LastStatus))
		output.Field(w, "Last task", output.Str(s.LastTaskID))
		output.Field(w, "Created", output.When(s.CreatedAt))
	})
}
