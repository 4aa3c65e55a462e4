package hypervisor

import (
	"context"
	"net/netip"
	"strconv"
)

// Host is the address the machine itself is configured with: an IPv4 address as
// it is; for an IPv6 prefix, the prefix's ::1 (its first address, all zeros in the
// host part, is the subnet-router anycast address, which no host should take). ""
// for an address that does not parse.
func (a Address) Host() string {
	addr, err := netip.ParseAddr(a.Address)
	if err != nil {
		return ""
	}
	if addr.Is6() {
		b := addr.As16()
		b[15] |= 1
		return netip.AddrFrom16(b).String()
	}
	return addr.String()
}

// HostCIDR is Host with the length of its network: 192.0.2.5/24, 2001:db8:0:1::1/64.
func (a Address) HostCIDR() string {
	h := a.Host()
	if h == "" {
		return ""
	}
	return h + "/" + strconv.Itoa(a.Prefix)
}

// Hosts are the Host addresses of addrs, in their order.
func Hosts(addrs []Address) []string {
	out := make([]string, 0, len(addrs))
	for _, a := range addrs {
		if h := a.Host(); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// Readdresser is a driver that changes an existing machine's addresses: the ones its
// network filter lets the machine send from (Proxmox: the IP set ipfilter-net0 with
// the firewall option ipfilter, so a tenant cannot take a neighbour's address) and,
// where the hypervisor keeps them, the machine's own network settings. addrs is the
// whole set the machine holds after the change, its primary address first.
type Readdresser interface {
	SetAddresses(ctx context.Context, ref Ref, addrs []Address) error
}
