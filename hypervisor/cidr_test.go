package hypervisor

import (
	"net"
	"testing"
)

// netCanonicalCIDR is what tenants stored before CanonicalCIDR: net.ParseIP, then
// net.ParseCIDR, printed by net.IP and net.IPNet.
func netCanonicalCIDR(s string) (string, bool) {
	if ip := net.ParseIP(s); ip != nil {
		if ip.To4() != nil {
			return ip.String() + "/32", true
		}
		return ip.String() + "/128", true
	}
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		return "", false
	}
	return n.String(), true
}

// netAddressVersion is addressVersion as it was on package net.
func netAddressVersion(s string) int {
	ip := net.ParseIP(s)
	if ip == nil {
		var err error
		if ip, _, err = net.ParseCIDR(s); err != nil {
			return 0
		}
	}
	if ip.To4() != nil {
		return 4
	}
	return 6
}

// cidrEdgeCases are the spellings where net and net/netip could part: mapped and
// compatible IPv6, zones, leading zeros (in the address and in the prefix length),
// /0, /32, /128, lengths past the address, host bits set, signs and spaces.
var cidrEdgeCases = []struct {
	in   string
	want string // "" for refused
}{
	{"203.0.113.7", "203.0.113.7/32"},
	{"203.0.113.0/24", "203.0.113.0/24"},
	{"203.0.113.7/24", "203.0.113.0/24"},
	{"203.0.113.7/32", "203.0.113.7/32"},
	{"203.0.113.7/0", "0.0.0.0/0"},
	{"0.0.0.0/0", "0.0.0.0/0"},
	{"203.0.113.7/33", ""},
	{"203.0.113.7/024", "203.0.113.0/24"},
	{"203.0.113.7/00", "0.0.0.0/0"},
	{"203.0.113.7/+24", ""},
	{"203.0.113.7/-1", ""},
	{"203.0.113.7/", ""},
	{"203.0.113.7/24/8", ""},
	{"203.0.113.7/ 24", ""},
	{" 203.0.113.7", ""},
	{"203.000.113.7", ""},
	{"203.0.113.07/24", ""},
	{"203.0.113", ""},
	{"256.0.0.1", ""},
	{"2001:db8::1", "2001:db8::1/128"},
	{"2001:DB8:0:0:0:0:0:1", "2001:db8::1/128"},
	{"2001:db8::1/64", "2001:db8::/64"},
	{"2001:db8::/32", "2001:db8::/32"},
	{"2001:db8::1/128", "2001:db8::1/128"},
	{"2001:db8::1/129", ""},
	{"2001:db8::1/0", "::/0"},
	{"::/0", "::/0"},
	{"::", "::/128"},
	{"::1", "::1/128"},
	{"2001:0db8::1", "2001:db8::1/128"},
	{"2001:00db8::1", ""},
	{"fe80::1%eth0", ""},
	{"fe80::1%eth0/64", ""},
	{"fe80::1/64%eth0", ""},
	{"::ffff:192.0.2.1", "192.0.2.1/32"},
	{"::ffff:c000:201", "192.0.2.1/32"},
	{"::ffff:192.0.2.1/128", "192.0.2.1/32"},
	{"::ffff:192.0.2.1/120", "192.0.2.0/24"},
	{"::ffff:192.0.2.1/96", "0.0.0.0/0"},
	{"::ffff:192.0.2.1/95", "::fffe:0:0/95"},
	{"::ffff:192.0.2.1/90", "::ffc0:0:0/90"},
	{"::ffff:192.0.2.1/80", "::/80"},
	{"::ffff:192.0.2.1/32", "::/32"},
	{"::ffff:192.0.2.1/129", ""},
	{"::192.0.2.1", "::c000:201/128"},
	{"::192.0.2.1/120", "::c000:200/120"},
	{"1.2.3.4/32", "1.2.3.4/32"},
	{"", ""},
	{"/24", ""},
	{"example.com", ""},
	{"+all", ""},
	{"dc/servers", ""},
}

// TestAddressesAsNetDid holds CanonicalCIDR and addressVersion to the net versions
// they replaced, on the edge cases and on every cut of them, and checks the
// expected spellings themselves.
func TestAddressesAsNetDid(t *testing.T) {
	inputs := map[string]bool{}
	for _, c := range cidrEdgeCases {
		got, ok := CanonicalCIDR(c.in)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("CanonicalCIDR(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
		for i := 0; i <= len(c.in); i++ {
			inputs[c.in[:i]] = true
			inputs[c.in[i:]] = true
			for _, suffix := range []string{"/0", "/1", "/7", "/31", "/32", "/33", "/64", "/96", "/100", "/127", "/128", "/0128"} {
				inputs[c.in[:i]+suffix] = true
			}
		}
	}
	for in := range inputs {
		want, wantOK := netCanonicalCIDR(in)
		if got, ok := CanonicalCIDR(in); got != want || ok != wantOK {
			t.Errorf("CanonicalCIDR(%q) = %q, %v; net made %q, %v", in, got, ok, want, wantOK)
		}
		if got, want := addressVersion(in), netAddressVersion(in); got != want {
			t.Errorf("addressVersion(%q) = %d; net made %d", in, got, want)
		}
	}
	if len(inputs) < 1000 {
		t.Fatalf("only %d inputs compared", len(inputs))
	}
}

// TestCanonicalCIDRAllocatesOnlyItsString: the point of leaving net.
func TestCanonicalCIDRAllocatesOnlyItsString(t *testing.T) {
	for _, s := range []string{"203.0.113.7/24", "2001:db8::1", "::ffff:192.0.2.1/120"} {
		if n := testing.AllocsPerRun(100, func() { _, _ = CanonicalCIDR(s) }); n > 1 {
			t.Errorf("CanonicalCIDR(%q): %v allocations; want at most 1", s, n)
		}
		if n := testing.AllocsPerRun(100, func() { _ = addressVersion(s) }); n != 0 {
			t.Errorf("addressVersion(%q): %v allocations; want none", s, n)
		}
	}
}
