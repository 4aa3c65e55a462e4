package proxmox

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

func TestInventory(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	web := addVM(t, f, pvefake.VMSpec{Name: "web", Node: "pve1", Status: "running", Cores: 2, MemoryMB: 4096, DiskGB: 32, Config: map[string]string{
		"sockets":   "2",
		"net0":      "virtio=bc:24:11:aa:bb:cc,bridge=vmbr0,tag=10,firewall=1,rate=12.5",
		"net1":      "e1000=BC:24:11:AA:BB:CD,bridge=vmbr1",
		"ipconfig0": "ip=10.0.0.5/24,gw=10.0.0.1,ip6=2001:db8::5/64",
		"ipconfig1": "ip=dhcp",
		"virtio1":   "cephpool:vm-100-disk-1,size=512M",
		"ide0":      "local:iso/debian.iso,media=cdrom",
		"tags":      "prod;vmplane-tpl-9000",
	}})
	paused := addVM(t, f, pvefake.VMSpec{Node: "pve2", Status: "paused"})
	stranded := addVM(t, f, pvefake.VMSpec{Node: "pve3", Status: "running", Cores: 4, MemoryMB: 2048, DiskGB: 20})
	if err := f.SetNodeOnline("pve3", false); err != nil {
		t.Fatal(err)
	}

	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatalf("Inventory: %v", err)
	}
	var nodes []string
	for _, n := range inv.Nodes {
		nodes = append(nodes, n.ID+":"+string(n.Status))
	}
	if want := []string{"pve1:online", "pve2:online", "pve3:offline"}; !slices.Equal(nodes, want) {
		t.Errorf("nodes: got %v; want %v", nodes, want)
	}
	// The room for disks is the node's storages for images (local-lvm 1 TiB, the shared
	// cephpool 8 TiB), not its root filesystem (DiskGB).
	if n := inv.Nodes[0]; n.StorageGB != 9*1024 {
		t.Errorf("node storage: got %d GB; want %d (local-lvm and cephpool)", n.StorageGB, 9*1024)
	}
	if n := inv.Nodes[0]; n.CPUCores != 32 || n.MemoryMB != 128*1024 || n.DiskGB != 100 || n.CPU <= 0 || n.MemBytes <= 0 {
		t.Errorf("node pve1: got %+v; want 32 cores, 128 GiB, 100 GB and usage", n)
	}
	var tpls []string
	for _, tp := range inv.Templates {
		tpls = append(tpls, tp.ID+"/"+tp.Name+"/"+tp.OS)
	}
	if want := []string{"tpl-9000/debian-12/debian", "tpl-9001/ubuntu-24.04/ubuntu", "tpl-9002/rocky-9/rocky"}; !slices.Equal(tpls, want) {
		t.Errorf("templates: got %v; want %v", tpls, want)
	}
	if inv.Templates[2].DiskGB != 12 {
		t.Errorf("template rocky-9: got disk %d GB; want 12", inv.Templates[2].DiskGB)
	}
	// A template on shared storage clones anywhere; one on a node's local storage
	// names the node, where vmplane's placement must put its machines.
	if inv.Templates[0].Node != "" || inv.Templates[2].Node != "pve2" {
		t.Errorf("template nodes: got %q, %q; want none (shared), pve2 (local)", inv.Templates[0].Node, inv.Templates[2].Node)
	}
	if len(inv.Machines) != 3 {
		t.Fatalf("machines: got %d; want 3 (templates are not machines)", len(inv.Machines))
	}
	got := inv.Machines[0]
	want := hypervisor.Machine{
		VMID: web, Name: "web", Node: "pve1", State: hypervisor.StateRunning, CPUCores: 4, MemoryMB: 4096,
		TemplateID: "tpl-9000", Media: "debian.iso", BootOrder: []string{hypervisor.BootDisk},
		Disks: []hypervisor.Disk{
			{ID: "scsi0", Storage: "local-lvm", SizeGB: 32},
			{ID: "virtio1", Storage: "cephpool", SizeGB: 1},
		},
		Interfaces: []hypervisor.Interface{
			{ID: "net0", MAC: "BC:24:11:AA:BB:CC", Bridge: "vmbr0", VLAN: 10, RateMbps: 100, Firewall: true, IPAddresses: []string{"10.0.0.5", "2001:db8::5"}},
			{ID: "net1", MAC: "BC:24:11:AA:BB:CD", Bridge: "vmbr1", IPAddresses: []string{}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("machine web:\n got %+v\nwant %+v", got, want)
	}
	if m := inv.Machines[1]; m.VMID != paused || m.State != hypervisor.StateSuspended {
		t.Errorf("paused machine: got vmid %d state %s; want %d suspended", m.VMID, m.State, paused)
	}
	if m := inv.Machines[2]; m.VMID != stranded || m.Node != "pve3" || m.State != hypervisor.StateStopped || m.CPUCores != 4 || m.MemoryMB != 2048 || m.DiskGB() != 20 {
		t.Errorf("machine on offline node: got %+v; want its resource summary (4 cores, 2048 MB, 20 GB) on pve3", m)
	}
	// A machine on an offline node is still readable, from its summary.
	if m := machineOf(t, d, stranded); m.Node != "pve3" {
		t.Errorf("Machine on offline node: got node %s; want pve3", m.Node)
	}
}

func TestMachineFollowsMigrationBehindOurBack(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{Node: "pve1"})
	if _, err := d.Migrate(bg, hypervisor.Ref{VMID: id, Node: "pve1"}, "pve2", false); err != nil {
		t.Fatal(err)
	}
	// A stale hint does not matter: the node is resolved on every call.
	if m := machineOf(t, d, id); m.Node != "pve2" {
		t.Errorf("after migration: got node %s; want pve2", m.Node)
	}
	wantErr(t, "power with stale node hint", d.Power(bg, hypervisor.Ref{VMID: id, Node: "pve1"}, hypervisor.ActionStart))
	if got := fakeStatus(t, f, id); got != "running" {
		t.Errorf("state: got %s; want running", got)
	}
}

