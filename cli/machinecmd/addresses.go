package machinecmd

import (
	"github.com/spf13/cobra"

	"github.com/vmplane/vmplane/cli/cards"
	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/client"
)

// The addresses a machine holds from the IP pools: their reverse DNS names.

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
