package machines

import (
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
)

// A task its member left while it ran is settled from what the hypervisor shows: a
// resize or a create whose result is all in place succeeded (the member that takes
// the machine over used to fail both, though the machine had what was asked); one
// half done, and a reboot (which leaves no trace), failed.
func TestReachedTellsResizesAndCreatesDone(t *testing.T) {
	t.Parallel()
	vm := hypervisor.Machine{VMID: 101, Name: "web", State: hypervisor.StateRunning, CPUCores: 2, MemoryMB: 2048,
		Disks: []hypervisor.Disk{{ID: "scsi0", SizeGB: 30}}}
	resize := func(cores, mem *int, grow int) Operation {
		op := Operation{Type: OpResize, DiskGrowGB: grow}
		if cores != nil || mem != nil {
			op.Config = &hypervisor.ConfigChange{CPUCores: cores, MemoryMB: mem}
		}
		return op
	}
	create := func(c hypervisor.CreateSpec) Operation { return Operation{Type: OpCreate, Create: &c} }
	stopped := vm
	stopped.State = hypervisor.StateStopped
	for name, c := range map[string]struct {
		hm         hypervisor.Machine
		op         Operation
		diskBefore int
		want       bool
	}{
		"resize in place":              {vm, resize(kit.Ptr(2), kit.Ptr(2048), 10), 20, true},
		"resize of cores only":         {vm, resize(kit.Ptr(2), nil, 0), 30, true},
		"resize with the disk not yet": {vm, resize(kit.Ptr(2), nil, 10), 30, false},
		"resize with other cores":      {vm, resize(kit.Ptr(4), nil, 0), 30, false},
		"create in place":              {vm, create(hypervisor.CreateSpec{Name: "web", CPUCores: 2, MemoryMB: 2048, DiskGB: 30, Start: true}), 0, true},
		"create not started yet":       {stopped, create(hypervisor.CreateSpec{Name: "web", CPUCores: 2, MemoryMB: 2048, DiskGB: 30, Start: true}), 0, false},
		"create not grown yet":         {vm, create(hypervisor.CreateSpec{Name: "web", CPUCores: 2, MemoryMB: 2048, DiskGB: 40, Start: true}), 0, false},
		"create not configured yet":    {vm, create(hypervisor.CreateSpec{Name: "web", CPUCores: 4, MemoryMB: 2048, Start: true}), 0, false},
		"create with no machine":       {hypervisor.Machine{}, create(hypervisor.CreateSpec{Name: "web"}), 0, false},
		"reboot":                       {vm, Operation{Type: OpPower, Action: hypervisor.ActionReboot}, 0, false},
		"start":                        {vm, Operation{Type: OpPower, Action: hypervisor.ActionStart}, 0, true},
	} {
		if got := reached(c.hm, c.op, c.diskBefore); got != c.want {
			t.Errorf("%s: reached = %v; want %v", name, got, c.want)
		}
	}
}
