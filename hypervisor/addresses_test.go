package hypervisor

import "testing"

// TestAddressHost: an IPv4 address is its own host address; an IPv6 prefix's is
// its ::1, with the prefix's length.
func TestAddressHost(t *testing.T) {
	f := func(a Address, host, cidr string) {
		t.Helper()
		if got := a.Host(); got != host {
			t.Errorf("Host(%+v) = %q; want %q", a, got, host)
		}
		if got := a.HostCIDR(); got != cidr {
			t.Errorf("HostCIDR(%+v) = %q; want %q", a, got, cidr)
		}
	}
	f(Address{Address: "192.0.2.5", Prefix: 24, Version: 4}, "192.0.2.5", "192.0.2.5/24")
	f(Address{Address: "2001:db8:0:1::", Prefix: 64, Version: 6}, "2001:db8:0:1::1", "2001:db8:0:1::1/64")
	f(Address{Address: "nonsense"}, "", "")
}
