package machinecmd

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/client"
)

// The addresses a machine holds from the IP pools: one more or one fewer, and their
// reverse DNS names.

func (a verbs) machineAddressCmd() *cobra.Command {
	cmd := cmdline.Group(&cobra.Command{Use: "address", Short: "give a machine one more address from the IP pools, or take one away"})
	var v6 bool
	var address string
	add := &cobra.Command{
		Use:   "add ID",
		Short: "give a machine one more IPv4 address (or with --ipv6 a routed /64) from the IP pools",
		Long: `Give the machine one more address from the IP pools usable on its node and show
the machine: an IPv4 address (--address asks for one, else the lowest free), or with
--ipv6 a routed IPv6 /64. A machine of a plan holds at most the plan's ipv4 addresses
and one prefix when the plan has ipv6_prefix; a machine of no plan takes more from
operators only. An operator acts as the operator, or as the machine's tenant with
--tenant.`,
		Args: cmdline.Args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			r := client.AddressRequest{Version: 4, Address: address}
			if v6 {
				if address != "" {
					return cmdline.Usagef("--address is an IPv4 address: not with --ipv6")
				}
				r.Version = 6
			}
			return a.changeAddresses(cmd.Context(), args[0],
				func(c *client.Client) (*client.Machine, error) { return c.AddMachineAddress(cmd.Context(), args[0], r) },
				func(c *client.Client) (*client.Machine, error) {
					return c.AddMyMachineAddress(cmd.Context(), args[0], r)
				})
		},
	}
	add.Flags().BoolVar(&v6, "ipv6", false, "a routed IPv6 /64 instead of an IPv4 address")
	add.Flags().StringVar(&address, "address", "", "the IPv4 address asked for (default: the lowest free)")
	remove := &cobra.Command{
		Use:     "remove ID ADDRESS",
		Aliases: []string{"rm"},
		Short:   "take one of a machine's addresses away (not its first); the pool frees it after the cool-down",
		Args:    cmdline.Args(2, "ID ADDRESS"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.changeAddresses(cmd.Context(), args[0],
				func(c *client.Client) (*client.Machine, error) {
					return c.RemoveMachineAddress(cmd.Context(), args[0], args[1])
				},
				func(c *client.Client) (*client.Machine, error) {
					return c.RemoveMyMachineAddress(cmd.Context(), args[0], args[1])
				})
		},
	}
	cmd.AddCommand(add, remove)
	return cmd
}

// changeAddresses makes a change of machine id's addresses and shows the machine:
// with --tenant in the client area (mine), else through the operators' route (op),
// and, for a tenant's user whom that route refuses, in the client area.
func (a verbs) changeAddresses(ctx context.Context, id string, op, mine func(*client.Client) (*client.Machine, error)) error {
	c, p, err := a.Setup()
	if err != nil {
		return err
	}
	var m *client.Machine
	if a.TenantScope() != "" {
		m, err = mine(c)
	} else if m, err = op(c); errors.Is(err, client.ErrForbidden) {
		m, err = mine(c)
	}
	if err != nil {
		return err
	}
	return cards.Machine(p, m)
}

func (a verbs) machinePTRCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "ptr ID ADDRESS [NAME]",
		Short: "set the reverse DNS name of one of a machine's addresses (no NAME clears it)",
		Long: `Set the reverse DNS name (PTR record) of ADDRESS, one of the addresses the machine
holds from the IP pools (an IPv6 prefix by its first address or the machine's ::1 in
it), and show the machine. Without NAME the name is cleared. Where the server pushes
reverse names to PowerDNS, an address in none of its reverse zones is refused
(dns_zone_missing), and so is a change while it is down (dns_unavailable).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return cmdline.Usagef("usage: %s ID ADDRESS [NAME]", cmd.CommandPath())
			}
			return cmdline.MaxArgs(3, "ID ADDRESS [NAME]")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 3 {
				name = args[2]
			}
			c, p, err := a.Setup()
			if err != nil {
				return err
			}
			mc, ok, err := ClientArea(cmd.Context(), c, a.TenantScope(), args[0])
			if err != nil {
				return err
			}
			var m *client.Machine
			if ok {
				m, err = mc.SetMyMachineAddressPTR(cmd.Context(), args[0], args[1], name)
			} else {
				m, err = c.SetMachineAddressPTR(cmd.Context(), args[0], args[1], name)
			}
			if err != nil {
				return err
			}
			return cards.Machine(p, m)
		},
	}
}
