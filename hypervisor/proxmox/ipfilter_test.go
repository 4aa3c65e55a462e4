package proxmox

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// Addresses of the tests: an IPv4 address and an IPv6 routed prefix from vmplane's
// pools, and two more IPv4 addresses.
var (
	v4a = hypervisor.Address{Address: "192.0.2.10", Prefix: 24, Gateway: "192.0.2.1", Version: 4, Pool: "p4"}
	v4b = hypervisor.Address{Address: "192.0.2.11", Prefix: 24, Gateway: "192.0.2.1", Version: 4, Pool: "p4"}
	v4c = hypervisor.Address{Address: "198.51.100.7", Prefix: 24, Gateway: "198.51.100.1", Version: 4, Pool: "p4b"}
	v6a = hypervisor.Address{Address: "2001:db8:0:5::", Prefix: 64, Gateway: "2001:db8::1", Version: 6, Pool: "p6"}
)

// ipfilterOf reads a VM's ipfilter-net0 at the fake (nil and false when it has none).
func ipfilterOf(f *pvefake.Server, vmid int) ([]string, bool) {
	return f.IPSet(vmid, ipfilterSet)
}

// wantIPFilter checks a VM's ipfilter-net0 entries (in any order: a set has none)
// and that Proxmox enforces them: the options ipfilter and enable on, firewall=1 on
// net0.
func wantIPFilter(t *testing.T, what string, f *pvefake.Server, vmid int, want ...string) {
	t.Helper()
	got, ok := ipfilterOf(f, vmid)
	got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !ok || !slices.Equal(got, want) {
		t.Errorf("%s: ipfilter-net0 of %d: got %v (exists: %v); want %v", what, vmid, got, ok, want)
	}
	opts := f.FirewallOptions(vmid)
	for _, k := range []string{"ipfilter", "enable"} {
		if opts[k] != "1" {
			t.Errorf("%s: firewall option %s of %d: got %q; want 1", what, k, vmid, opts[k])
		}
	}
	if cfg := fakeConfig(t, f, vmid); !strings.Contains(cfg["net0"], "firewall=1") {
		t.Errorf("%s: net0 of %d: got %q; want firewall=1", what, vmid, cfg["net0"])
	}
}

// wantPolicies checks a VM's firewall policies as Proxmox holds them.
func wantPolicies(t *testing.T, what string, f *pvefake.Server, vmid int, in, out string) {
	t.Helper()
	opts := f.FirewallOptions(vmid)
	if opts["policy_in"] != in || opts["policy_out"] != out {
		t.Errorf("%s: policies of %d: got in %q, out %q; want in %q, out %q", what, vmid, opts["policy_in"], opts["policy_out"], in, out)
	}
}

// TestCreateWritesIPFilter: a machine created with addresses gets them in
// ipfilter-net0 (IPv4 as the host, IPv6 as the routed prefix), over whatever the
// template's own set held, enforced from the start: ipfilter and the firewall on,
// firewall=1 on net0, and both policies ACCEPT since it has no rules (no rules =
// open). One created without addresses gets no set and its firewall untouched.
func TestCreateWritesIPFilter(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	if err := f.SetIPSet(9000, ipfilterSet, []string{"10.9.9.9"}); err != nil {
		t.Fatal(err)
	}
	m := create(t, d, hypervisor.CreateSpec{Name: "addressed", Addresses: []hypervisor.Address{v4a, v6a}})
	wantIPFilter(t, "create", f, m.VMID, "192.0.2.10", "2001:db8:0:5::/64")
	wantPolicies(t, "create", f, m.VMID, "ACCEPT", "ACCEPT")
	if got := fakeConfig(t, f, m.VMID)["ipconfig0"]; got != "ip=192.0.2.10/24,gw=192.0.2.1,ip6=2001:db8:0:5::1/64,gw6=2001:db8::1" {
		t.Errorf("ipconfig0: got %q", got)
	}

	f.SetIPSet(9000, ipfilterSet, nil)
	plain := create(t, d, hypervisor.CreateSpec{Name: "plain"})
	if names := f.IPSets(plain.VMID); len(names) != 0 {
		t.Errorf("IP sets of a machine created without addresses: got %v; want none", names)
	}
	if got := f.FirewallOptions(plain.VMID); len(got) != 0 {
		t.Errorf("firewall options of a machine created without addresses: got %v; want them untouched", got)
	}
	if cfg := fakeConfig(t, f, plain.VMID); strings.Contains(cfg["net0"], "firewall=1") {
		t.Errorf("net0 of a machine created without addresses: got %q; want no firewall", cfg["net0"])
	}
}

