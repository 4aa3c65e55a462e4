// Package fleet holds the simulated hypervisor's machines: each one as the simulation
// keeps it (Machine: the hypervisor's view of it, its creation, power history,
// snapshots and traffic mark), and all of them (Fleet), where a machine nothing has
// touched since it was seeded or loaded is held in a compact form. The driver (package
// sim) decides what happens to machines; this package decides how they are held.
package fleet

import (
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
)

// Machine is one simulated machine plus what only the simulation knows.
type Machine struct {
	hypervisor.Machine
	CreatedAt time.Time
	// History lists power-state changes, oldest first; the first entry is the creation.
	// Usage graphs read it, so a machine that was stopped last week shows a quiet week.
	History []world.Change
	// Snapshots are the machine's snapshots in the order they were taken, and Parent
	// the one it is at now ("" for none). A change replaces the slice, never edits
	// it, so a record being written keeps what it held.
	Snapshots []world.Snapshot
	Parent    string
	// Traffic is where the last inventory's traffic integral got (the driver's
	// traffic counters).
	Traffic Mark
}

// Mark is a machine's traffic integral since From (the unix second it last started)
// up to UpTo, a UTC day boundary the integral passed, or From itself.
type Mark struct {
	From, UpTo int64
	In, Out    float64
}

// RecordState appends a state change, keeping the history sorted even if the injected
// clock goes backwards (usage lookups binary-search it).
func (m *Machine) RecordState(at time.Time, s hypervisor.State) {
	t := at.UnixNano()
	if n := len(m.History); n > 0 {
		last := &m.History[n-1]
		if t <= last.At {
			last.State = s
			return
		}
	}
	m.History = append(m.History, world.Change{At: t, State: s})
	if len(m.History) > world.MaxHistory {
		m.History = append(m.History[:0:0], m.History[len(m.History)-world.MaxHistory*3/4:]...)
	}
}
