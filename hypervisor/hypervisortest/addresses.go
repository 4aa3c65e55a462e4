package hypervisortest

import (
	"slices"
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
)

// createWithAddresses: a machine created with addresses from vmplane's pools (an
// IPv4 address and an IPv6 prefix) shows them on net0, the IPv6 prefix as its ::1,
// when created and when read back; one created without keeps the driver's own way.
func (c *suite) createWithAddresses(t *testing.T) {
	addrs := []hypervisor.Address{
		{Address: "192.0.2.10", Prefix: 24, Gateway: "192.0.2.1", Version: 4, Pool: "p4"},
		{Address: "2001:db8:0:5::", Prefix: 64, Gateway: "2001:db8::1", Version: 6, Pool: "p6"},
	}
	want := []string{"192.0.2.10", "2001:db8:0:5::1"}
	m := c.make(hypervisor.CreateSpec{Name: "addressed", Addresses: addrs}, hypervisor.StateRunning)
	for _, got := range []hypervisor.Machine{m, c.machine(m.VMID)} {
		if len(got.Interfaces) == 0 || !slices.Equal(got.Interfaces[0].IPAddresses, want) {
			t.Errorf("machine %d's interfaces: got %+v; want net0 with %v", got.VMID, got.Interfaces, want)
		}
	}
}

// restoreNewWithAddresses: a backup restored into a new machine with addresses from
// vmplane's pools shows them on net0 instead of the backup's (its source keeps its
// own), when restored and when read back.
func (c *suite) restoreNewWithAddresses(t *testing.T) {
	src := []hypervisor.Address{{Address: "192.0.2.10", Prefix: 24, Gateway: "192.0.2.1", Version: 4, Pool: "p4"}}
	m := c.make(hypervisor.CreateSpec{Name: "addressed", Addresses: src}, hypervisor.StateRunning)
	ref := hypervisor.Ref{VMID: m.VMID}
	b, err := c.d.Backup(bg, ref, "")
	WantErr(t, "backup", err)
	addrs := []hypervisor.Address{
		{Address: "192.0.2.11", Prefix: 24, Gateway: "192.0.2.1", Version: 4, Pool: "p4"},
		{Address: "2001:db8:0:6::", Prefix: 64, Gateway: "2001:db8::1", Version: 6, Pool: "p6"},
	}
	want := []string{"192.0.2.11", "2001:db8:0:6::1"}
	got, err := c.d.RestoreNew(bg, ref, b.ID, hypervisor.RestoreSpec{Name: "addressed-copy", Addresses: addrs})
	WantErr(t, "restore with addresses", err)
	for _, got := range []hypervisor.Machine{got, c.machine(got.VMID)} {
		if len(got.Interfaces) == 0 || !slices.Equal(got.Interfaces[0].IPAddresses, want) {
			t.Errorf("restored machine %d's interfaces: got %+v; want net0 with %v", got.VMID, got.Interfaces, want)
		}
	}
	if s := c.machine(m.VMID); len(s.Interfaces) == 0 || !slices.Equal(s.Interfaces[0].IPAddresses, []string{"192.0.2.10"}) {
		t.Errorf("source after the restore: got %+v; want net0 with 192.0.2.10 still", s.Interfaces)
	}
}