// TestCreateIPFilterFailureCleansUp: a create whose IP set cannot be written fails as
// one whose ipconfig0 cannot, and leaves no machine behind.
func TestCreateIPFilterFailureCleansUp(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/firewall/ipset/{name}", Status: 500, Message: "cfs-lock 'file-firewall' error: got lock request timeout", Times: 1})
	_, err := d.Create(bg, hypervisor.CreateSpec{TemplateID: "tpl-9000", CPUCores: 1, MemoryMB: 512, Addresses: []hypervisor.Address{v4a}})
	wantErr(t, "create with a failing IP set write", err, hypervisor.ErrUnavailable)
	wantContains(t, "create with a failing IP set write", err, "ipfilter-net0", "got lock request timeout")
	if _, _, _, ok := f.VM(100); ok {
		t.Errorf("after a failed Create: vmid 100 still exists; want the half-made clone deleted")
	}
}

// TestSetAddresses: the set becomes exactly the addresses given (added, deleted, an
// operator's spelling of the same address kept), ipconfig0 follows the primary
// address only when it changed, ipfilter is turned back on; no addresses empty a set
// vmplane made and touch nothing on a machine without one; bad input sends nothing.
func TestSetAddresses(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "addressed", Addresses: []hypervisor.Address{v4a}})
	ref := hypervisor.Ref{VMID: m.VMID}
	ipc := fakeConfig(t, f, m.VMID)["ipconfig0"]

	f.ResetRequests()
	wantErr(t, "add addresses", d.SetAddresses(bg, ref, []hypervisor.Address{v4a, v4b, v6a}))
	wantIPFilter(t, "add addresses", f, m.VMID, "192.0.2.10", "192.0.2.11", "2001:db8:0:5::/64")
	if got := fakeConfig(t, f, m.VMID)["ipconfig0"]; got != "ip=192.0.2.10/24,gw=192.0.2.1,ip6=2001:db8:0:5::1/64,gw6=2001:db8::1" {
		t.Errorf("ipconfig0 after a first IPv6 prefix: got %q; want it to carry the prefix", got)
	}
	if n := f.Count("POST", "/nodes/pve1/qemu/"+itoa(m.VMID)+"/firewall/ipset"); n != 0 {
		t.Errorf("set creations: got %d; want none (the set exists)", n)
	}

	// Extras only: ipconfig0 is not written.
	wantErr(t, "drop the prefix again", d.SetAddresses(bg, ref, []hypervisor.Address{v4a}))
	f.ResetRequests()
	wantErr(t, "an extra address", d.SetAddresses(bg, ref, []hypervisor.Address{v4a, v4b}))
	wantIPFilter(t, "an extra address", f, m.VMID, "192.0.2.10", "192.0.2.11")
	if got := fakeConfig(t, f, m.VMID)["ipconfig0"]; got != ipc {
		t.Errorf("ipconfig0 after an extra address: got %q; want %q unchanged", got, ipc)
	}
	if n := f.Count("POST", "/nodes/pve1/qemu/"+itoa(m.VMID)+"/config"); n != 0 {
		t.Errorf("config writes for an extra address: got %d; want none", n)
	}

	// A new primary; an operator's extra entry goes, his /32 spelling of a kept
	// address stays, and ipfilter comes back on.
	f.SetIPSet(m.VMID, ipfilterSet, []string{"203.0.113.66", "198.51.100.7/32", "192.0.2.10"})
	f.SetFirewallOption(m.VMID, "ipfilter", "0")
	wantErr(t, "new primary", d.SetAddresses(bg, ref, []hypervisor.Address{v4c, v6a}))
	wantIPFilter(t, "new primary", f, m.VMID, "2001:db8:0:5::/64", "198.51.100.7/32")
	if got := fakeConfig(t, f, m.VMID)["ipconfig0"]; got != "ip=198.51.100.7/24,gw=198.51.100.1,ip6=2001:db8:0:5::1/64,gw6=2001:db8::1" {
		t.Errorf("ipconfig0 after a new primary: got %q", got)
	}
	if mm := machineOf(t, d, m.VMID); !slices.Equal(mm.Interfaces[0].IPAddresses, []string{"198.51.100.7", "2001:db8:0:5::1"}) {
		t.Errorf("machine after a new primary: got %v on net0; want the new addresses", mm.Interfaces[0].IPAddresses)
	}

	wantErr(t, "no addresses", d.SetAddresses(bg, ref, nil))
	wantIPFilter(t, "no addresses", f, m.VMID)

	plain := create(t, d, hypervisor.CreateSpec{Name: "plain"})
	wantErr(t, "no addresses on a machine vmplane never addressed", d.SetAddresses(bg, hypervisor.Ref{VMID: plain.VMID}, nil))
	if names := f.IPSets(plain.VMID); len(names) != 0 {
		t.Errorf("IP sets of an unaddressed machine: got %v; want none", names)
	}

	f.ResetRequests()
	for _, bad := range []hypervisor.Address{
		{Address: "192.0.2.300", Prefix: 24, Version: 4},
		{Address: "2001:db8::", Prefix: 0, Version: 6},
		{Address: "", Version: 4},
	} {
		err := d.SetAddresses(bg, ref, []hypervisor.Address{v4a, bad})
		wantErr(t, "bad address "+bad.Address, err, apierr.ErrInvalidRequest)
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("bad addresses: Proxmox saw %d requests; want none", n)
	}
	wantErr(t, "unknown machine", d.SetAddresses(bg, hypervisor.Ref{VMID: 4242}, []hypervisor.Address{v4a}), hypervisor.ErrMachineNotFound)
}

