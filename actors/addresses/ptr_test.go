package addresses

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// TestCheckPTR: host names of two labels or more are taken (lower case, without the
// final dot); anything else is refused.
func TestCheckPTR(t *testing.T) {
	f := func(in, want string, ok bool) {
		t.Helper()
		got, err := CheckPTR(in)
		if (err == nil) != ok || got != want {
			t.Errorf("CheckPTR(%q) = %q, %v; want %q, ok %v", in, got, err, want, ok)
		}
	}
	f("", "", true)
	f("Mail.Example.COM.", "mail.example.com", true)
	f("a-1.b2.example", "a-1.b2.example", true)
	f("localhost", "", false)
	f("-a.example.com", "", false)
	f("a-.example.com", "", false)
	f("a..example.com", "", false)
	f("a_b.example.com", "", false)
	f("host.123", "", false)
	f("with space.example.com", "", false)
	long := ""
	for range 64 {
		long += "a"
	}
	f(long+".example.com", "", false)
}

// dnsLog is a ReverseDNS that records the names pushed, or fails with err.
type dnsLog struct {
	set map[string]string
	err error
}

func (d *dnsLog) SetPTR(_ context.Context, ip netip.Addr, name string) error {
	if d.err != nil {
		return d.err
	}
	d.set[ip.String()] = name
	return nil
}

// TestSetPTRPushesThenStores: a name is pushed to the DNS server (an IPv6 prefix's
// for its ::1) and put on the allocation; a push refused stores nothing; the
// release clears the name and deletes it from the server.
func TestSetPTRPushesThenStores(t *testing.T) {
	a, store := newTestService(t)
	dns := &dnsLog{set: map[string]string{}}
	a.dns = dns
	ctx := ctxFor(t)
	if _, err := a.Create(ctx, PoolSpec{Name: "v4", CIDR: "192.0.2.0/24", Gateway: "192.0.2.1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Create(ctx, PoolSpec{Name: "v6", CIDR: "2001:db8::/48", Gateway: "fe80::1"}); err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch)
	g, err := a.Allocate(ctx, b, Want{IPv4: 1, IPv6: true}, "vm-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	b = new(persistence.Batch)
	have, err := a.SetPTR(ctx, b, "vm-1", g.Addresses, "2001:db8::1", "Six.Example.com")
	if err != nil || have[1].PTR != "six.example.com" || dns.set["2001:db8::1"] != "six.example.com" {
		t.Fatalf("SetPTR v6: %+v %v, pushed %v", have, err, dns.set)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SetPTR(ctx, new(persistence.Batch), "vm-2", g.Addresses, "192.0.2.2", "x.example.com"); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("another machine's address: %v; want conflict", err)
	}
	if _, err := a.SetPTR(ctx, new(persistence.Batch), "vm-1", g.Addresses, "192.0.2.9", "x.example.com"); !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("an address not held: %v; want not found", err)
	}
	dns.err = apierr.New(apierr.ErrDNSUnavailable, "down")
	b = new(persistence.Batch)
	if _, err := a.SetPTR(ctx, b, "vm-1", g.Addresses, "192.0.2.2", "x.example.com"); !errors.Is(err, apierr.ErrDNSUnavailable) || len(b.Ops) != 0 {
		t.Fatalf("a refused push: %v, %d writes; want dns_unavailable and none", err, len(b.Ops))
	}
	dns.err = nil
	b = new(persistence.Batch)
	if err := a.Release(ctx, b, "vm-1", have); err != nil {
		t.Fatal(err)
	}
	if err := store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if name, ok := dns.set["2001:db8::1"]; !ok || name != "" {
		t.Fatalf("after the release the server has %q; want it deleted", name)
	}
	raw, err := store.Get(ctx, allocKey(g.Addresses[1].Pool, g.Addresses[1].Address))
	var al Allocation
	if err == nil {
		_, err = persistence.Decode(raw, &al)
	}
	if err != nil || al.PTR != "" || al.ReleasedAt == nil {
		t.Fatalf("released allocation: %+v %v; want released without a name", al, err)
	}
}
