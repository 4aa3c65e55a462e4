package proxmox

import (
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// TestDriverCallsMatchSchema runs every driver operation against the fake, which
// checks each call's parameters against the Proxmox API schema subset kept in pvefake
// (apischema.json) and refuses what Proxmox would refuse, and checks each of its own
// answers against the subset's return schemas. Every call the driver makes must be
// one the subset describes, with a return schema; none may be refused by the schema,
// and no answer the driver was given may break it.
func TestDriverCallsMatchSchema(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	f.ResetRequests()
	addrs := []hypervisor.Address{{Address: "192.0.2.10", Prefix: 24, Gateway: "192.0.2.1", Version: 4}}
	m := create(t, d, hypervisor.CreateSpec{Name: "web", Password: "s3cret-pass", SSHKeys: []string{"ssh-ed25519 AAAA test"}, DiskGB: 20, Start: true, Addresses: addrs})
	ref := hypervisor.Ref{VMID: m.VMID}
	step := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	for _, a := range []hypervisor.PowerAction{hypervisor.ActionSuspend, hypervisor.ActionResume, hypervisor.ActionReboot, hypervisor.ActionShutdown, hypervisor.ActionStart} {
		step(string(a), d.Power(bg, ref, a))
	}
	_, err := d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(4), MemoryMB: new(4096), Name: new("web-2")})
	step("configure", err)
	_, err = d.SetNetwork(bg, ref, []hypervisor.InterfaceChange{{ID: "net0", VLAN: new(7), RateMbps: new(80), Firewall: new(true)}})
	step("network", err)
	disk, err := d.AddDisk(bg, ref, 5, "")
	step("add disk", err)
	_, err = d.ResizeDisk(bg, ref, disk.ID, 8)
	step("resize", err)
	step("firewall", d.SetFirewall(bg, ref, []hypervisor.FirewallRule{
		{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Source: "10.0.0.0/8", Enabled: true, Comment: "ssh"},
		{Direction: "out", Action: "drop", Protocol: "ipv6-icmp", Destination: "2001:db8::/32", Enabled: true},
	}))
	step("firewall reorder", d.SetFirewall(bg, ref, []hypervisor.FirewallRule{
		{Direction: "out", Action: "drop", Protocol: "ipv6-icmp", Destination: "2001:db8::/32", Enabled: true},
		{Direction: "in", Action: "accept", Protocol: "tcp", Port: "2222", Enabled: false},
	}))
	step("addresses", d.SetAddresses(bg, ref, append(addrs,
		hypervisor.Address{Address: "192.0.2.11", Prefix: 24, Gateway: "192.0.2.1", Version: 4},
		hypervisor.Address{Address: "2001:db8:0:5::", Prefix: 64, Gateway: "2001:db8::1", Version: 6})))
	step("fewer addresses", d.SetAddresses(bg, ref, addrs))
	for _, q := range []hypervisor.UsageQuery{
		{Scope: hypervisor.ScopeMachine, Ref: ref, Timeframe: hypervisor.TimeframeDay},
		{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: "pve1"}, Timeframe: hypervisor.TimeframeWeek},
	} {
		_, err := d.Usage(bg, q)
		step("usage", err)
	}
	b, err := d.Backup(bg, ref, hypervisor.BackupSnapshot)
	step("backup", err)
	_, err = d.Backups(bg, ref)
	step("backups", err)
	_, err = d.RestoreBackup(bg, ref, b.ID)
	step("restore", err)
	cp, err := d.RestoreNew(bg, ref, b.ID, hypervisor.RestoreSpec{Name: "web-copy", Addresses: []hypervisor.Address{{Address: "192.0.2.12", Prefix: 24, Version: 4}}})
	step("restore new", err)
	step("destroy the copy", d.Destroy(bg, hypervisor.Ref{VMID: cp.VMID}))
	step("delete backup", d.DeleteBackup(bg, ref, b.ID))
	_, err = d.CreateSnapshot(bg, ref, hypervisor.SnapshotSpec{Name: "before", Description: "a note", IncludeMemory: true})
	step("snapshot", err)
	_, err = d.Snapshots(bg, ref)
	step("snapshots", err)
	_, err = d.RollbackSnapshot(bg, ref, "before")
	step("rollback", err)
	step("delete snapshot", d.DeleteSnapshot(bg, ref, "before"))
	_, err = d.Migrate(bg, ref, "pve2", true)
	step("migrate", err)
	_, err = d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-9000", Password: "n3w-pass"})
	step("reinstall", err)
	con, err := d.Console(bg, ref)
	step("console", err)
	con.Close()
	_, err = d.Inventory(bg)
	step("inventory", err)
	_, err = d.Machine(bg, ref)
	step("machine", err)
	step("ping", d.Ping(bg))
	step("wait idle", d.WaitIdle(bg, ref))
	step("destroy", d.Destroy(bg, ref))

	// Every call must be in the checked subset with a return schema, its parameters
	// accepted, and the fake's answer valid against that return schema (the fake
	// answers 500 and records why when it is not).
	checked := map[string]bool{}
	for _, r := range f.Requests() {
		switch {
		case r.Schema == "":
			t.Errorf("%s %s (%s): not in the checked schema subset", r.Method, r.Path, r.Route)
			continue
		case !pvefake.ReturnSchema(r.Schema):
			t.Errorf("%s %s: %s has no return schema", r.Method, r.Path, r.Schema)
		}
		checked[r.Schema] = true
		if r.Status == 400 {
			t.Errorf("%s %s: refused by the API schema", r.Method, r.Path)
		}
		if r.AnswerErrors != nil {
			t.Errorf("%s %s: the fake's answer breaks the return schema: %v", r.Method, r.Path, r.AnswerErrors)
		}
	}
	if len(checked) < 20 {
		t.Errorf("got %d schema-checked calls: %v; want the driver's whole repertoire", len(checked), checked)
	}
}