// TestPowerRefusals: what only Proxmox has, templates and locks, refuses a power
// action (the conformance suite checks the state machine).
func TestPowerRefusals(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{})
	wantErr(t, "a template", d.Power(bg, hypervisor.Ref{VMID: 9000}, hypervisor.ActionStart), hypervisor.ErrMachineNotFound)
	if err := f.SetLock(id, "backup"); err != nil {
		t.Fatal(err)
	}
	err := d.Power(bg, hypervisor.Ref{VMID: id}, hypervisor.ActionStart)
	wantErr(t, "locked machine", err, hypervisor.ErrLocked, apierr.ErrConflict)
	wantContains(t, "locked machine", err, "locked (backup)")
}

// TestMigrate: Proxmox's own preconditions (storages, local devices, local disks of
// a live migration); the conformance suite checks the shared ones.
func TestMigrate(t *testing.T) {
	d, f := newTest(t, pvefake.Config{Nodes: 4})
	f.AddStorage("fastnvme", false, "images", "pve1")
	running := addVM(t, f, pvefake.VMSpec{Node: "pve1", Status: "running"}) // local-lvm: a local disk
	shared := addVM(t, f, pvefake.VMSpec{Node: "pve1", Status: "running", Storage: "cephpool"})
	stopped := addVM(t, f, pvefake.VMSpec{Node: "pve1"})
	pinned := addVM(t, f, pvefake.VMSpec{Node: "pve1", Storage: "fastnvme"})
	gpu := addVM(t, f, pvefake.VMSpec{Node: "pve1", Config: map[string]string{"hostpci0": "0000:01:00.0"}})
	stranded := addVM(t, f, pvefake.VMSpec{Node: "pve4"})
	if err := f.SetNodeOnline("pve4", false); err != nil {
		t.Fatal(err)
	}

	f1 := func(name string, vmid int, target string, online bool, wantNode string, targets ...error) {
		t.Helper()
		m, err := d.Migrate(bg, hypervisor.Ref{VMID: vmid}, target, online)
		wantErr(t, name, err, targets...)
		if wantNode == "" {
			return
		}
		if _, _, _, ok := f.VM(vmid); !ok {
			t.Fatalf("%s: machine vanished", name)
		}
		if got, _, _, _ := f.VM(vmid); got != wantNode {
			t.Errorf("%s: got node %s; want %s", name, got, wantNode)
		}
		if err == nil && m.Node != wantNode {
			t.Errorf("%s: returned machine on %s; want %s", name, m.Node, wantNode)
		}
	}
	f1("offline target", running, "pve4", true, "pve1", hypervisor.ErrNodeOffline, apierr.ErrInvalidState)
	f1("storage missing on target", pinned, "pve2", false, "pve1", apierr.ErrInvalidRequest)
	if err := f.SetVMStatus(pinned, "running"); err != nil {
		t.Fatal(err)
	}
	f1("storage missing on target, running", pinned, "pve2", true, "pve1", apierr.ErrInvalidRequest)
	f1("local devices", gpu, "pve2", false, "pve1", hypervisor.ErrWrongState)
	// The fake refuses a live migration of local disks without with-local-disks=1 and
	// of a running VM without online=1, so success proves the driver sent both.
	f1("running with local disk, online", running, "pve2", true, "pve2")
	f1("running on shared storage, online", shared, "pve3", true, "pve3")
	f1("stopped, offline migrate", stopped, "pve3", false, "pve3")
	f1("from an offline node", stranded, "pve1", false, "pve4", hypervisor.ErrNodeOffline)
	if st := fakeStatus(t, f, running); st != "running" {
		t.Errorf("after live migration: got %s; want running", st)
	}
}

