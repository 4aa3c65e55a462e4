package proxmox

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	pve "github.com/luthermonson/go-proxmox"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// TestCreate: what a create writes to Proxmox (cloud-init, the template tag), the
// clone lock it waits out, templates by name and on local storage; the conformance
// suite checks the machine a create makes and the shared refusals.
func TestCreate(t *testing.T) {
	// Clone locks outlive their task by three config reads: Create must wait them out.
	d, f := newTest(t, pvefake.Config{CloneLockReads: 3})
	a := create(t, d, hypervisor.CreateSpec{Name: "web", DiskGB: 4, Password: "s3cret-pw", SSHKeys: []string{"ssh-ed25519 AAAAC3 me@laptop"}})
	cfg := fakeConfig(t, f, a.VMID)
	want := map[string]string{"ciuser": "root", "cipassword": "s3cret-pw", "ipconfig0": "ip=dhcp",
		"sshkeys": pve.EncodeSSHKeys("ssh-ed25519 AAAAC3 me@laptop"), "tags": "vmplane-tpl-9000"}
	for k, v := range want {
		if cfg[k] != v {
			t.Errorf("cloud-init %s at Proxmox: got %q; want %q", k, cfg[k], v)
		}
	}
	if cfg["lock"] != "" {
		t.Errorf("after Create: got lock %q; want none", cfg["lock"])
	}

	// A template on local storage can only be cloned on its own node. Templates also
	// resolve by name and by the sim's "tpl-<name>" ids.
	local := create(t, d, hypervisor.CreateSpec{TemplateID: "tpl-rocky-9"})
	if byName := create(t, d, hypervisor.CreateSpec{TemplateID: "ubuntu-24.04"}); byName.TemplateID != "tpl-9001" {
		t.Errorf("template by name: got %q; want tpl-9001", byName.TemplateID)
	}
	if local.Node != "pve2" || local.TemplateID != "tpl-9002" || local.Disks[0].SizeGB != 12 {
		t.Errorf("local template: got %s, template %s, %d GB; want pve2, tpl-9002, 12 GB", local.Node, local.TemplateID, local.Disks[0].SizeGB)
	}
	if err := f.SetNodeOnline("pve2", false); err != nil {
		t.Fatal(err)
	}
	f1 := func(name string, spec hypervisor.CreateSpec, targets ...error) {
		t.Helper()
		if spec.TemplateID == "" {
			spec.TemplateID = "tpl-9000"
		}
		_, err := d.Create(bg, spec)
		wantErr(t, name, err, targets...)
	}
	f1("a machine is no template", hypervisor.CreateSpec{TemplateID: "tpl-100"}, hypervisor.ErrTemplateNotFound)
	f1("template node offline", hypervisor.CreateSpec{TemplateID: "tpl-9002"}, hypervisor.ErrNodeOffline)
	f1("a name that is no DNS name", hypervisor.CreateSpec{Name: "under_score"}, apierr.ErrInvalidRequest)
	if err := f.SetNodeOnline("pve2", true); err != nil {
		t.Fatal(err)
	}
	f1("local template to another node", hypervisor.CreateSpec{TemplateID: "tpl-9002", Node: "pve3"}, apierr.ErrInvalidRequest)
}

func TestConcurrentCreates(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	// Concurrent creates of one driver must not pick the same vmid from
	// /cluster/nextid, and must skip vmids that exist already (101).
	addVM(t, f, pvefake.VMSpec{VMID: 101})
	vmids := createsAtOnce(t, 6, func(int) (int, error) {
		m, err := d.Create(bg, hypervisor.CreateSpec{TemplateID: "tpl-9000"})
		return m.VMID, err
	})
	for i, vmid := range vmids {
		if vmid == 101 {
			t.Errorf("create %d: got vmid %d, which was taken", i, vmid)
		}
	}
}

// createsAtOnce runs n creates at once and checks that each succeeded with a vmid of
// its own; it returns the vmids, 0 for a create that failed.
func createsAtOnce(t *testing.T, n int, create func(i int) (int, error)) []int {
	t.Helper()
	var wg sync.WaitGroup
	vmids := make([]int, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vmids[i], errs[i] = create(i)
		}()
	}
	wg.Wait()
	seen := map[int]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Errorf("create %d: %v", i, errs[i])
			vmids[i] = 0
			continue
		}
		if seen[vmids[i]] {
			t.Errorf("create %d: got vmid %d twice", i, vmids[i])
		}
		seen[vmids[i]] = true
	}
	return vmids
}

func TestCreateNextIDTakenByAnotherClient(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	// The first clone is refused as if another client had just created vmid 100: the
	// driver asks nextid again and never tries 100 a second time.
	f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/clone", Status: 500,
		Message: "unable to create VM 100: config file already exists", Times: 1})
	m := create(t, d, hypervisor.CreateSpec{})
	if n := f.Count("GET", "/cluster/nextid"); n != 2 || m.VMID != 101 {
		t.Errorf("after a taken vmid: got vmid %d after %d nextid calls; want 101 after a second nextid", m.VMID, n)
	}
	_, err := d.Create(bg, hypervisor.CreateSpec{TemplateID: "tpl-9000", VMID: 101})
	wantErr(t, "explicit vmid taken", err, hypervisor.ErrVMIDInUse)

	// Other clients may win many rounds in a row: a create loses ten and still gets one.
	f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/clone", Status: 500,
		Message: "unable to create VM: config file already exists", Times: 10})
	if m := create(t, d, hypervisor.CreateSpec{}); m.VMID <= 101 {
		t.Errorf("after ten taken vmids: got vmid %d; want one above 101", m.VMID)
	}
}

