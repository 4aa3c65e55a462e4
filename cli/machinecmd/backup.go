package machinecmd

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// A machine's backups taken on demand, restores and snapshots, through the client area
// (an operator's machine of a tenant is reached for that tenant; see ClientArea).

// machineFor is the client of a machine's client-area routes.
func (a verbs) machineFor(cmd *cobra.Command, id string) (*client.Client, output.Printer, error) {
	c, p, err := a.Setup()
	if err != nil {
		return nil, p, err
	}
	mc, ok, err := ClientArea(cmd.Context(), c, a.TenantScope(), id)
	if err != nil {
		return nil, p, err
	}
	if !ok {
		return nil, p, cmdline.Usagef("machine %s belongs to no tenant: give it to one first ('vmplane machine update %s --move-to TENANT')", id, id)
	}
	return mc, p, nil
}

func (a verbs) machineBackupCmd() *cobra.Command {
	var spec client.BackupSpec
	var wf cmdline.WaitFlags
	cmd := &cobra.Command{
		Use:   "backup ID [--note TEXT] [--mode snapshot|suspend|stop]",
		Short: "take a backup of a machine now",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, p, err := a.machineFor(cmd, argv[0])
			if err != nil {
				return err
			}
			t, err := c.BackupMachine(cmd.Context(), argv[0], spec)
			if err != nil {
				return err
			}
			return a.Started(cmd.Context(), c, p, t, wf)
		},
	}
	cmd.Flags().StringVar(&spec.Note, "note", "", "a note kept with the backup")
	cmd.Flags().StringVar(&spec.Mode, "mode", "", "snapshot (default), suspend or stop: how the machine is held while it is copied")
	wf.Add(cmd)
	return cmd
}

func (a verbs) machineBackupsCmd() *cobra.Command {
	var lim int
	cmd := &cobra.Command{
		Use:   "backups ID",
		Short: "list a machine's backups, newest first",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, p, err := a.machineFor(cmd, argv[0])
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.MachineBackups(cmd.Context(), argv[0], client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "CREATED", "MODE", "ORIGIN", "SIZE", "NOTE")
				for _, b := range items {
					output.Row(w, b.ID, output.When(b.CreatedAt), b.Mode, b.Origin, output.BytesIEC(float64(b.SizeBytes)), output.OrDash(b.Note))
				}
			})
		},
	}
	cmdline.LimitFlag(cmd, &lim)
	return cmd
}

func (a verbs) machineTasksCmd() *cobra.Command {
	var lim int
	cmd := &cobra.Command{
		Use:   "tasks ID",
		Short: "list a machine's tasks, newest first",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, p, err := a.machineFor(cmd, argv[0])
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.MachineTasks(cmd.Context(), argv[0], client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "TYPE", "STATUS", "CREATED", "ERROR")
				for _, t := range items {
					output.Row(w, t.ID, t.Type, t.Status, output.When(t.CreatedAt), output.Str(t.Error))
				}
			})
		},
	}
	cmdline.LimitFlag(cmd, &lim)
	return cmd
}

func (a verbs) machineRestoreCmd() *cobra.Command {
	var start bool
	var wf cmdline.WaitFlags
	cmd := &cobra.Command{
		Use:   "restore ID BACKUP_ID [--start]",
		Short: "restore a machine over itself from one of its backups (stopped first); what it wrote since is lost",
		Args:  cmdline.Args(2, "ID BACKUP_ID"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, p, err := a.machineFor(cmd, argv[0])
			if err != nil {
				return err
			}
			t, err := c.RestoreMachine(cmd.Context(), argv[0], argv[1], start)
			if err != nil {
				return err
			}
			return a.Started(cmd.Context(), c, p, t, wf)
		},
	}
	cmd.Flags().BoolVar(&start, "start", false, "start the machine once it is restored")
	wf.Add(cmd)
	return cmd
}

func (a verbs) machineSnapshotCmd() *cobra.Command {
	var lim int
	list := &cobra.Command{
		Use:   "list ID",
		Short: "list a machine's snapshots, oldest first",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, p, err := a.machineFor(cmd, argv[0])
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.Snapshots(cmd.Context(), argv[0], client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "NAME", "CREATED", "MEMORY", "PARENT", "DESCRIPTION")
				for _, s := range items {
					output.Row(w, s.Name, output.When(s.CreatedAt), output.YesNo(s.IncludesMemory), output.OrDash(s.Parent), output.OrDash(s.Description))
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)

	var spec client.SnapshotSpec
	var cwf cmdline.WaitFlags
	create := &cobra.Command{
		Use:   "create ID NAME [--description TEXT] [--memory]",
		Short: "take a snapshot of a machine",
		Args:  cmdline.Args(2, "ID NAME"),
		RunE: func(cmd *cobra.Command, argv []string) error {
			c, p, err := a.machineFor(cmd, argv[0])
			if err != nil {
				return err
			}
			spec.Name = argv[1]
			t, err := c.CreateSnapshot(cmd.Context(), argv[0], spec)
			if err != nil {
				return err
			}
			return a.Started(cmd.Context(), c, p, t, cwf)
		},
	}
	create.Flags().StringVar(&spec.Description, "description", "", "what the snapshot is of")
	create.Flags().BoolVar(&spec.IncludeMemory, "memory", false, "save a running machine's memory too (a rollback resumes it running)")
	cwf.Add(create)

	byName := func(use, short string, call func(c *client.Client, cmd *cobra.Command, id, name string) (*client.Task, error)) *cobra.Command {
		var wf cmdline.WaitFlags
		cmd := &cobra.Command{
			Use:   use + " ID NAME",
			Short: short,
			Args:  cmdline.Args(2, "ID NAME"),
			RunE: func(cmd *cobra.Command, argv []string) error {
				c, p, err := a.machineFor(cmd, argv[0])
				if err != nil {
					return err
				}
				t, err := call(c, cmd, argv[0], argv[1])
				if err != nil {
					return err
				}
				return a.Started(cmd.Context(), c, p, t, wf)
			},
		}
		wf.Add(cmd)
		return cmd
	}
	rollback := byName("rollback", "roll a machine back to a snapshot; what it wrote since is lost",
		func(c *client.Client, cmd *cobra.Command, id, name string) (*client.Task, error) {
			return c.RollbackSnapshot(cmd.Context(), id, name)
		})
	del := byName("delete", "delete a snapshot of a machine",
		func(c *client.Client, cmd *cobra.Command, id, name string) (*client.Task, error) {
			return c.DeleteSnapshot(cmd.Context(), id, name)
		})
	return cmdline.Group(&cobra.Command{Use: "snapshot", Short: "a machine's snapshots: list, create, rollback, delete"}, list, create, rollback, del)
}