// TestFirewallPushKeepsIPFilter: a tenant's firewall push leaves the IP set and its
// enforcement alone and sets the policies: rules drop what no in rule accepts, an
// empty set reopens both directions (the firewall stays on, for the filter); an
// unchanged push writes nothing; addresses changed on a machine with rules keep its
// policies.
func TestFirewallPushKeepsIPFilter(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "addressed", Addresses: []hypervisor.Address{v4a, v6a}})
	ref := hypervisor.Ref{VMID: m.VMID}
	ssh := []hypervisor.FirewallRule{{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Enabled: true}}
	addrs := []string{"192.0.2.10", "2001:db8:0:5::/64"}
	for _, c := range []struct {
		what      string
		rules     []hypervisor.FirewallRule
		in, out   string
		addresses []hypervisor.Address
	}{
		{"rules", ssh, "DROP", "ACCEPT", nil},
		{"new addresses with rules", nil, "DROP", "ACCEPT", []hypervisor.Address{v4a, v4b, v6a}},
		{"an empty set", []hypervisor.FirewallRule{}, "ACCEPT", "ACCEPT", nil},
		{"new addresses without rules", nil, "ACCEPT", "ACCEPT", []hypervisor.Address{v4a, v6a}},
		{"rules again", ssh, "DROP", "ACCEPT", nil},
	} {
		if c.addresses != nil {
			wantErr(t, c.what, d.SetAddresses(bg, ref, c.addresses))
		} else {
			wantErr(t, c.what, d.SetFirewall(bg, ref, c.rules))
		}
		wantPolicies(t, c.what, f, m.VMID, c.in, c.out)
		if c.addresses != nil {
			cidrs, err := ipfilterEntries(c.addresses)
			wantErr(t, c.what, err)
			addrs = cidrs
		}
		wantIPFilter(t, c.what, f, m.VMID, addrs...)
		if c.addresses != nil {
			continue
		}
		f.ResetRequests()
		wantErr(t, c.what+" again", d.SetFirewall(bg, ref, c.rules))
		for _, r := range f.Requests() {
			if isWrite(r) {
				t.Errorf("%s pushed again wrote %s %s", c.what, r.Method, r.Path)
			}
		}
	}
}