// TestConfigure: what Proxmox's config holds (cores as 1 socket × cores, DNS
// names) and that no change writes nothing; the conformance suite checks the rest.
func TestConfigure(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{Name: "a", Cores: 2, MemoryMB: 2048, Config: map[string]string{"sockets": "2"}})
	ref := hypervisor.Ref{VMID: id}
	got, err := d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(8)})
	wantErr(t, "configure cores", err)
	if cfg := fakeConfig(t, f, id); got.CPUCores != 8 || cfg["cores"] != "8" || cfg["sockets"] != "1" {
		t.Errorf("configure cores: got %d cores, cores=%s sockets=%s at Proxmox; want 8, 8 and 1", got.CPUCores, cfg["cores"], cfg["sockets"])
	}
	_, err = d.Configure(bg, ref, hypervisor.ConfigChange{Name: new("under_score")})
	wantErr(t, "a name that is no DNS name", err, apierr.ErrInvalidRequest)
	// No change, no write.
	f.ResetRequests()
	if _, err := d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(8)}); err != nil {
		t.Fatal(err)
	}
	if n := f.Count("POST", "/nodes/{node}/qemu/{vmid}/config"); n != 0 {
		t.Errorf("unchanged config: got %d config writes; want 0", n)
	}
}

// TestConfigureDigestConflict: someone edits the VM on Proxmox between the driver's
// read and its write. qemu-server checks the digest inside the config task, which then
// fails with "detected modified configuration"; the driver reads again and retries
// the read-modify-write a bounded number of times, then fails with 409 conflict.
func TestConfigureDigestConflict(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{})
	ref := hypervisor.Ref{VMID: id}
	const post = "/nodes/{node}/qemu/{vmid}/config"
	touch := func() { f.TouchConfig(id) }

	f.Inject(pvefake.Fault{Method: "POST", Path: post, Hook: touch, Times: 1})
	f.ResetRequests()
	got, err := d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(3)})
	wantErr(t, "one concurrent edit", err)
	if got.CPUCores != 3 || fakeConfig(t, f, id)["cores"] != "3" {
		t.Errorf("after one concurrent edit: got %d cores (Proxmox %s); want 3", got.CPUCores, fakeConfig(t, f, id)["cores"])
	}
	if n := f.Count("POST", post); n != 2 {
		t.Errorf("one concurrent edit: got %d config writes; want 2 (the collision and the retry)", n)
	}

	remove := f.Inject(pvefake.Fault{Method: "POST", Path: post, Hook: touch})
	f.ResetRequests()
	_, err = d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(5)})
	wantErr(t, "edits on every attempt", err, apierr.ErrConflict)
	wantContains(t, "edits on every attempt", err, "changed on Proxmox", "detected modified configuration")
	if n := f.Count("POST", post); n != modifiedAttempts {
		t.Errorf("edits on every attempt: got %d config writes; want %d", n, modifiedAttempts)
	}
	remove()
	if c := fakeConfig(t, f, id)["cores"]; c != "3" {
		t.Errorf("a colliding write changed cores to %s", c)
	}

	// The same for the synchronous firewall list: a collision is read again.
	f.Inject(pvefake.Fault{Method: "POST", Path: "/nodes/{node}/qemu/{vmid}/firewall/rules", Hook: func() { f.TouchFirewall(id) }, Times: 1})
	if err := f.SetFirewallRules(id, []map[string]string{{"type": "in", "action": "DROP", "enable": "1"}}); err != nil {
		t.Fatal(err)
	}
	rule := hypervisor.FirewallRule{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Enabled: true}
	wantErr(t, "firewall collision", d.SetFirewall(bg, ref, []hypervisor.FirewallRule{rule, rule}))
	if got := f.FirewallRules(id); len(got) != 2 || got[0]["dport"] != "22" || got[1]["dport"] != "22" {
		t.Errorf("after a firewall collision: got %v; want the two ssh rules", got)
	}
}

