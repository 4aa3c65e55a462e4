package machines

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// A termination deletes a machine with every snapshot and backup it has (a billing
// system ends what a customer stopped paying for), after the grace period the
// operator sets (Deps.TerminateGrace). Within the grace the machine is stopped and
// marked (TerminateAt); a cancel, or the end of its billing suspension, undoes it. The
// due time is kept in the store (terminateKey), so a restart arms its timer again
// (WakeTerminations); the deletion is a destroy task that purges first (Operation.Purge).

// terminateKey indexes the machines marked for termination: vm-terminate/<id>, whose
// value is the due time (RFC 3339).
func terminateKey(id string) []byte { return persistence.Key("vm-terminate", id) }

// Messages of a machine entity's termination.
type (
	markTerminate   struct{ At time.Time }
	cancelTerminate struct{}
)

// terminateRetry is how long a due termination waits when the machine is busy with
// another task.
const terminateRetry = 30 * time.Second

// Terminate marks a machine for termination at now plus the grace, stops it if it runs
// (within a grace), and arms the deletion; with no grace the deletion starts now. A
// machine marked already keeps its due time.
func (m *Machines) Terminate(ctx context.Context, id string) (Machine, error) {
	now := m.sys.rt.Clock.Now().UTC()
	got, err := askMachine[Machine](ctx, m, id, &markTerminate{At: now.Add(m.sys.terminateGrace)})
	if err != nil {
		return Machine{}, err
	}
	at := *got.TerminateAt
	m.armTermination(got.ID, at)
	if at.After(now) {
		if got.Status == StatusRunning && got.TaskID == nil {
			m.power(ctx, got.ID, hypervisor.ActionStop)
		}
		return m.Get(ctx, got.ID, nil)
	}
	if _, err := m.Start(ctx, got.ID, Operation{Type: OpDestroy, Purge: true}, nil); err != nil && !errors.Is(err, apierr.ErrOperationInProgress) {
		return Machine{}, err
	}
	// A machine busy with another task is deleted when its timer, armed above, retries.
	cur, err := m.Get(ctx, got.ID, nil)
	if errors.Is(err, apierr.ErrNotFound) {
		// The deletion, started at once without a grace, may be over already (a fast
		// driver): the answer is the machine as it was marked.
		return got, nil
	}
	return cur, err
}

// CancelTerminate takes a machine's termination back while its grace lasts (a machine
// not marked is answered as it is); once the deletion has begun it is 409.
func (m *Machines) CancelTerminate(ctx context.Context, id string) (Machine, error) {
	got, err := askMachine[Machine](ctx, m, id, &cancelTerminate{})
	if err == nil {
		m.terminations.Disarm(got.ID)
	}
	return got, err
}

// WakeTerminations arms the timer of every machine marked for termination: at start,
// for the marks an earlier process left.
func (m *Machines) WakeTerminations(ctx context.Context) error {
	prefix := persistence.Prefix("vm-terminate")
	return m.sys.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		at, err := time.Parse(time.RFC3339Nano, string(v))
		if err != nil {
			return err
		}
		m.armTermination(string(k[len(prefix):]), at)
		return nil
	})
}

// armTermination sets the machine's timer to its due time: then the purging destroy
// starts, unless the mark was taken back meanwhile (the entity checks the due time).
func (m *Machines) armTermination(id string, at time.Time) {
	m.terminations.Arm(id, max(at.Sub(m.sys.rt.Clock.Now()), 0), func(gen uint64) {
		if !m.terminations.Take(id, gen) || !m.track() {
			return
		}
		defer m.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), kit.DefaultTimeout)
		defer cancel()
		_, err := m.Start(ctx, id, Operation{Type: OpDestroy, Purge: true}, nil)
		switch {
		case err == nil, errors.Is(err, apierr.ErrNotFound), errors.Is(err, apierr.ErrInvalidState):
			// Started, or gone, or taken back.
		default:
			m.sys.log.Warn("a due termination could not start; it is tried again", zap.String("machine", id), zap.Error(err))
			m.armTermination(id, m.sys.rt.Clock.Now().Add(terminateRetry))
		}
	})
}

// track counts a timer's work in, unless the machines are stopping.
func (m *Machines) track() bool {
	m.beginMu.Lock()
	defer m.beginMu.Unlock()
	if m.stopping.Load() {
		return false
	}
	m.wg.Add(1)
	return true
}

// purge deletes the machine's snapshots and backups before a terminating destroy: a
// backup's record goes with its archive (backups.Backups.Delete).
func (m *Machines) purge(ctx context.Context, id string, ref hypervisor.Ref) error {
	if ref.VMID != 0 {
		snaps, err := m.sys.driver.Snapshots(ctx, ref)
		if err != nil && !errors.Is(err, hypervisor.ErrMachineNotFound) {
			return err
		}
		for _, s := range snaps {
			if err := m.sys.driver.DeleteSnapshot(ctx, ref, s.Name); err != nil && !errors.Is(err, hypervisor.ErrSnapshotNotFound) {
				return err
			}
		}
	}
	list, _, err := m.sys.Backups.List(ctx, nil, id, "", 0)
	if err != nil {
		return err
	}
	for _, b := range list {
		if err := m.sys.Backups.Delete(ctx, b.ID, nil); err != nil && !errors.Is(err, apierr.ErrNotFound) {
			return err
		}
	}
	return nil
}

// markTerminate records the due time (or keeps the one recorded) with its index key.
func (e *machineEntity) markTerminate(m *markTerminate) (Machine, error) {
	if e.rec.TerminateAt != nil {
		return e.rec.Machine, nil
	}
	next := *e.rec
	next.TerminateAt = &m.At
	next.UpdatedAt = time.Now().UTC()
	err := e.saveWith(&next, nil, "terminate", nil, func(b *persistence.Batch) error {
		b.Put(terminateKey(e.id), []byte(m.At.Format(time.RFC3339Nano)))
		return nil
	})
	return e.rec.Machine, err
}

// unmark clears next's termination, its index key going in the same batch as the
// record (extra of saveWith).
func (e *machineEntity) unmark(next *record) func(*persistence.Batch) error {
	if next.TerminateAt == nil {
		return nil
	}
	next.TerminateAt = nil
	return func(b *persistence.Batch) error {
		b.Del(terminateKey(e.id))
		return nil
	}
}

// cancelTerminate takes the mark back, unless the deletion has begun.
func (e *machineEntity) cancelTerminate() (Machine, error) {
	if e.rec.Op != nil && e.rec.Op.Purge {
		return Machine{}, apierr.New(apierr.ErrInvalidState, "machine %s is being deleted (task %s)", e.id, *e.rec.TaskID)
	}
	if e.rec.TerminateAt == nil {
		return e.rec.Machine, nil
	}
	next := *e.rec
	extra := e.unmark(&next)
	next.UpdatedAt = time.Now().UTC()
	err := e.saveWith(&next, nil, "terminate", nil, extra)
	return e.rec.Machine, err
}

// purgeDue checks a purging destroy against the mark: only a due termination deletes.
func (e *machineEntity) purgeDue(now time.Time) error {
	if e.rec.TerminateAt == nil || now.Before(*e.rec.TerminateAt) {
		return apierr.New(apierr.ErrInvalidState, "machine %s is not due for termination", e.id)
	}
	return nil
}

// terminated tells the bus that a terminating destroy deleted the machine.
func (e *machineEntity) terminated() {
	e.sys.Events.Publish(events.EventMachineTerminated, e.rec.TenantID, map[string]string{"id": e.id})
}