// TestFilterKeptAndCaughtUp: a reinstall and a restore over the machine keep the
// enforced filter and the policies the machine had; a machine addressed before
// vmplane turned the firewall on with the filter (ipfilter=1, firewall off, no
// policies, net0 without firewall=1) gets it enforced by either.
func TestFilterKeptAndCaughtUp(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "addressed", Addresses: []hypervisor.Address{v4a}, Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}
	wantErr(t, "rules", d.SetFirewall(bg, ref, []hypervisor.FirewallRule{{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Enabled: true}}))
	_, err := d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-9001"})
	wantErr(t, "reinstall with rules", err)
	wantIPFilter(t, "reinstall with rules", f, m.VMID, "192.0.2.10")
	wantPolicies(t, "reinstall with rules", f, m.VMID, "DROP", "ACCEPT")

	wantErr(t, "no rules", d.SetFirewall(bg, ref, nil))
	b, err := d.Backup(bg, ref, "")
	wantErr(t, "backup", err)
	_, err = d.RestoreBackup(bg, ref, b.ID)
	wantErr(t, "restore without rules", err)
	wantIPFilter(t, "restore without rules", f, m.VMID, "192.0.2.10")
	wantPolicies(t, "restore without rules", f, m.VMID, "ACCEPT", "ACCEPT")

	// Addressed the old way: only ipfilter=1.
	legacy := func() {
		t.Helper()
		for k, v := range map[string]string{"ipfilter": "1", "enable": "", "policy_in": "", "policy_out": ""} {
			if err := f.SetFirewallOption(m.VMID, k, v); err != nil {
				t.Fatal(err)
			}
		}
		l, err := d.locateLive(bg, m.VMID)
		if err != nil {
			t.Fatal(err)
		}
		err = d.updateConfig(bg, l, "take firewall=1 off net0", func(cfg pveconf.VM) (map[string]any, error) {
			return map[string]any{"net0": strings.ReplaceAll(cfg["net0"], ",firewall=1", "")}, nil
		})
		if err != nil || strings.Contains(fakeConfig(t, f, m.VMID)["net0"], "firewall") {
			t.Fatalf("take firewall=1 off net0: %v, net0 %q", err, fakeConfig(t, f, m.VMID)["net0"])
		}
	}
	legacy()
	_, err = d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-9000"})
	wantErr(t, "reinstall of a machine addressed before", err)
	wantIPFilter(t, "reinstall of a machine addressed before", f, m.VMID, "192.0.2.10")
	wantPolicies(t, "reinstall of a machine addressed before", f, m.VMID, "ACCEPT", "ACCEPT")

	legacy()
	b, err = d.Backup(bg, ref, "")
	wantErr(t, "backup of a machine addressed before", err)
	wantErr(t, "enforce", d.SetAddresses(bg, ref, []hypervisor.Address{v4a}))
	_, err = d.RestoreBackup(bg, ref, b.ID)
	wantErr(t, "restore of an archive from before", err)
	wantIPFilter(t, "restore of an archive from before", f, m.VMID, "192.0.2.10")
	wantPolicies(t, "restore of an archive from before", f, m.VMID, "ACCEPT", "ACCEPT")
}

// TestReinstallKeepsIPSets: a reinstall (destroy, clone, which copies the new
// template's firewall file) ends with the machine's IP sets exactly as they were,
// the template's own gone, and ipfilter on.
func TestReinstallKeepsIPSets(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "addressed", Addresses: []hypervisor.Address{v4a, v6a}, Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}
	wantErr(t, "extra address", d.SetAddresses(bg, ref, []hypervisor.Address{v4a, v6a, v4b}))
	f.SetIPSet(m.VMID, "office", []string{"203.0.113.0/24"})
	f.SetIPSet(9001, ipfilterSet, []string{"10.9.9.9"})
	f.SetIPSet(9001, "template-only", []string{"10.8.8.8"})
	f.SetFirewallOption(9001, "ipfilter", "0")
	before, _ := ipfilterOf(f, m.VMID)

	_, err := d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-9001", Password: "n3w-pass"})
	wantErr(t, "reinstall", err)
	wantIPFilter(t, "reinstall", f, m.VMID, before...)
	if got := f.IPSets(m.VMID); !reflect.DeepEqual(got, []string{ipfilterSet, "office"}) {
		t.Errorf("IP sets after reinstall: got %v; want the machine's own", got)
	}
	if got, _ := f.IPSet(m.VMID, "office"); !slices.Equal(got, []string{"203.0.113.0/24"}) {
		t.Errorf("set office after reinstall: got %v", got)
	}
}