// TestSetNetwork: a change keeps what vmplane does not manage in Proxmox's netN
// string (model, MAC, mtu, queues); the conformance suite checks the change.
func TestSetNetwork(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{Config: map[string]string{
		"net0":      "virtio=BC:24:11:00:00:01,bridge=vmbr0,mtu=1450,queues=4",
		"ipconfig0": "ip=10.1.2.3/24",
	}})
	ref := hypervisor.Ref{VMID: id}
	got, err := d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", Bridge: new("vmbr1"), VLAN: new(42), RateMbps: new(100), Firewall: new(true)}})
	wantErr(t, "set net0", err)
	want := hypervisor.Interface{ID: "net0", MAC: "BC:24:11:00:00:01", Bridge: "vmbr1", VLAN: 42, RateMbps: 100, Firewall: true, IPAddresses: []string{"10.1.2.3"}}
	if len(got.Interfaces) != 1 || !reflect.DeepEqual(got.Interfaces[0], want) {
		t.Errorf("set net0: got %+v; want %+v", got.Interfaces, want)
	}
	// Model, MAC and options vmplane does not manage stay as they were.
	if raw := fakeConfig(t, f, id)["net0"]; raw != "virtio=BC:24:11:00:00:01,bridge=vmbr1,mtu=1450,queues=4,tag=42,rate=12.5,firewall=1" {
		t.Errorf("net0 at Proxmox: got %q", raw)
	}
	// All or nothing at Proxmox too: a known and an unknown interface write nothing.
	before := fakeConfig(t, f, id)["net0"]
	_, err = d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(7)}, {ID: "net5", VLAN: new(7)}})
	wantErr(t, "unknown interface", err, hypervisor.ErrInterfaceNotFound, apierr.ErrInvalidRequest)
	if after := fakeConfig(t, f, id)["net0"]; after != before {
		t.Errorf("after a rejected change: got %q; want %q", after, before)
	}
}

