package cli

import (
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/output"
	"github.com/vmplane/vmplane/cli/planflags"
	"github.com/vmplane/vmplane/client"
)

// IP pools: the ranges machines get their addresses from when they are made
// (operators only).

func (a *app) ipPoolCmd() *cobra.Command {
	var spec client.IPPoolSpec
	var node, location string
	create := &cobra.Command{
		Use:   "create NAME --cidr CIDR --gateway ADDR [--location ID-OR-NAME] [--node NODE] [--dns ADDR...]",
		Short: "make a pool: an IPv4 subnet handed out address by address, or an IPv6 range as /64 prefixes",
		Long: `Make an IP pool. Machines made from a plan get the plan's IPv4 addresses and, when it
has ipv6_prefix, a routed /64 from the pools of the location they are made in
(--location; default: the default one): first those of the node they are placed on
(--node), then those bound to no node.`,
		Args: cmdline.Args(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if spec.CIDR == "" || spec.Gateway == "" {
				return cmdline.Usagef("--cidr and --gateway are required")
			}
			spec.Name = args[0]
			if node != "" {
				spec.Node = &node
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			if location != "" {
				if spec.LocationID, err = planflags.FindLocation(cmd.Context(), c, location); err != nil {
					return err
				}
			}
			pool, err := c.CreateIPPool(cmd.Context(), spec)
			if err != nil {
				return err
			}
			return p.Print(pool, func(w *tabwriter.Writer) { ipPoolCard(w, pool) })
		},
	}
	create.Flags().StringVar(&spec.CIDR, "cidr", "", "the range, e.g. 192.0.2.0/24 or 2001:db8::/48")
	create.Flags().StringVar(&spec.Gateway, "gateway", "", "the gateway, inside the range (IPv6: or link-local)")
	create.Flags().StringVar(&node, "node", "", "the node the pool serves alone (default: any node)")
	create.Flags().StringArrayVar(&spec.DNS, "dns", nil, "a resolver the pool's machines use (repeatable)")
	create.Flags().StringVar(&location, "location", "", "the location (id or name) whose machines the pool serves (default: the default one)")

	var lim int
	var listLocation string
	list := &cobra.Command{
		Use:   "list [--location ID-OR-NAME]",
		Short: "list the pools, with how many addresses each hands out",
		Args:  cmdline.Args(0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			f := client.LocationFilter{}
			if listLocation != "" {
				if f.Location, err = planflags.FindLocation(cmd.Context(), c, listLocation); err != nil {
					return err
				}
			}
			items, err := cmdline.Collect(c.IPPoolsIn(cmd.Context(), f), lim)
			if err != nil {
				return err
			}
			return p.Print(items, func(w *tabwriter.Writer) {
				output.Header(w, "ID", "NAME", "CIDR", "GATEWAY", "NODE", "ALLOCATED", "LOCATION")
				for _, pool := range items {
					output.Row(w, pool.ID, pool.Name, pool.CIDR, pool.Gateway, output.Str(pool.Node), output.Num(pool.Allocated), pool.LocationID)
				}
			})
		},
	}
	cmdline.LimitFlag(list, &lim)
	list.Flags().StringVar(&listLocation, "location", "", "only the pools of this location (id or name; default: the default one)")
	show := &cobra.Command{
		Use:   "show ID",
		Short: "show a pool",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			pool, err := c.IPPool(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return p.Print(pool, func(w *tabwriter.Writer) { ipPoolCard(w, pool) })
		},
	}
	var ch struct {
		name, gateway, node, location string
		anyNode, noDNS                bool
		dns                           []string
	}
	update := &cobra.Command{
		Use:   "update ID [--name N] [--gateway ADDR] [--node NODE | --any-node] [--dns ADDR... | --no-dns] [--location ID-OR-NAME]",
		Short: "change a pool (its range never changes)",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var pc client.IPPoolChange
			if ch.name != "" {
				pc.Name = client.Set(ch.name)
			}
			if ch.gateway != "" {
				pc.Gateway = client.Set(ch.gateway)
			}
			switch {
			case ch.node != "" && ch.anyNode:
				return cmdline.Usagef("--node or --any-node, not both")
			case ch.node != "":
				pc.Node = client.Set(ch.node)
			case ch.anyNode:
				pc.Node = client.Null[string]()
			}
			switch {
			case len(ch.dns) > 0 && ch.noDNS:
				return cmdline.Usagef("--dns or --no-dns, not both")
			case len(ch.dns) > 0:
				pc.DNS = client.Set(ch.dns)
			case ch.noDNS:
				pc.DNS = client.Null[[]string]()
			}
			if pc.Name.IsZero() && pc.Gateway.IsZero() && pc.Node.IsZero() && pc.DNS.IsZero() && ch.location == "" {
				return cmdline.Usagef("nothing to change: give --name, --gateway, --node, --any-node, --dns, --no-dns or --location")
			}
			c, p, err := a.setup()
			if err != nil {
				return err
			}
			if ch.location != "" {
				id, err := planflags.FindLocation(cmd.Context(), c, ch.location)
				if err != nil {
					return err
				}
				pc.LocationID = client.Set(id)
			}
			pool, err := c.UpdateIPPool(cmd.Context(), args[0], pc)
			if err != nil {
				return err
			}
			return p.Print(pool, func(w *tabwriter.Writer) { ipPoolCard(w, pool) })
		},
	}
	update.Flags().StringVar(&ch.name, "name", "", "the new name")
	update.Flags().StringVar(&ch.gateway, "gateway", "", "the new gateway")
	update.Flags().StringVar(&ch.node, "node", "", "serve this node alone")
	update.Flags().BoolVar(&ch.anyNode, "any-node", false, "serve any node")
	update.Flags().StringArrayVar(&ch.dns, "dns", nil, "the resolvers (repeatable; replaces the list)")
	update.Flags().BoolVar(&ch.noDNS, "no-dns", false, "no resolvers")
	update.Flags().StringVar(&ch.location, "location", "", "move the pool to this location (id or name; default: the default one)")
	del := &cobra.Command{
		Use:   "delete ID",
		Short: "delete a pool none of whose addresses is held or cooling down",
		Args:  cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.setup()
			if err != nil {
				return err
			}
			if err := c.DeleteIPPool(cmd.Context(), args[0]); err != nil {
				return err
			}
			a.done("deleted ip pool %s", args[0])
			return nil
		},
	}
	return cmdline.Group(&cobra.Command{Use: "ip-pool", Short: "IP pools: the addresses machines get when they are made (operators)"},
		create, list, show, update, del)
}

// ipPoolCard prints a pool's fields.
func ipPoolCard(w *tabwriter.Writer, p *client.IPPool) {
	output.Field(w, "ID", p.ID)
	output.Field(w, "Name", p.Name)
	output.Field(w, "CIDR", p.CIDR)
	output.Field(w, "Version", "IPv"+output.Num(p.Version))
	output.Field(w, "Gateway", p.Gateway)
	output.Field(w, "Location", p.LocationID)
	output.Field(w, "Node", output.Str(p.Node))
	output.Field(w, "DNS", strings.Join(p.DNS, ", "))
	output.Field(w, "Allocated", output.Num(p.Allocated))
	output.Field(w, "Created", output.When(p.CreatedAt))
}
