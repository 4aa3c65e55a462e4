package cli

import (
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/client"
)

// ruleFlags are the flags of firewall add and update.
type ruleFlags struct {
	spec                                        client.FirewallRuleSpec
	machine, source, destination, port, comment string
	enabled                                     bool
	position                                    int64
}

func (r *ruleFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&r.spec.Direction, "direction", "", "in or out")
	f.StringVar(&r.spec.Action, "action", "", "accept, drop or reject")
	f.StringVar(&r.spec.Protocol, "protocol", "", "tcp, udp, icmp or any")
	f.StringVar(&r.port, "port", "", `port(s), tcp and udp only: "22", "80:85" or "80,443"`)
	f.StringVar(&r.source, "source", "", "source CIDR (default: any)")
	f.StringVar(&r.destination, "destination", "", "destination CIDR (default: any)")
	f.StringVar(&r.machine, "machine", "", "the machine the rule is for (default: all the tenant's machines)")
	f.StringVar(&r.comment, "comment", "", "a note")
	f.BoolVar(&r.enabled, "enabled", true, "--enabled=false keeps the rule but does not apply it")
	f.Int64Var(&r.position, "position", 0, "where the rule goes in the order (default: last)")
	for name, vals := range map[string][]string{"direction": {"in", "out"}, "action": {"accept", "drop", "reject"}, "protocol": {"tcp", "udp", "icmp", "any"}} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp))
	}
}

// build is the rule spec of the flags given: the others stay unset.
func (r *ruleFlags) build(cmd *cobra.Command) client.FirewallRuleSpec {
	s := r.spec
	set := func(name string, v string, dst **string) {
		if cmdline.Changed(cmd, name) {
			v := v
			*dst = &v
		}
	}
	set("machine", r.machine, &s.MachineID)
	set("source", r.source, &s.Source)
	set("destination", r.destination, &s.Destination)
	set("port", r.port, &s.Port)
	set("comment", r.comment, &s.Comment)
	if cmdline.Changed(cmd, "enabled") {
		s.Enabled = &r.enabled
	}
	if cmdline.Changed(cmd, "position") {
		s.Position = &r.position
	}
	return s
}

func (a *app) firewallCmd() *cobra.Command {
	var machine string
	var lim int
	list := &cobra.Command{
		Use:   "list [--machine ID]",
		Short: "list the tenant's firewall rules in order (of one machine with --machine)",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			items, err := cmdline.Collect(c.FirewallRules(cmd.Context(), machine, client.ListOptions{}), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "POS", "MACHINE", "DIR", "ACTION", "PROTO", "PORT", "SOURCE", "DESTINATION", "ENABLED", "COMMENT")
				for _, r := range items {
					machine := "all"
					if r.MachineID != nil {
						machine = *r.MachineID
					}
					output.Row(w, r.ID, output.Num(r.Position), machine, r.Direction, r.Action, r.Protocol, output.Str(r.Port), output.Str(r.Source), output.Str(r.Destination), output.YesNo(r.Enabled), output.OrDash(r.Comment))
				}
			})
		},
	}
	list.Flags().StringVar(&machine, "machine", "", "only the rules of this machine")
	cmdline.LimitFlag(list, &lim)

	var add ruleFlags
	addCmd := &cobra.Command{
		Use:   "add --direction in|out --action accept|drop|reject --protocol tcp|udp|icmp|any [--port P] [--source CIDR] ...",
		Short: "add a firewall rule; it is pushed to the tenant's machines",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			spec := add.build(cmd)
			if spec.Direction == "" || spec.Action == "" || spec.Protocol == "" {
				return cmdline.Usagef("--direction, --action and --protocol are needed")
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			r, err := c.CreateFirewallRule(cmd.Context(), spec)
			if err != nil {
				return err
			}
			return cards.Rule(p, r)
		},
	}
	add.add(addCmd)

	var upd ruleFlags
	updCmd := &cobra.Command{
		Use:   "update ID [flags of add]",
		Short: "change the fields of a firewall rule that the flags give",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec := upd.build(cmd)
			if spec == (client.FirewallRuleSpec{}) {
				return cmdline.Usagef("nothing to change: give a flag of the fields to change")
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			r, err := c.UpdateFirewallRule(cmd.Context(), args[0], spec)
			if err != nil {
				return err
			}
			return cards.Rule(p, r)
		},
	}
	upd.add(updCmd)

	del := &cobra.Command{
		Use:     "delete ID",
		Aliases: []string{"rm"},
		Short:   "delete a firewall rule",
		Args:    cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.DeleteFirewallRule(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("deleted firewall rule %s", args[0])
			return nil
		},
	}
	return cmdline.Group(&cobra.Command{Use: "firewall", Short: "the tenant's firewall rules (operators: --tenant ID)"}, list, addCmd, updCmd, del)
}
