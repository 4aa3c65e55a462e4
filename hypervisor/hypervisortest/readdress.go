package hypervisortest

import (
	"slices"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// setAddresses, for a driver that is a hypervisor.Readdresser (skipped otherwise): a
// machine given a new primary address and a first IPv6 prefix after it was made
// shows them on net0, as createWithAddresses shows a new machine's; a machine the
// hypervisor lacks is ErrMachineNotFound.
func (c *suite) setAddresses(t *testing.T) {
	rd, ok := c.d.(hypervisor.Readdresser)
	if !ok {
		t.Skip("the driver does not change a machine's addresses")
	}
	m := c.make(hypervisor.CreateSpec{Name: "addressed", Addresses: []hypervisor.Address{
		{Address: "192.0.2.10", Prefix: 24, Gateway: "192.0.2.1", Version: 4, Pool: "p4"},
	}}, hypervisor.StateStopped)
	ref := hypervisor.Ref{VMID: m.VMID}
	addrs := []hypervisor.Address{
		{Address: "198.51.100.7", Prefix: 24, Gateway: "198.51.100.1", Version: 4, Pool: "p4b"},
		{Address: "2001:db8:0:5::", Prefix: 64, Gateway: "2001:db8::1", Version: 6, Pool: "p6"},
	}
	WantErr(t, "SetAddresses", rd.SetAddresses(bg, ref, addrs))
	want := []string{"198.51.100.7", "2001:db8:0:5::1"}
	if got := c.machine(m.VMID); len(got.Interfaces) == 0 || !slices.Equal(got.Interfaces[0].IPAddresses, want) {
		t.Errorf("machine %d after SetAddresses: got %+v; want net0 with %v", m.VMID, got.Interfaces, want)
	}
	WantErr(t, "SetAddresses of a missing machine", rd.SetAddresses(bg, hypervisor.Ref{VMID: 4040}, addrs),
		hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
}
