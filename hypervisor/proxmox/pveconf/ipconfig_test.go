package pveconf

import (
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
)

// TestIPConfig: the first address of each version goes into ipconfig, with its
// gateway; the IPv6 prefix as its ::1; nothing for no addresses; and VM.IPs reads
// the addresses back.
func TestIPConfig(t *testing.T) {
	f := func(addrs []hypervisor.Address, want string) {
		t.Helper()
		if got := IPConfig(addrs); got != want {
			t.Errorf("IPConfig(%+v) = %q; want %q", addrs, got, want)
		}
	}
	v4 := hypervisor.Address{Address: "192.0.2.5", Prefix: 24, Gateway: "192.0.2.1", Version: 4}
	v4b := hypervisor.Address{Address: "192.0.2.6", Prefix: 24, Gateway: "192.0.2.1", Version: 4}
	v6 := hypervisor.Address{Address: "2001:db8:0:1::", Prefix: 64, Gateway: "fe80::1", Version: 6}
	f(nil, "")
	f([]hypervisor.Address{v4}, "ip=192.0.2.5/24,gw=192.0.2.1")
	f([]hypervisor.Address{v4, v4b, v6}, "ip=192.0.2.5/24,gw=192.0.2.1,ip6=2001:db8:0:1::1/64,gw6=fe80::1")
	f([]hypervisor.Address{v6}, "ip6=2001:db8:0:1::1/64,gw6=fe80::1")
	ips := VM{"ipconfig0": IPConfig([]hypervisor.Address{v4, v6})}.IPs(0)
	if len(ips) != 2 || ips[0] != "192.0.2.5" || ips[1] != "2001:db8:0:1::1" {
		t.Errorf("IPs read back: %v", ips)
	}
}
