package machines

import (
	"slices"
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
)

// A summary of a machine whose node is down (all Proxmox says of it then) updates
// its state, node, cores and memory, and leaves what it does not know as the record
// had it: a task settled after a restart while the node was down once wrote the
// summary's empty disks, interfaces, media and boot order over the record.
func TestSummaryKeepsWhatItDoesNotKnow(t *testing.T) {
	m := Machine{
		VMID: 101, Name: "web", Node: "pve1", Status: "running", CPUCores: 2, MemoryMB: 2048,
		Disks:      []hypervisor.Disk{{ID: "scsi0", Storage: "local-lvm", SizeGB: 20}, {ID: "scsi1", Storage: "local-lvm", SizeGB: 30}},
		DiskGB:     50,
		Interfaces: []hypervisor.Interface{{ID: "net0", MAC: "BC:24:11:00:00:01", Bridge: "vmbr0"}},
		Media:      &MountedISO{ISOID: "iso-1", Name: "rescue", File: "rescue.iso"},
		BootOrder:  []string{"cdrom", "disk", "net"},
		Display:    true,
	}
	applyObserved(&m, hypervisor.Machine{VMID: 101, Name: "web", Node: "pve1", State: hypervisor.StateStopped,
		CPUCores: 4, MemoryMB: 4096, Disks: []hypervisor.Disk{{ID: "scsi0", SizeGB: 50}}, Interfaces: []hypervisor.Interface{},
		Headless: true, Summary: true})
	if m.Status != "stopped" || m.CPUCores != 4 || m.MemoryMB != 4096 {
		t.Errorf("after a summary: status %s, %d cores, %d MB; want stopped, 4, 4096", m.Status, m.CPUCores, m.MemoryMB)
	}
	if len(m.Disks) != 2 || m.Disks[1].Storage != "local-lvm" || m.DiskGB != 50 || len(m.Interfaces) != 1 ||
		m.Media == nil || m.Media.ISOID != "iso-1" || !slices.Equal(m.BootOrder, []string{"cdrom", "disk", "net"}) || !m.Display {
		t.Errorf("after a summary: %+v; want the disks, interfaces, media, boot order and display kept", m)
	}

	applyObserved(&m, hypervisor.Machine{VMID: 101, Name: "web", Node: "pve1", State: hypervisor.StateRunning,
		CPUCores: 4, MemoryMB: 4096, Disks: []hypervisor.Disk{{ID: "scsi0", Storage: "local-lvm", SizeGB: 50}},
		Interfaces: []hypervisor.Interface{{ID: "net0", MAC: "BC:24:11:00:00:01", Bridge: "vmbr0"}}})
	if len(m.Disks) != 1 || m.DiskGB != 50 || m.Media != nil || !slices.Equal(m.BootOrder, hypervisor.DefaultBootOrder) {
		t.Errorf("after a full view: %+v; want its one disk, no media, the default boot order", m)
	}
}
