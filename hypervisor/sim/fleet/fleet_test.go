package fleet

import (
	"reflect"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
)

// A machine packs only when its compact form gives it back whole; what does not fit
// stays open.
func TestPackKeepsEveryField(t *testing.T) {
	t1 := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	base := func() *Machine {
		return &Machine{Machine: hypervisor.Machine{VMID: 123, Name: "web-1", Node: "pve2", Location: "fra",
			State: hypervisor.StateRunning, CPUCores: 2, MemoryMB: 2048, TemplateID: "debian-12", Headless: true,
			Disks:      []hypervisor.Disk{{ID: "scsi0", Storage: "local-lvm", SizeGB: 40}},
			Interfaces: []hypervisor.Interface{{ID: "net0", MAC: "BC:24:11:00:00:01", Bridge: "vmbr1", VLAN: 7, RateMbps: 100, Firewall: true, IPAddresses: []string{"192.0.2.9"}}}},
			CreatedAt: t1, History: []world.Change{{At: t1.UnixNano(), State: hypervisor.StateStopped}, {At: t1.UnixNano() + 5, State: hypervisor.StateRunning}},
			Traffic: Mark{From: 1, UpTo: 2, In: 3, Out: 4}}
	}
	for name, change := range map[string]func(m *Machine){
		"as is":           func(*Machine) {},
		"no address":      func(m *Machine) { m.Interfaces[0].IPAddresses = nil },
		"one change":      func(m *Machine) { m.History = m.History[:1] },
		"local time":      func(m *Machine) { m.CreatedAt = m.CreatedAt.Local() },
		"a negative vlan": func(m *Machine) { m.Interfaces[0].VLAN = -1 },
	} {
		m := base()
		change(m)
		f := New()
		p, ok := f.pack(m)
		if !ok {
			t.Errorf("%s: did not pack", name)
			continue
		}
		if got := f.unpack(&p); !reflect.DeepEqual(got, m) {
			t.Errorf("%s: unpacked\n%+v\nwant\n%+v", name, got, m)
		}
		if got := f.view(&p); !reflect.DeepEqual(got, m) {
			t.Errorf("%s: viewed\n%+v\nwant\n%+v", name, got, m)
		}
	}
	for name, change := range map[string]func(m *Machine){
		"two disks":         func(m *Machine) { m.Disks = append(m.Disks, hypervisor.Disk{ID: "scsi1"}) },
		"no disk":           func(m *Machine) { m.Disks = nil },
		"two interfaces":    func(m *Machine) { m.Interfaces = append(m.Interfaces, hypervisor.Interface{ID: "net1"}) },
		"two addresses":     func(m *Machine) { m.Interfaces[0].IPAddresses = append(m.Interfaces[0].IPAddresses, "192.0.2.10") },
		"empty addresses":   func(m *Machine) { m.Interfaces[0].IPAddresses = []string{} },
		"media":             func(m *Machine) { m.Media = "local:iso/x.iso" },
		"boot order":        func(m *Machine) { m.BootOrder = []string{"scsi0"} },
		"nameservers":       func(m *Machine) { m.Nameservers = []string{"192.0.2.53"} },
		"summary":           func(m *Machine) { m.Summary = true },
		"snapshots":         func(m *Machine) { m.Snapshots = []world.Snapshot{{}} },
		"parent":            func(m *Machine) { m.Parent = "before" },
		"no history":        func(m *Machine) { m.History = nil },
		"three changes":     func(m *Machine) { m.History = append(m.History, world.Change{At: 9, State: hypervisor.StateStopped}) },
		"a zone":            func(m *Machine) { m.CreatedAt = m.CreatedAt.In(time.FixedZone("x", 3600)) },
		"monotonic":         func(m *Machine) { m.CreatedAt = time.Now() },
		"vmid beyond int32": func(m *Machine) { m.VMID = 1 << 40 },
	} {
		m := base()
		change(m)
		f := New()
		if _, ok := f.pack(m); ok {
			t.Errorf("%s: packed", name)
		}
	}
	// A field added to a machine must be packed (or keep the machine open): this fails
	// until fleet.pack and fleet.fill know of it.
	for typ, fields := range map[reflect.Type]int{
		reflect.TypeFor[hypervisor.Machine]():   15,
		reflect.TypeFor[hypervisor.Disk]():      3,
		reflect.TypeFor[hypervisor.Interface](): 7,
		reflect.TypeFor[Machine]():              6,
		reflect.TypeFor[world.Change]():         2,
	} {
		if typ.NumField() != fields {
			t.Errorf("%s has %d fields; the fleet packs %d of them: teach pack and fill the new one", typ, typ.NumField(), fields)
		}
	}
}
