package cli

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

func (a *app) tenantCmd() *cobra.Command {
	var lim int
	var byExternal string
	list := &cobra.Command{
		Use:   "list",
		Short: "list the tenants and their quotas, with the machines each holds (operators), or the one another system knows by --external-id",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			var items []client.Tenant
			if cmdline.Changed(cmd, "external-id") {
				t, err := c.TenantByExternalID(cmd.Context(), byExternal)
				if err != nil {
					return err
				}
				items = []client.Tenant{*t}
			} else if items, err = cmdline.Collect(c.Tenants(cmd.Context(), client.ListOptions{}), lim); err != nil {
				return err
			}
			// The table shows each tenant's machines against its quota (USED/QUOTA):
			// the count comes from the tenant's overview, one call per tenant.
			held := map[string]string{}
			if p.Format == output.Table {
				for _, t := range items {
					held[t.ID] = "?" // the tenant went meanwhile, or its overview failed
					if o, err := c.ForTenant(t.ID).Overview(cmd.Context()); err == nil {
						held[t.ID] = output.Num(o.Machines.Total)
					} else if cmd.Context().Err() != nil {
						return err
					}
				}
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "NAME", "MACHINES", "CORES", "MEMORY_MB", "DISK_GB", "CREATED")
				for _, t := range items {
					output.Row(w, t.ID, t.Name, held[t.ID]+"/"+output.Limit(t.Quota.Machines), output.Limit(t.Quota.CPUCores), output.Limit(t.Quota.MemoryMB),
						output.Limit(t.Quota.DiskGB), output.When(t.CreatedAt))
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)
	list.Flags().StringVar(&byExternal, "external-id", "", "the tenant another system (a billing system) knows by this id")
	show := &cobra.Command{
		Use:   "show ID",
		Short: "show a tenant and its quota",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			t, err := c.GetTenant(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return cards.Tenant(p, t)
		},
	}
	var q quotaFlags
	var requireTOTP bool
	var createExternal string
	create := &cobra.Command{
		Use:   "create NAME",
		Short: "create a tenant (quota flags: -1 is unlimited; unset ones take the server's default)",
		Args:  cmdline.Args(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			t, err := c.CreateTenant(cmd.Context(), client.TenantCreate{Name: args[0], Quota: q.change(cmd), RequireTOTP: requireTOTP, ExternalID: createExternal})
			if err != nil {
				return err
			}
			return cards.Tenant(p, t)
		},
	}
	q.add(create)
	create.Flags().BoolVar(&requireTOTP, "require-totp", false, "the tenant's users must sign in with a second factor")
	create.Flags().StringVar(&createExternal, "external-id", "", "the id another system (a billing system) knows the tenant by")
	var name, external string
	var uRequireTOTP bool
	var uq quotaFlags
	update := &cobra.Command{
		Use:   "update ID",
		Short: "change a tenant's name, quota or second-factor requirement",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var ch client.TenantChange
			if cmdline.Changed(cmd, "name") {
				ch.Name = &name
			}
			ch.Quota = uq.change(cmd)
			if cmdline.Changed(cmd, "require-totp") {
				ch.RequireTOTP = &uRequireTOTP
			}
			if cmdline.Changed(cmd, "external-id") {
				ch.ExternalID = externalID(external)
			}
			if ch.Name == nil && ch.Quota == nil && ch.RequireTOTP == nil && ch.ExternalID.IsZero() {
				return cmdline.Usagef("nothing to change: give --name, --require-totp, --external-id or a --quota-* flag")
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			t, err := c.UpdateTenant(cmd.Context(), args[0], ch)
			if err != nil {
				return err
			}
			return cards.Tenant(p, t)
		},
	}
	update.Flags().StringVar(&name, "name", "", "the new name")
	update.Flags().BoolVar(&uRequireTOTP, "require-totp", false, "whether the tenant's users must sign in with a second factor (--require-totp=false lifts it)")
	update.Flags().StringVar(&external, "external-id", "", "the id another system knows the tenant by (\"\" removes it)")
	uq.add(update)
	del := &cobra.Command{
		Use:   "delete ID",
		Short: "delete a tenant",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.DeleteTenant(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("deleted tenant %s", args[0])
			return nil
		},
	}
	return cmdline.Group(&cobra.Command{Use: "tenant", Short: "tenants, their quotas and suspensions (operators)"},
		append([]*cobra.Command{list, show, create, update, del, a.tenantUsageCmd()}, a.tenantSuspensionCmds()...)...)
}

// quotaFlags are the --quota-* flags of tenant create and update.
type quotaFlags struct{ machines, cores, memory, disk, backups, snapshots, backupGB int64 }

func (q *quotaFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Int64Var(&q.machines, "quota-machines", 0, "most machines (-1: unlimited)")
	f.Int64Var(&q.cores, "quota-cores", 0, "most CPU cores in all (-1: unlimited)")
	f.Int64Var(&q.memory, "quota-memory", 0, "most memory in MB in all (-1: unlimited)")
	f.Int64Var(&q.disk, "quota-disk", 0, "most disk in GB in all (-1: unlimited)")
	f.Int64Var(&q.backups, "quota-backups", 0, "most backups on record (-1: unlimited)")
	f.Int64Var(&q.snapshots, "quota-snapshots", 0, "most snapshots of its machines (-1: unlimited)")
	f.Int64Var(&q.backupGB, "quota-backup-gb", 0, "most GB of backups on record (-1: unlimited)")
}

// change is the quota change the given flags ask for, nil when none was given.
func (q *quotaFlags) change(cmd *cobra.Command) *client.QuotaChange {
	var ch client.QuotaChange
	set := false
	for _, f := range []struct {
		name string
		v    int64
		dst  **int64
	}{{"quota-machines", q.machines, &ch.Machines}, {"quota-cores", q.cores, &ch.CPUCores},
		{"quota-memory", q.memory, &ch.MemoryMB}, {"quota-disk", q.disk, &ch.DiskGB},
		{"quota-backups", q.backups, &ch.Backups}, {"quota-snapshots", q.snapshots, &ch.Snapshots}, {"quota-backup-gb", q.backupGB, &ch.BackupGB}} {
		if cmdline.Changed(cmd, f.name) {
			v := f.v
			*f.dst, set = &v, true
		}
	}
	if !set {
		return nil
	}
	return &ch
}
