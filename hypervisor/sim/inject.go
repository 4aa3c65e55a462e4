package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// failRule is one injected failure: which machine (0: any), which operation ("": any),
// what to fail with, and whether it fires once or until ClearFailures.
type failRule struct {
	vmid int
	op   string
	err  error
	once bool
}

// FailNext makes the next operation op on machine vmid fail with err once; the machine
// stays as it was, as after a Proxmox task that ended in an error. vmid 0 matches any
// machine (the way to fail a Create whose vmid the sim picks) and op "" any operation.
// A nil err becomes hypervisor.ErrTaskFailed; an err that carries no *apierr.Error is
// wrapped in ErrTaskFailed, so the driver contract (every error maps to a status) holds
// while errors.Is(returned, err) still does. Operation names are the Op* constants and
// the power actions.
func (d *Driver) FailNext(vmid int, op string, err error) {
	d.addRule(failRule{vmid: vmid, op: op, err: err, once: true})
}

// FailAlways makes every matching operation fail until ClearFailures (see FailNext).
func (d *Driver) FailAlways(vmid int, op string, err error) {
	d.addRule(failRule{vmid: vmid, op: op, err: err})
}

// InjectFailure is FailNext: a one-shot failure of op on vmid.
func (d *Driver) InjectFailure(vmid int, op string, err error) { d.FailNext(vmid, op, err) }

func (d *Driver) addRule(r failRule) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failures = append(d.failures, r)
}

// ClearFailures removes every injected failure and sets the failure rate back to 0.
func (d *Driver) ClearFailures() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failures = nil
	d.failRate = 0
}

// SetFailureRate makes each changing operation fail with probability rate (0..1) with
// ErrTaskFailed. The draws come from the seeded generator, so a single-threaded test
// sees the same failures for the same seed.
func (d *Driver) SetFailureRate(rate float64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failRate = min(max(rate, 0), 1)
}

// injectedLocked returns the failure an operation must end with, if any. Console opens
// consult the rules but not the random rate: the rate models failing tasks, and opening
// a console is no task.
func (d *Driver) injectedLocked(vmid int, op string) error {
	for i, r := range d.failures {
		if (r.vmid == 0 || r.vmid == vmid) && (r.op == "" || r.op == op) {
			if r.once {
				d.failures = append(d.failures[:i:i], d.failures[i+1:]...)
			}
			return injectedError(r.err, vmid, op)
		}
	}
	if op != OpConsole && d.failRate > 0 && d.rng.Float64() < d.failRate {
		return hypervisor.NewError(hypervisor.ErrTaskFailed, "simulated random failure of %s on machine %d", op, vmid)
	}
	return nil
}

// injectedError makes an injected error honour the driver contract (see FailNext).
func injectedError(err error, vmid int, op string) error {
	failed := hypervisor.NewError(hypervisor.ErrTaskFailed, "injected failure of %s on machine %d", op, vmid)
	if err == nil {
		return failed
	}
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return err
	}
	return fmt.Errorf("%w: %w", failed, err)
}

// The hooks below change the world as the Driver methods do: durably, when the driver
// has a store (see persist.go), before they return.

// SetNodeStatus takes a node offline or brings it back. Operations on its machines and
// migrations towards it then fail with hypervisor.ErrNodeOffline, and Inventory shows it
// offline with no usage. Machines keep their recorded state, as Proxmox's cluster view
// keeps the last known one. Open consoles on the node are cut.
func (d *Driver) SetNodeStatus(nodeID string, status hypervisor.NodeStatus) error {
	if status != hypervisor.NodeOnline && status != hypervisor.NodeOffline {
		return invalid("status", "must be %s or %s", hypervisor.NodeOnline, hypervisor.NodeOffline)
	}
	return d.change(func() error {
		n := d.nodeLocked(nodeID)
		if n == nil {
			return hypervisor.NewError(hypervisor.ErrNodeNotFound, "node %q does not exist", nodeID)
		}
		if n.Status != status {
			n.Status = status
			d.touchWorldLocked()
		}
		if status == hypervisor.NodeOffline {
			d.closeNodeConsolesLocked(nodeID, "node offline")
		}
		return nil
	})
}