// TestRestoreKeepsAddressing: a restore over the machine brings back the archive's
// firewall file and config, but the machine keeps the addresses it holds now; a
// restore into a new machine with addresses gets only those, not its source's.
func TestRestoreKeepsAddressing(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "addressed", Addresses: []hypervisor.Address{v4a}, Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}
	b, err := d.Backup(bg, ref, "")
	wantErr(t, "backup", err)
	wantErr(t, "new addresses", d.SetAddresses(bg, ref, []hypervisor.Address{v4c, v4b}))
	ipc := fakeConfig(t, f, m.VMID)["ipconfig0"]

	got, err := d.RestoreBackup(bg, ref, b.ID)
	wantErr(t, "restore", err)
	wantIPFilter(t, "restore over the machine", f, m.VMID, "198.51.100.7", "192.0.2.11")
	if c := fakeConfig(t, f, m.VMID)["ipconfig0"]; c != ipc {
		t.Errorf("ipconfig0 after the restore: got %q; want %q, the machine's now", c, ipc)
	}
	if got.State != hypervisor.StateRunning {
		t.Errorf("state after the restore: got %s; want running again", got.State)
	}

	copyM, err := d.RestoreNew(bg, ref, b.ID, hypervisor.RestoreSpec{Name: "copy", Addresses: []hypervisor.Address{v4b, v6a}})
	wantErr(t, "restore into a new machine", err)
	wantIPFilter(t, "restore into a new machine", f, copyM.VMID, "192.0.2.11", "2001:db8:0:5::/64")
	wantIPFilter(t, "the source after restoring its copy", f, m.VMID, "198.51.100.7", "192.0.2.11")

	// A restore over a machine vmplane never addressed writes no set.
	plain := create(t, d, hypervisor.CreateSpec{Name: "plain"})
	pb, err := d.Backup(bg, hypervisor.Ref{VMID: plain.VMID}, "")
	wantErr(t, "backup plain", err)
	_, err = d.RestoreBackup(bg, hypervisor.Ref{VMID: plain.VMID}, pb.ID)
	wantErr(t, "restore plain", err)
	if names := f.IPSets(plain.VMID); len(names) != 0 {
		t.Errorf("IP sets after restoring an unaddressed machine: got %v; want none", names)
	}
}

// TestRestoreNewFailureToAddressCleansUp: a restore into a new machine whose IP set
// cannot be written is destroyed again, as one whose ipconfig0 cannot.
func TestRestoreNewFailureToAddressCleansUp(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "addressed", Addresses: []hypervisor.Address{v4a}})
	ref := hypervisor.Ref{VMID: m.VMID}
	b, err := d.Backup(bg, ref, "")
	wantErr(t, "backup", err)
	// The copy holds its source's address (the archive's firewall file): removing it fails.
	f.Inject(pvefake.Fault{Method: "DELETE", Path: "/nodes/{node}/qemu/{vmid}/firewall/ipset/{name}/{cidr}", Status: 500, Message: "cfs-lock 'file-firewall' error: got lock request timeout", Times: 1})
	_, err = d.RestoreNew(bg, ref, b.ID, hypervisor.RestoreSpec{Name: "copy", Addresses: []hypervisor.Address{v4b}})
	wantErr(t, "restore with a failing ipfilter write", err, hypervisor.ErrUnavailable)
	if _, _, _, ok := f.VM(m.VMID + 1); ok {
		t.Errorf("after a failed RestoreNew: vmid %d still exists; want it deleted", m.VMID+1)
	}
}

// TestIPFilterEntries: what each address becomes in ipfilter-net0, and the stored
// form entries are compared in.
func TestIPFilterEntries(t *testing.T) {
	got, err := ipfilterEntries([]hypervisor.Address{
		v4a,
		{Address: "2001:db8:0:5::", Prefix: 64, Version: 6},
		{Address: "2001:db8:0:5::", Prefix: 64, Version: 6}, // the same prefix twice: once
		{Address: "2001:db8::7", Prefix: 128, Version: 6},
		{Address: "2001:db8:0:9::42", Prefix: 56, Version: 6}, // host bits cleared
	})
	if want := []string{"192.0.2.10", "2001:db8:0:5::/64", "2001:db8::7", "2001:db8::/56"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ipfilterEntries: got %v, %v; want %v", got, err, want)
	}
	for _, tc := range []struct{ in, want string }{
		{"192.0.2.5", "192.0.2.5"},
		{"192.0.2.5/32", "192.0.2.5"},
		{"192.0.2.77/24", "192.0.2.0/24"},
		{"2001:DB8::1/128", "2001:db8::1"},
		{"2001:db8:0:5:1::/64", "2001:db8:0:5::/64"},
		{"office", ""},
		{"dc/office", ""},
	} {
		got, ok := ipsetCIDR(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("ipsetCIDR(%q): got %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
