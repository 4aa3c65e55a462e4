package sim

import (
	"errors"
	"slices"
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
)

// TestSetAddresses: the addresses set are net0's (their host forms, in order), a
// second set replaces the first, and an injected failure leaves them as they were.
func TestSetAddresses(t *testing.T) {
	d := New(Config{OpDelay: -1})
	m := create(t, d, hypervisor.CreateSpec{Name: "web", Addresses: []hypervisor.Address{{Address: "198.51.100.5", Prefix: 24, Version: 4}}})
	ref := hypervisor.Ref{VMID: m.VMID}
	ips := func() []string {
		t.Helper()
		got, err := d.Machine(bg, ref)
		if err != nil {
			t.Fatal(err)
		}
		return got.Interfaces[0].IPAddresses
	}
	two := []hypervisor.Address{{Address: "198.51.100.5", Prefix: 24, Version: 4}, {Address: "198.51.100.6", Prefix: 24, Version: 4},
		{Address: "2001:db8:9::", Prefix: 64, Version: 6}}
	wantErr(t, "set addresses", d.SetAddresses(bg, ref, two))
	if got := ips(); !slices.Equal(got, []string{"198.51.100.5", "198.51.100.6", "2001:db8:9::1"}) {
		t.Fatalf("net0 after the set: got %v", got)
	}
	boom := errors.New("boom")
	d.FailNext(m.VMID, OpSetAddresses, boom)
	if err := d.SetAddresses(bg, ref, two[:1]); err == nil {
		t.Fatal("an injected failure: got no error")
	}
	if got := ips(); len(got) != 3 {
		t.Fatalf("net0 after a failed set: got %v; want the three kept", got)
	}
	wantErr(t, "set one address", d.SetAddresses(bg, ref, two[:1]))
	if got := ips(); !slices.Equal(got, []string{"198.51.100.5"}) {
		t.Fatalf("net0 after the second set: got %v", got)
	}
	err := d.SetAddresses(bg, hypervisor.Ref{VMID: 9999}, two)
	if !errors.Is(err, hypervisor.ErrMachineNotFound) {
		t.Fatalf("an unknown machine: %v; want machine_not_found", err)
	}
}