// SetAvailable switches the whole hypervisor on or off. While it is off every Driver
// call, Ping included, fails with hypervisor.ErrUnavailable (503); operations in flight
// fail at their end and change nothing. The test hooks keep working.
func (d *Driver) SetAvailable(ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.available.Store(ok)
}

// CrashMachine stops a running or suspended machine without being asked, as a guest
// kernel panic or an OOM kill would. It ignores the machine's lock: crashes do not wait.
func (d *Driver) CrashMachine(vmid int) error {
	return d.change(func() error {
		m, err := d.machineLocked(vmid)
		if err != nil {
			return err
		}
		if m.State == hypervisor.StateStopped {
			return hypervisor.NewError(hypervisor.ErrWrongState, "machine %d is already stopped", vmid)
		}
		d.closeConsolesLocked(vmid, "machine crashed")
		d.setStateLocked(m, hypervisor.StateStopped)
		return nil
	})
}

// RemoveMachine deletes a machine behind vmplane's back (an operator using the Proxmox
// UI), so sync can notice. Its backups stay.
func (d *Driver) RemoveMachine(vmid int) error {
	return d.change(func() error {
		if _, err := d.machineLocked(vmid); err != nil {
			return err
		}
		d.removeLocked(vmid, "machine removed")
		return nil
	})
}

// AddMachine makes a machine appear behind vmplane's back and returns it as stored.
// Zero fields get defaults: the next free vmid, the least loaded online node, the name
// "vm-<vmid>", state stopped, 1 core, 1 GiB, a 10 GB scsi0 and a net0 with a seeded MAC
// and a pool address. createdAt (zero: now) starts its usage history; a machine that is
// running is taken to have run since then.
func (d *Driver) AddMachine(hm hypervisor.Machine, createdAt time.Time) (hypervisor.Machine, error) {
	d.catchUp()
	var out hypervisor.Machine
	add := func() (int, error) {
		var err error
		out, err = d.addMachineLocked(hm, createdAt)
		return out.VMID, err
	}
	next := add // with no vmid given, another try takes the next free one
	if hm.VMID != 0 {
		next = nil
	}
	// No caller's context: bounded as the driver's own writes are.
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	if err := d.claimNew(ctx, add, next); err != nil {
		return hypervisor.Machine{}, err
	}
	return out, nil
}

func (d *Driver) addMachineLocked(hm hypervisor.Machine, createdAt time.Time) (hypervisor.Machine, error) {
	if hm.VMID == 0 {
		hm.VMID = d.nextVMIDLocked()
	} else if hm.VMID < minVMID || hm.VMID > maxVMID {
		return hypervisor.Machine{}, invalid("vmid", "must be %d..%d", minVMID, maxVMID)
	} else if d.machines.Has(hm.VMID) || d.locks[hm.VMID] != "" {
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrVMIDInUse, "vmid %d already exists", hm.VMID)
	}
	if hm.Node == "" {
		id, err := d.placeLocked("")
		if err != nil {
			return hypervisor.Machine{}, err
		}
		hm.Node = id
	} else if d.nodeLocked(hm.Node) == nil {
		return hypervisor.Machine{}, hypervisor.NewError(hypervisor.ErrNodeNotFound, "node %q does not exist", hm.Node).WithKind(apierr.ErrInvalidRequest)
	}
	switch hm.State {
	case "":
		hm.State = hypervisor.StateStopped
	case hypervisor.StateRunning, hypervisor.StateStopped, hypervisor.StateSuspended:
	default:
		return hypervisor.Machine{}, invalid("state", "unknown state %q", hm.State)
	}
	if hm.Name == "" {
		hm.Name = fmt.Sprintf("vm-%d", hm.VMID)
	}
	if hm.CPUCores <= 0 {
		hm.CPUCores = 1
	}
	if hm.MemoryMB <= 0 {
		hm.MemoryMB = 1024
	}
	if len(hm.Disks) == 0 {
		hm.Disks = []hypervisor.Disk{{ID: "scsi0", Storage: DefaultStorage, SizeGB: 10}}
	}
	if createdAt.IsZero() {
		createdAt = d.now()
	}
	return cloneMachine(d.insertLocked(hm, createdAt).Machine), nil
}