// TestDisks: the volumes Proxmox allocates, its storages, and that a resize is
// sent only when the disk grows; the conformance suite checks the disks themselves.
func TestDisks(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{DiskGB: 20})
	ref := hypervisor.Ref{VMID: id}
	_, err := d.AddDisk(bg, ref, 50, "")
	wantErr(t, "add disk", err)
	if _, err := d.AddDisk(bg, ref, 5, "cephpool"); err != nil {
		t.Fatal(err)
	}
	if raw := fakeConfig(t, f, id)["scsi1"]; !strings.HasPrefix(raw, "local-lvm:vm-") || !strings.HasSuffix(raw, "size=50G") {
		t.Errorf("scsi1 at Proxmox: got %q; want an allocated 50G volume", raw)
	}
	_, err = d.AddDisk(bg, ref, 1, "nosuch")
	wantErr(t, "unknown storage", err, apierr.ErrInvalidRequest)

	f1 := func(name, disk string, size, wantSize, wantPUTs int, targets ...error) {
		t.Helper()
		f.ResetRequests()
		_, err := d.ResizeDisk(bg, ref, disk, size)
		wantErr(t, name, err, targets...)
		m := machineOf(t, d, ref.VMID)
		for _, dk := range m.Disks {
			if dk.ID == disk && dk.SizeGB != wantSize {
				t.Errorf("%s: got %s at %d GB; want %d GB", name, disk, dk.SizeGB, wantSize)
			}
		}
		if n := f.Count("PUT", "/nodes/{node}/qemu/{vmid}/resize"); n != wantPUTs {
			t.Errorf("%s: Proxmox saw %d resizes; want %d", name, n, wantPUTs)
		}
	}
	f1("grow", "scsi0", 30, 30, 1)
	f1("same size", "scsi0", 30, 30, 0)
	f1("shrink", "scsi0", 29, 30, 0, hypervisor.ErrDiskShrink, apierr.ErrInvalidRequest)
	f1("grow added", "scsi2", 6, 6, 1)
	f1("unknown disk", "scsi9", 100, 0, 0, hypervisor.ErrDiskNotFound, apierr.ErrInvalidRequest)
}

func TestDeletedBehindOurBack(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	keep := addVM(t, f, pvefake.VMSpec{})
	gone := addVM(t, f, pvefake.VMSpec{Status: "running"})
	f.RemoveVM(gone)
	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Machines) != 1 || inv.Machines[0].VMID != keep {
		t.Errorf("inventory: got %d machines; want only %d", len(inv.Machines), keep)
	}
	_, err = d.Machine(bg, hypervisor.Ref{VMID: gone, Node: "pve1"})
	wantErr(t, "Machine", err, hypervisor.ErrMachineNotFound, apierr.ErrNotFound)
	wantErr(t, "Power", d.Power(bg, hypervisor.Ref{VMID: gone}, hypervisor.ActionStop), hypervisor.ErrMachineNotFound)
	wantErr(t, "Destroy", d.Destroy(bg, hypervisor.Ref{VMID: gone}), hypervisor.ErrMachineNotFound)
}

// The inventory carries the running machines' network counters from the resource
// list it reads anyway; a stopped machine has none.
func TestInventoryTraffic(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	up := addVM(t, f, pvefake.VMSpec{Node: "pve1", Status: "running"})
	down := addVM(t, f, pvefake.VMSpec{Node: "pve1", Status: "stopped"})
	inv, err := d.Inventory(bg)
	if err != nil {
		t.Fatalf("Inventory: %v", err)
	}
	if got, want := inv.Traffic[up], (hypervisor.TrafficCounters{In: 123456, Out: 654321}); got != want {
		t.Errorf("running machine's counters: got %+v; want %+v (the fake's netin/netout)", got, want)
	}
	if c, ok := inv.Traffic[down]; ok {
		t.Errorf("stopped machine has counters %+v; want none", c)
	}
}
