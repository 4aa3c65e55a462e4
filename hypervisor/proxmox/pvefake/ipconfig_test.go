package pvefake

import "testing"

// TestCheckIPConfig: the fake takes the ipconfig values Proxmox takes (static
// addresses with gateways, dhcp, auto) and refuses what pve-qm-ipconfig refuses.
func TestCheckIPConfig(t *testing.T) {
	f := func(val string, ok bool) {
		t.Helper()
		if err := checkIPConfig("ipconfig0", val); (err == nil) != ok {
			t.Errorf("checkIPConfig(%q) = %v; want ok %v", val, err, ok)
		}
	}
	f("ip=dhcp", true)
	f("ip=192.0.2.5/24,gw=192.0.2.1", true)
	f("ip=192.0.2.5/24,gw=192.0.2.1,ip6=2001:db8:0:1::1/64,gw6=fe80::1", true)
	f("ip6=auto", true)
	f("ip=192.0.2.5", false)
	f("ip=2001:db8::1/64", false)
	f("ip=192.0.2.5/24,gw=fe80::1", false)
	f("gw=192.0.2.1", false)
	f("ip=dhcp,ip=dhcp", false)
	f("mtu=1500", false)
	f("dhcp", false)
}
