package cli

import (
	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/client"
)

// suspendFlags are the flags of tenant suspend and machine suspend-billing.
type suspendFlags struct{ reason, action string }

func (f *suspendFlags) add(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&f.reason, "reason", "", "why (required): what the tenant's users are told when a change is refused")
	cmd.Flags().StringVar(&f.action, "action", "", "what happens to "+what+" that run: stop, suspend (on the hypervisor) or none (default: the server's)")
}

// tenantSuspensionCmds are tenant suspend and unsuspend: a tenant that does not pay.
func (a *app) tenantSuspensionCmds() []*cobra.Command {
	var sf suspendFlags
	suspend := &cobra.Command{
		Use:   "suspend ID",
		Short: "suspend a tenant (for non-payment): its users may sign in and read, and change nothing (operators, billing keys)",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sf.reason == "" {
				return cmdline.Usagef("--reason is required")
			}
			return a.call(func(c *client.Client) (any, error) {
				return c.SuspendTenant(cmd.Context(), args[0], client.SuspendSpec{Reason: sf.reason, Action: sf.action})
			})
		},
	}
	sf.add(suspend, "its machines")
	var start bool
	unsuspend := &cobra.Command{
		Use:   "unsuspend ID",
		Short: "end a tenant's suspension (--start: start the machines it stopped)",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.call(func(c *client.Client) (any, error) { return c.UnsuspendTenant(cmd.Context(), args[0], start) })
		},
	}
	unsuspend.Flags().BoolVar(&start, "start", false, "start (or resume) the machines the suspension stopped (or suspended)")
	return []*cobra.Command{suspend, unsuspend}
}

// machineBillingCmds are machine suspend-billing, unsuspend-billing and terminate.
func (a *app) machineBillingCmds() []*cobra.Command {
	var sf suspendFlags
	suspend := &cobra.Command{
		Use:   "suspend-billing ID",
		Short: "suspend one machine for billing: its tenant's users may read it and change nothing of it (operators, billing keys)",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sf.reason == "" {
				return cmdline.Usagef("--reason is required")
			}
			return a.call(func(c *client.Client) (any, error) {
				return c.SuspendMachineBilling(cmd.Context(), args[0], client.SuspendSpec{Reason: sf.reason, Action: sf.action})
			})
		},
	}
	sf.add(suspend, "the machine if it")
	var start, cancel bool
	unsuspend := &cobra.Command{
		Use:   "unsuspend-billing ID",
		Short: "end a machine's billing suspension, and a pending termination (--start: start it again if the suspension stopped it)",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.call(func(c *client.Client) (any, error) { return c.UnsuspendMachineBilling(cmd.Context(), args[0], start) })
		},
	}
	unsuspend.Flags().BoolVar(&start, "start", false, "start (or resume) the machine if the suspension stopped (or suspended) it")
	terminate := &cobra.Command{
		Use:   "terminate ID",
		Short: "delete a machine with all its snapshots and backups, after the server's grace period (--cancel: take it back)",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cancel {
				return a.call(func(c *client.Client) (any, error) { return c.CancelTerminateMachine(cmd.Context(), args[0]) })
			}
			return a.call(func(c *client.Client) (any, error) { return c.TerminateMachine(cmd.Context(), args[0]) })
		},
	}
	terminate.Flags().BoolVar(&cancel, "cancel", false, "take the termination back while its grace lasts")
	return []*cobra.Command{suspend, unsuspend, terminate}
}

// call runs fn and prints the tenant or machine it answers.
func (a *app) call(fn func(*client.Client) (any, error)) error {
	c, p, err := a.setup()
	if err != nil {
		return err
	}
	v, err := fn(c)
	switch v := v.(type) {
	case *client.Tenant:
		if err == nil {
			return cards.Tenant(p, v)
		}
	case *client.Machine:
		if err == nil {
			return cards.Machine(p, v)
		}
	}
	return err
}
