package conncap

import (
	"net"
	"testing"
)

func TestClientKey(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ip     string
		prefix int
		want   string
	}{
		{"192.0.2.7", 64, "192.0.2.7"},
		{"::ffff:192.0.2.7", 64, "192.0.2.7"}, // IPv4-mapped is the IPv4 client
		{"2001:db8:1:2:a:b:c:d", 64, "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", 64, "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", 64, "2001:db8:1:3::/64"},
		{"2001:db8:1:2:a:b:c:d", 48, "2001:db8:1::/48"},
		{"2001:db8:1:2:a:b:c:d", 128, "2001:db8:1:2:a:b:c:d/128"},
		{"::1", 64, "::/64"},
	}
	for _, c := range cases {
		if got := ClientKey(net.ParseIP(c.ip), c.prefix); got != c.want {
			t.Errorf("ClientKey(%s, /%d): got %q; want %q", c.ip, c.prefix, got, c.want)
		}
	}
	if got := ClientKey(nil, 64); got != "invalid" {
		t.Errorf("ClientKey(nil): got %q; want invalid", got)
	}
}

func TestClientIPBehindProxies(t *testing.T) {
	t.Parallel()
	_, proxies, _ := net.ParseCIDR("10.0.0.0/8")
	nets := []*net.IPNet{proxies}
	peer := net.ParseIP("10.0.0.1")
	cases := []struct{ xff, want string }{
		{"203.0.113.9", "203.0.113.9"},
		{"198.51.100.1, 203.0.113.9, 10.1.1.1", "203.0.113.9"}, // the rightmost untrusted
		{"10.2.2.2", "10.0.0.1"},                               // every hop trusted: the peer
		{"garbage, 10.2.2.2", "10.0.0.1"},                      // unreadable: the peer
		{"", "10.0.0.1"},
	}
	for _, c := range cases {
		if got := ClientIP(peer, c.xff, nets); got.String() != c.want {
			t.Errorf("ClientIP(%q): got %s; want %s", c.xff, got, c.want)
		}
	}
}