// Three clients of one Proxmox (the members of a vmplane cluster) creating sixty
// machines at once all succeed, each with its own vmid, although /cluster/nextid
// offers the callers that ask at the same moment the same vmid.
func TestCreatesOfThreeClientsAtOnce(t *testing.T) {
	// The package's longest test: parallel, so that it overlaps the other long one
	// (each on fakes of its own) instead of adding to it.
	t.Parallel()
	d, f := newTest(t, pvefake.Config{})
	ds := []*Driver{d, newDriver(t, f), newDriver(t, f)}
	const n = 60
	vmids := createsAtOnce(t, n, func(i int) (int, error) {
		m, err := ds[i%len(ds)].Create(bg, hypervisor.CreateSpec{TemplateID: "tpl-9000", MemoryMB: 128})
		return m.VMID, err
	})
	for i, vmid := range vmids {
		if _, _, _, ok := f.VM(vmid); vmid != 0 && !ok {
			t.Errorf("create %d: Proxmox has no machine %d", i, vmid)
		}
	}
	t.Logf("%d nextid calls for %d creates", f.Count("GET", "/cluster/nextid"), n)
}

func TestCreateFailureCleansUp(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/config", TaskExit: "unable to apply cloud-init: storage full", Times: 1})
	_, err := d.Create(bg, hypervisor.CreateSpec{TemplateID: "tpl-9000"})
	wantErr(t, "create with a failing config task", err, hypervisor.ErrTaskFailed, apierr.ErrInternal)
	wantContains(t, "create with a failing config task", err, "storage full")
	if _, _, _, ok := f.VM(100); ok {
		t.Errorf("after a failed Create: vmid 100 still exists; want the half-made clone deleted")
	}
	// The vmid is free again.
	if m := create(t, d, hypervisor.CreateSpec{}); m.VMID != 100 {
		t.Errorf("next create: got vmid %d; want 100", m.VMID)
	}
}

// TestDestroy: a running machine is stopped first, once, and gone at Proxmox.
func TestDestroy(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	a := create(t, d, hypervisor.CreateSpec{Start: true})
	wantErr(t, "destroy running", d.Destroy(bg, hypervisor.Ref{VMID: a.VMID}))
	if _, _, _, ok := f.VM(a.VMID); ok {
		t.Errorf("after Destroy: the VM still exists at Proxmox")
	}
	if n := f.Count("POST", "/nodes/pve1/qemu/100/status/stop"); n != 1 {
		t.Errorf("stops before destroy: got %d; want 1", n)
	}
}

// TestReinstall: what pattern (A) carries over at Proxmox (cloud-init, keys, name,
// firewall) and a template Proxmox cannot clone to the machine's node; the
// conformance suite checks the machine a reinstall leaves.
func TestReinstall(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "db", DiskGB: 8, CPUCores: 4, MemoryMB: 8192, Start: true, SSHKeys: []string{"ssh-rsa AAAA old@key"}})
	ref := hypervisor.Ref{VMID: m.VMID}
	if _, err := d.AddDisk(bg, ref, 100, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(9), RateMbps: new(200)}}); err != nil {
		t.Fatal(err)
	}
	rules := []hypervisor.FirewallRule{{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Enabled: true}}
	if err := d.SetFirewall(bg, ref, rules); err != nil {
		t.Fatal(err)
	}
	before := machineOf(t, d, m.VMID)
	beforeRules := f.FirewallRules(m.VMID)

	got, err := d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-9001", Password: "new-pass-1"})
	wantErr(t, "reinstall", err)
	want := before
	want.TemplateID = "tpl-9001"
	want.State = hypervisor.StateRunning
	want.Disks = append([]hypervisor.Disk(nil), before.Disks...)
	want.Disks[0].SizeGB = 10 // the template's 10 GB is more than the old 8
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reinstall:\n got %+v\nwant %+v", got, want)
	}
	cfg := fakeConfig(t, f, m.VMID)
	if cfg["cipassword"] != "new-pass-1" || cfg["sshkeys"] != pve.EncodeSSHKeys("ssh-rsa AAAA old@key") || cfg["name"] != "db" {
		t.Errorf("cloud-init after reinstall: got password %q keys %q name %q; want the new password and the old keys and name", cfg["cipassword"], cfg["sshkeys"], cfg["name"])
	}
	if got := f.FirewallRules(m.VMID); !reflect.DeepEqual(got, beforeRules) || f.FirewallOptions(m.VMID)["enable"] != "1" {
		t.Errorf("firewall after reinstall: got %v, options %v; want %v, enabled", got, f.FirewallOptions(m.VMID), beforeRules)
	}

	_, err = d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-9002"}) // local to pve2; the machine is on pve1
	wantErr(t, "template not clonable here", err, apierr.ErrInvalidRequest)
	if st := fakeStatus(t, f, m.VMID); st != "running" {
		t.Errorf("after refused reinstalls: got %s; want the machine untouched and running", st)
	}
}

func TestCancelWhileWaitingForTask(t *testing.T) {
	d, f := newTest(t, pvefake.Config{TaskPolls: 1_000_000})
	id := addVM(t, f, pvefake.VMSpec{})
	ctx, cancel := context.WithTimeout(bg, 50*time.Millisecond)
	defer cancel()
	// The task never ends (a million polls): only the deadline can end the wait.
	err := d.Power(ctx, hypervisor.Ref{VMID: id}, hypervisor.ActionStart)
	wantErr(t, "start past deadline", err, context.DeadlineExceeded, apierr.ErrTimeout)
}
