package pdns_test

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/pdns"
	"github.com/vmplane/vmplane/pdns/pdnstest"
)

// TestReverseName: an IPv4 address's octets and an IPv6 address's nibbles, reversed.
func TestReverseName(t *testing.T) {
	f := func(ip, want string) {
		t.Helper()
		if got := pdns.ReverseName(netip.MustParseAddr(ip)); got != want {
			t.Errorf("ReverseName(%s) = %s; want %s", ip, got, want)
		}
	}
	f("192.0.2.5", "5.2.0.192.in-addr.arpa.")
	f("::ffff:192.0.2.5", "5.2.0.192.in-addr.arpa.")
	f("2001:db8::1", "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa.")
}

// TestSetPTRAgainstPowerDNS pushes names to a real PowerDNS server and reads them back
// through its API and its DNS port: the longest reverse zone gets the record, a
// REPLACE changes it, "" deletes it, and an address no zone holds is dns_zone_missing.
func TestSetPTRAgainstPowerDNS(t *testing.T) {
	srv := pdnstest.Start(t)
	srv.CreateZone("192.in-addr.arpa.")
	srv.CreateZone("2.0.192.in-addr.arpa.")
	srv.CreateZone("8.b.d.0.1.0.0.2.ip6.arpa.")
	c := pdns.New(srv.URL, pdnstest.Key, "")
	ctx := context.Background()

	ip := netip.MustParseAddr("192.0.2.5")
	if err := c.SetPTR(ctx, ip, "web1.example.com"); err != nil {
		t.Fatalf("SetPTR: %v", err)
	}
	rev := "5.2.0.192.in-addr.arpa."
	if got := srv.PTR("2.0.192.in-addr.arpa.", rev); !slices.Equal(got, []string{"web1.example.com."}) {
		t.Fatalf("PTR in the longest zone = %q; want [web1.example.com.]", got)
	}
	if got := srv.PTR("192.in-addr.arpa.", rev); got != nil {
		t.Errorf("PTR in the shorter zone = %q; want none", got)
	}
	if names, err := srv.LookupPTR("192.0.2.5"); err != nil || !slices.Equal(names, []string{"web1.example.com."}) {
		t.Errorf("DNS lookup = %q, %v; want [web1.example.com.]", names, err)
	}
	if err := c.SetPTR(ctx, ip, "web2.example.com."); err != nil {
		t.Fatalf("SetPTR again: %v", err)
	}
	if got := srv.PTR("2.0.192.in-addr.arpa.", rev); !slices.Equal(got, []string{"web2.example.com."}) {
		t.Errorf("PTR replaced = %q; want [web2.example.com.]", got)
	}
	if err := c.SetPTR(ctx, ip, ""); err != nil {
		t.Fatalf("SetPTR delete: %v", err)
	}
	if got := srv.PTR("2.0.192.in-addr.arpa.", rev); got != nil {
		t.Errorf("PTR after delete = %q; want none", got)
	}

	v6 := netip.MustParseAddr("2001:db8:0:1::1")
	if err := c.SetPTR(ctx, v6, "six.example.com"); err != nil {
		t.Fatalf("SetPTR v6: %v", err)
	}
	if got := srv.PTR("8.b.d.0.1.0.0.2.ip6.arpa.", pdns.ReverseName(v6)); !slices.Equal(got, []string{"six.example.com."}) {
		t.Errorf("v6 PTR = %q; want [six.example.com.]", got)
	}

	if err := c.SetPTR(ctx, netip.MustParseAddr("198.51.100.7"), "x.example.com"); !errors.Is(err, apierr.ErrDNSZoneMissing) {
		t.Errorf("no zone: %v; want dns_zone_missing", err)
	}
	bad := pdns.New(srv.URL, "wrong-key", "")
	if err := bad.SetPTR(ctx, ip, "web1.example.com"); !errors.Is(err, apierr.ErrDNSUnavailable) {
		t.Errorf("wrong key: %v; want dns_unavailable", err)
	}
}

// TestSetPTRUnreachable: a server that does not answer is dns_unavailable.
func TestSetPTRUnreachable(t *testing.T) {
	c := pdns.New("http://127.0.0.1:1", "k", "")
	if err := c.SetPTR(context.Background(), netip.MustParseAddr("192.0.2.5"), "a.example.com"); !errors.Is(err, apierr.ErrDNSUnavailable) {
		t.Errorf("SetPTR = %v; want dns_unavailable", err)
	}
}
