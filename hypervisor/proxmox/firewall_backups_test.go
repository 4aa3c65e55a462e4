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
	for _, nic := range machineOf(t, d, id).Interfaces {
		if !nic.Firewall {
			t.Errorf("interface %s: got firewall off; want on", nic.ID)
		}
	}
	wantErr(t, "push empty", d.SetFirewall(bg, ref, nil))
	if got := f.FirewallRules(id); len(got) != 0 {
		t.Errorf("after an empty push: got %d rules; want 0", len(got))
	}
	f1 := func(name string, r hypervisor.FirewallRule) {
		t.Helper()
		wantErr(t, name, d.SetFirewall(bg, ref, []hypervisor.FirewallRule{r}), apierr.ErrInvalidRequest)
	}
	f1("bad direction", hypervisor.FirewallRule{Direction: "sideways", Action: "accept", Protocol: "tcp"})
	f1("bad action", hypervisor.FirewallRule{Direction: "in", Action: "allow", Protocol: "tcp"})
	f1("port without tcp/udp", hypervisor.FirewallRule{Direction: "in", Action: "accept", Protocol: "icmp", Port: "22"})
	wantErr(t, "unknown machine", d.SetFirewall(bg, hypervisor.Ref{VMID: 999}, nil), hypervisor.ErrMachineNotFound)
}

func TestBackups(t *testing.T) {
	now := time.Date(2025, 3, 12, 10, 30, 15, 0, time.UTC)
	clock := hypervisortest.NewClock(now)
	d, f := newTest(t, pvefake.Config{Now: clock.Now})
	m := create(t, d, hypervisor.CreateSpec{Name: "db", Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}

	b1, err := d.Backup(bg, ref, "")
	wantErr(t, "backup", err)
	clock.Advance(time.Hour)
	b2, err := d.Backup(bg, ref, hypervisor.BackupStop)
	wantErr(t, "backup in stop mode", err)
	if b1.ID != "local:backup/vzdump-qemu-100-2025_03_12-10_30_15.vma.zst" || b1.Mode != hypervisor.BackupSnapshot || b1.Storage != "local" || b1.Node != "pve1" || b1.SizeBytes <= 0 || !b1.CreatedAt.Equal(now) {
		t.Errorf("first backup: got %+v", b1)
	}
	if b2.Mode != hypervisor.BackupStop || !b2.CreatedAt.Equal(now.Add(time.Hour)) {
		t.Errorf("second backup: got %+v; want mode stop an hour later", b2)
	}
	list, err := d.Backups(bg, ref)
	wantErr(t, "list", err)
	if !reflect.DeepEqual(list, []hypervisor.Backup{b1, b2}) {
		t.Errorf("list: got %+v; want [%+v %+v] oldest first", list, b1, b2)
	}
	if n := len(f.Backups()); n != 2 {
		t.Errorf("archives at Proxmox: got %d; want 2", n)
	}
	_, err = d.Backup(bg, ref, "hourly")
	wantErr(t, "bad mode", err, apierr.ErrInvalidRequest)

	// Restore brings back the backed-up config; a running machine runs again after.
	if _, err := d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(6), Name: new("changed")}); err != nil {
		t.Fatal(err)
	}
	got, err := d.RestoreBackup(bg, ref, b1.ID)
	wantErr(t, "restore", err)
	if got.Name != "db" || got.CPUCores != 2 || got.State != hypervisor.StateRunning || got.Interfaces[0].MAC != m.Interfaces[0].MAC {
		t.Errorf("restore: got %+v; want db with 2 cores, running, the old MAC", got)
	}
	_, err = d.RestoreBackup(bg, ref, "local:backup/nope.vma.zst")
	wantErr(t, "restore unknown backup", err, hypervisor.ErrBackupNotFound, apierr.ErrNotFound)

	wantErr(t, "delete", d.DeleteBackup(bg, ref, b1.ID))
	wantErr(t, "delete again", d.DeleteBackup(bg, ref, b1.ID), hypervisor.ErrBackupNotFound)
	if list, _ := d.Backups(bg, ref); len(list) != 1 || list[0].ID != b2.ID {
		t.Errorf("after delete: got %+v; want only %s", list, b2.ID)
	}

	// Backups outlive their machine and bring it back, stopped.
	if err := d.Destroy(bg, ref); err != nil {
		t.Fatal(err)
	}
	if list, err := d.Backups(bg, ref); err != nil || len(list) != 1 {
		t.Errorf("backups of a destroyed machine: got %v, %v; want 1", list, err)
	}
	back, err := d.RestoreBackup(bg, ref, b2.ID)
	wantErr(t, "restore a destroyed machine", err)
	if back.VMID != m.VMID || back.Node != "pve1" || back.State != hypervisor.StateStopped || back.Name != "db" {
		t.Errorf("restored destroyed machine: got %+v; want db on pve1, stopped", back)
	}
	_, err = d.Backups(bg, hypervisor.Ref{VMID: 999})
	wantErr(t, "backups of an unknown vmid", err, hypervisor.ErrMachineNotFound)
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
