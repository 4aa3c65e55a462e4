package world

import (
	"encoding/binary"
	"reflect"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// richMachine is a record with every field set, nil and empty lists apart.
func richMachine() *Machine {
	rules := []hypervisor.FirewallRule{{Direction: "in", Action: "accept", Protocol: "tcp", Port: "22", Enabled: true}}
	m := hypervisor.Machine{
		VMID: 4242, Name: "web-1", Node: "pve2", Location: "eu", State: hypervisor.StateRunning,
		CPUCores: 4, MemoryMB: 8192,
		Disks: []hypervisor.Disk{{ID: "scsi0", Storage: "local-lvm", SizeGB: 32}, {ID: "scsi1", Storage: "ceph", SizeGB: 100}},
		Interfaces: []hypervisor.Interface{
			{ID: "net0", MAC: "BC:24:11:00:00:01", Bridge: "vmbr0", VLAN: 12, RateMbps: 100, Firewall: true, IPAddresses: []string{"10.0.0.5", "fd00::5/64"}},
			{ID: "net1", MAC: "BC:24:11:00:00:02", Bridge: "vmbr1", IPAddresses: []string{}},
			{ID: "net2", MAC: "BC:24:11:00:00:03", Bridge: "vmbr1"},
		},
		TemplateID: "ubuntu-24.04", Media: "debian.iso", BootOrder: []string{"cdrom", "disk"},
		Headless: true, Summary: true, Nameservers: []string{"1.1.1.1", "9.9.9.9"},
	}
	snapCfg := m
	snapCfg.MemoryMB = 4096
	return &Machine{
		Machine:   m,
		CreatedAt: time.Date(2025, 3, 4, 5, 6, 7, 891011, time.UTC),
		History:   []Change{{At: 1e18, State: hypervisor.StateStopped}, {At: 1e18 + 5, State: hypervisor.StateRunning}, {At: 1e18 - 7, State: hypervisor.StateStopped}},
		Firewall:  &rules,
		Snapshots: []Snapshot{{Snapshot: hypervisor.Snapshot{Name: "before", CreatedAt: time.Date(2025, 3, 5, 0, 0, 0, 0, time.UTC)}, Config: snapCfg}},
		Parent:    "before",
	}
}

// The compact form reads back exactly what the JSON form does, for a record with every
// field set and for the smallest one.
func TestCompactRoundTrip(t *testing.T) {
	bare := &Machine{Machine: hypervisor.Machine{VMID: 100, Node: "pve1"}}
	emptyLists := &Machine{Machine: hypervisor.Machine{VMID: 101, Node: "pve1", Disks: []hypervisor.Disk{}, Interfaces: []hypervisor.Interface{}}, History: []Change{}, Firewall: &[]hypervisor.FirewallRule{}}
	for _, rec := range []*Machine{richMachine(), bare, emptyLists} {
		var viaJSON, viaCompact Machine
		jval, err := persistence.Encode(MachineVersion, *rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeMachine(jval, &viaJSON, "json"); err != nil {
			t.Fatal(err)
		}
		cval, err := encodeCompact(rec)
		if err != nil {
			t.Fatal(err)
		}
		if v := binary.BigEndian.Uint16(cval); v != CompactMachineVersion {
			t.Fatalf("compact record of version %d", v)
		}
		if err := decodeMachine(cval, &viaCompact, "compact"); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(viaCompact, viaJSON) {
			t.Errorf("vmid %d:\ncompact %+v\njson    %+v", rec.Machine.VMID, viaCompact, viaJSON)
		}
	}
	typical := richMachine()
	typical.Firewall, typical.Snapshots, typical.Parent = nil, nil, ""
	jval, _ := persistence.Encode(MachineVersion, *typical)
	cval, _ := encodeCompact(typical)
	if len(cval) >= len(jval)/2 {
		t.Errorf("compact record of %d bytes against JSON's %d; want less than half", len(cval), len(jval))
	}
}

// A field added to hypervisor.Machine must be added to the compact form too, or it
// would be dropped on every write.
func TestCompactCoversMachine(t *testing.T) {
	if n := reflect.TypeFor[hypervisor.Machine]().NumField(); n != machineFields {
		t.Fatalf("hypervisor.Machine has %d fields, the compact form knows %d: add the new ones to appendCompact and decodeCompact, then machineFields", n, machineFields)
	}
}

// A cut or padded compact record is a corrupt world, not a panic or a half record.
func TestCompactCorrupt(t *testing.T) {
	val, err := encodeCompact(richMachine())
	if err != nil {
		t.Fatal(err)
	}
	for n := 2; n < len(val); n++ {
		var rec Machine
		if err := decodeMachine(val[:n], &rec, "cut"); err == nil {
			t.Fatalf("a record cut at %d of %d bytes read without error", n, len(val))
		}
	}
	var rec Machine
	if err := decodeMachine(append(val, 0), &rec, "padded"); err == nil {
		t.Error("a record with a trailing byte read without error")
	}
	newer := append([]byte{0, CompactMachineVersion + 1}, val[2:]...)
	if err := decodeMachine(newer, &rec, "newer"); err == nil {
		t.Error("a record of a newer version read without error")
	}
}

// Names many machines share come back as one string, not one per record.
func TestCompactInterns(t *testing.T) {
	val, _ := encodeCompact(richMachine())
	var a, b Machine
	if err := decodeMachine(val, &a, "a"); err != nil {
		t.Fatal(err)
	}
	if err := decodeMachine(val, &b, "b"); err != nil {
		t.Fatal(err)
	}
	if a.Machine.Node == "" || unsafeData(a.Machine.Node) != unsafeData(b.Machine.Node) || unsafeData(a.Machine.TemplateID) != unsafeData(b.Machine.TemplateID) {
		t.Error("node and template names decoded twice are two copies")
	}
	if unsafeData(a.Machine.Name) == unsafeData(b.Machine.Name) {
		t.Error("the machine's name was interned; only shared names should be")
	}
}

// BenchmarkMachineRecord encodes and decodes a typical machine's record in each form.
func BenchmarkMachineRecord(b *testing.B) {
	rec := richMachine()
	rec.Firewall, rec.Snapshots, rec.Parent = nil, nil, ""
	jval, _ := persistence.Encode(MachineVersion, *rec)
	cval, _ := encodeCompact(rec)
	b.Run("json", func(b *testing.B) {
		b.ReportMetric(float64(len(jval)), "bytes/record")
		for b.Loop() {
			v, _ := persistence.Encode(MachineVersion, *rec)
			var m Machine
			if err := decodeMachine(v, &m, "json"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compact", func(b *testing.B) {
		b.ReportMetric(float64(len(cval)), "bytes/record")
		for b.Loop() {
			v, _ := encodeCompact(rec)
			var m Machine
			if err := decodeMachine(v, &m, "compact"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
