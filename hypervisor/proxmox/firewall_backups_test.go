package proxmox

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// TestSetFirewall: how our rules become Proxmox's fields, and that the push turns
// the firewall on in the options and on every netN; the conformance suite checks
// the rules read back and the refusals.
func TestSetFirewall(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{Config: map[string]string{"net1": "virtio=BC:24:11:00:00:09,bridge=vmbr1,firewall=0"}})
	ref := hypervisor.Ref{VMID: id}
	// An operator's rules are there before: they are replaced.
	if err := d.SetFirewall(bg, ref, []hypervisor.FirewallRule{
		{Direction: "in", Action: "drop", Protocol: "any", Enabled: true, Comment: "old 1"},
		{Direction: "out", Action: "reject", Protocol: "udp", Port: "53", Enabled: false, Comment: "old 2"},
	}); err != nil {
		t.Fatal(err)
	}
	rules := []hypervisor.FirewallRule{
		{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Source: "10.0.0.0/8", Enabled: true, Comment: "ssh"},
		{Direction: "in", Action: "accept", Protocol: "tcp", Port: "80,443", Enabled: true},
		{Direction: "out", Action: "reject", Protocol: "udp", Port: "1000:2000", Destination: "192.0.2.0/24", Enabled: false},
		{Direction: "in", Action: "drop", Protocol: "any", Enabled: true, Comment: "default deny"},
	}
	wantErr(t, "push", d.SetFirewall(bg, ref, rules))
	want := []map[string]string{
		{"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "22", "source": "10.0.0.0/8", "enable": "1", "comment": "ssh"},
		{"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "80,443", "enable": "1"},
		{"type": "out", "action": "REJECT", "proto": "udp", "dport": "1000:2000", "dest": "192.0.2.0/24", "enable": "0"},
		{"type": "in", "action": "DROP", "enable": "1", "comment": "default deny"},
	}
	if got := f.FirewallRules(id); !reflect.DeepEqual(got, want) {
		t.Errorf("rules at Proxmox, by position:\n got %v\nwant %v", got, want)
	}
	if got := f.FirewallOptions(id)["enable"]; got != "1" {
		t.Errorf("firewall option enable: got %q; want 1", got)
	}
	cfg := fakeConfig(t, f, id)
	for _, k := range []string{"net0", "net1"} {
		if !strings.Contains(cfg[k], "firewall=1") || strings.Contains(cfg[k], "firewall=0") {
			t.Errorf("%s: got %q; want firewall=1", k, cfg[k])
		}
	}
	// A refused rule set sends nothing.
	f.ResetRequests()
	err := d.SetFirewall(bg, ref, []hypervisor.FirewallRule{{Direction: "in", Action: "accept", Protocol: "icmp", Port: "22"}})
	wantErr(t, "port on icmp", err, hypervisor.ErrInvalidRule, apierr.ErrInvalidRequest)
	if n := len(f.Requests()); n != 0 {
		t.Errorf("a refused rule set: Proxmox saw %d requests; want none", n)
	}
}

// TestBackups: Proxmox's archive names and volumes; the conformance suite checks
// backups, restores and their refusals.
func TestBackups(t *testing.T) {
	now := time.Date(2025, 3, 12, 10, 30, 15, 0, time.UTC)
	clock := hypervisortest.NewClock(now)
	d, f := newTest(t, pvefake.Config{Now: clock.Now})
	m := create(t, d, hypervisor.CreateSpec{Name: "db", Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}

	b1, err := d.Backup(bg, ref, "")
	wantErr(t, "backup", err)
	if b1.ID != "local:backup/vzdump-qemu-100-2025_03_12-10_30_15.vma.zst" || b1.Storage != "local" || b1.Node != "pve1" || !b1.CreatedAt.Equal(now) {
		t.Errorf("backup: got %+v; want the vzdump archive of 10:30:15 on pve1's local storage", b1)
	}
	clock.Advance(time.Hour)
	b2, err := d.Backup(bg, ref, hypervisor.BackupStop)
	wantErr(t, "backup in stop mode", err)
	if got := f.Backups(); len(got) != 2 {
		t.Errorf("archives at Proxmox: got %v; want 2", got)
	}
	wantErr(t, "delete", d.DeleteBackup(bg, ref, b1.ID))
	if got := f.Backups(); len(got) != 1 || !strings.Contains(got[0], "2025_03_12-11_30_15") {
		t.Errorf("archives at Proxmox after a delete: got %v; want only %s", got, b2.ID)
	}
}

func TestBackupsFollowMigration(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{Node: "pve1", Storage: "cephpool"})
	ref := hypervisor.Ref{VMID: id}
	b, err := d.Backup(bg, ref, hypervisor.BackupSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Migrate(bg, ref, "pve2", false); err != nil {
		t.Fatal(err)
	}
	// The archive stays on pve1's local storage and is still listed.
	list, err := d.Backups(bg, ref)
	if err != nil || len(list) != 1 || list[0].Node != "pve1" {
		t.Fatalf("after migration: got %+v, %v; want the backup on pve1", list, err)
	}
	// pve2 cannot read pve1's local storage: refused before the machine is touched.
	_, err = d.RestoreBackup(bg, ref, b.ID)
	wantErr(t, "restore across nodes on local storage", err, hypervisor.ErrWrongState)
	wantErr(t, "delete on the other node", d.DeleteBackup(bg, ref, b.ID))
}

// isWrite reports whether a request changed something at Proxmox.
func isWrite(r pvefake.Request) bool { return r.Method != "GET" }

// TestSetFirewallConverges: a push makes Proxmox's list exactly ours, whatever it held
// before and however often an earlier push failed part-way, and rewrites nothing when
// the lists are already equal.
func TestSetFirewallConverges(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{})
	ref := hypervisor.Ref{VMID: id}
	rules := []hypervisor.FirewallRule{
		{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Source: "10.0.0.0/8", Enabled: true, Comment: "ssh"},
		{Direction: "in", Action: "accept", Protocol: "tcp", Port: "443", Enabled: true},
		{Direction: "in", Action: "drop", Protocol: "any", Enabled: true, Comment: "default deny"},
	}
	want := []map[string]string{
		{"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "22", "source": "10.0.0.0/8", "enable": "1", "comment": "ssh"},
		{"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "443", "enable": "1"},
		{"type": "in", "action": "DROP", "enable": "1", "comment": "default deny"},
	}
	const list = "/nodes/{node}/qemu/{vmid}/firewall/rules"

	// Proxmox refuses the second rule written, on every push: retries must not pile
	// the rules that did go in on top of each other.
	remove := f.Inject(pvefake.Fault{Method: "POST", Path: list, After: 1, Status: 500, Message: "unable to write firewall config"})
	for i := 0; i < 3; i++ {
		if err := d.SetFirewall(bg, ref, rules); err == nil {
			t.Fatalf("push %d: got no error with Proxmox refusing a rule", i)
		}
	}
	if got := f.FirewallRules(id); len(got) > len(rules) {
		t.Errorf("after 3 pushes that failed halfway: got %d rules at Proxmox; want at most %d", len(got), len(rules))
	}
	remove()
	wantErr(t, "push after the failures", d.SetFirewall(bg, ref, rules))
	if got := f.FirewallRules(id); !reflect.DeepEqual(got, want) {
		t.Errorf("after a push that failed halfway and one that did not:\n got %v\nwant %v", got, want)
	}

	// The same rule set pushed again writes nothing.
	f.ResetRequests()
	wantErr(t, "push again", d.SetFirewall(bg, ref, rules))
	for _, r := range f.Requests() {
		if isWrite(r) {
			t.Errorf("a push of the rules Proxmox holds wrote %s %s", r.Method, r.Path)
		}
	}

	// Rules twice (what appending retries left before), in another order, with an
	// operator's rule among them: the push converges to ours.
	operators := map[string]string{"type": "out", "action": "ACCEPT", "proto": "udp", "dport": "53", "enable": "1"}
	messy := append([]map[string]string{want[2], want[0], operators, want[1]}, want...)
	if err := f.SetFirewallRules(id, messy); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "push over a messy list", d.SetFirewall(bg, ref, rules))
	if got := f.FirewallRules(id); !reflect.DeepEqual(got, want) {
		t.Errorf("after a push over a messy list:\n got %v\nwant %v", got, want)
	}
}

// TestReinstallKeepsExactlyTheRules: qemu-server's clone copies the template's own
// firewall; a reinstall must leave the machine's rules and options, not the
// template's on top of them.
func TestReinstallKeepsExactlyTheRules(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	m := create(t, d, hypervisor.CreateSpec{Name: "web", TemplateID: "tpl-9001"})
	ref := hypervisor.Ref{VMID: m.VMID}
	rules := []hypervisor.FirewallRule{
		{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Enabled: true, Comment: "ssh"},
		{Direction: "in", Action: "drop", Protocol: "any", Enabled: true},
	}
	wantErr(t, "push", d.SetFirewall(bg, ref, rules))
	before := f.FirewallRules(m.VMID)
	if err := f.SetFirewallRules(9000, []map[string]string{
		{"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "8080", "enable": "1", "comment": "template's own"},
		{"type": "out", "action": "DROP", "enable": "1"},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Reinstall(bg, ref, hypervisor.ReinstallSpec{TemplateID: "tpl-9000", Password: "new-root-pw"}); err != nil {
		t.Fatal(err)
	}
	if got := f.FirewallRules(m.VMID); !reflect.DeepEqual(got, before) {
		t.Errorf("rules after reinstalling from a template with rules:\n got %v\nwant %v", got, before)
	}
	if got := f.FirewallOptions(m.VMID); got["enable"] != "1" {
		t.Errorf("firewall options after reinstall: got %v; want enable=1", got)
	}
}
