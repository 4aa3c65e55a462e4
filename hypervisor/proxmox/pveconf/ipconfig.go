package pveconf

import (
	"strings"

	"github.com/vmplane/vmplane/hypervisor"
)

// IPConfig is the cloud-init ipconfigN value of the addresses vmplane gave a
// machine: the first IPv4 address with its gateway (ip=192.0.2.5/24,gw=192.0.2.1)
// and the first IPv6 prefix's ::1 with its gateway (ip6=2001:db8:0:1::1/64,gw6=...).
// Proxmox's cloud-init takes one address of each version per interface; further
// IPv4 addresses are the machine's to configure. "" when addrs has none.
func IPConfig(addrs []hypervisor.Address) string {
	var parts []string
	var v4, v6 bool
	for _, a := range addrs {
		cidr := a.HostCIDR()
		switch {
		case cidr == "":
		case a.Version == 4 && !v4:
			v4 = true
			parts = append(parts, "ip="+cidr)
			if a.Gateway != "" {
				parts = append(parts, "gw="+a.Gateway)
			}
		case a.Version == 6 && !v6:
			v6 = true
			parts = append(parts, "ip6="+cidr)
			if a.Gateway != "" {
				parts = append(parts, "gw6="+a.Gateway)
			}
		}
	}
	return strings.Join(parts, ",")
}
