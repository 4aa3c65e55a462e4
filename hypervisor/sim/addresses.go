package sim

import (
	"context"
	"slices"

	"github.com/vmplane/vmplane/hypervisor"
)

// OpSetAddresses is the failure-injection name of SetAddresses.
const OpSetAddresses = "set_addresses"

var _ hypervisor.Readdresser = (*Driver)(nil)

// SetAddresses makes addrs the addresses of the machine's net0 (their Host forms, the
// primary first), as a Proxmox IP set and cloud-init's ipconfig would: the machine's
// state shows them (Machine, the inventory) and the world store keeps them. Addresses
// net0 drops go back to the sim's own pool, and those it takes are marked held
// there. Addresses turn the firewall on on every interface, as Proxmox's IP filter
// needs (no rules = open: nothing else changes). Like SetFirewall it does not take the machine's lock: Proxmox's IP sets change while a task runs.
func (d *Driver) SetAddresses(ctx context.Context, ref hypervisor.Ref, addrs []hypervisor.Address) error {
	hosts := hypervisor.Hosts(addrs)
	return d.run(ctx, op{
		name:   OpSetAddresses,
		vmid:   ref.VMID,
		noLock: true,
		check:  func() error { _, err := d.liveMachineLocked(ref.VMID); return err },
		apply: func() error {
			m, _ := d.machines.Get(ref.VMID)
			if len(m.Interfaces) == 0 {
				m.Interfaces = []hypervisor.Interface{{ID: "net0", Bridge: DefaultBridge, MAC: d.newMACLocked(m.VMID, 0)}}
				d.macs.Add(m.Interfaces[0].MAC)
			}
			nic := &m.Interfaces[0]
			for _, ip := range nic.IPAddresses {
				if !slices.Contains(hosts, ip) {
					d.ips.Release(ip)
				}
			}
			for _, ip := range hosts {
				// vmplane's pools decide who holds an address: the sim's own pool
				// only keeps from handing it to a machine vmplane gives none.
				d.ips.Mark(ip)
			}
			nic.IPAddresses = slices.Clone(hosts)
			if len(hosts) > 0 {
				// Proxmox turns the firewall on to enforce the IP filter.
				for i := range m.Interfaces {
					m.Interfaces[i].Firewall = true
				}
			}
			d.touchMachineLocked(ref.VMID)
			return nil
		},
	})
}
