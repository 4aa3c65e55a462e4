// Package world is the simulated cluster's world as vmplane's store holds it: the keys
// (KeyPrefix, WorldKey, MachineKey, BackupKey), the records under them with their
// schema versions, the set of records changed in memory and not yet written
// (Changes), the batches that write them (Batches), the reads that bring them back
// (Load, Read, ReadAll, Decode), and the records another member's writes made stale
// (Stale). The driver (package sim) owns the world in memory and decides when to read
// and write; this package owns how it is stored, which is the same on a single node
// (Badger) as in a cluster (etcd).
//
// The layout:
//
//	sim/world                  seed, nodes (capacity and status), templates and the ISO storage
//	sim/vm/<vmid>              a machine: its config, power state, creation time, power
//	                           history (the usage graphs read it), firewall rules and
//	                           snapshots (each with the machine as it was then)
//	sim/backup/<vmid>/<id>     a backup with the machine config it restores
//
// What is derived is not stored: the vmid counter (the lowest free vmid, as Proxmox's
// /cluster/nextid), the MAC and address pools (the machines' own), the per-node
// committed memory. What is runtime only is not stored either: operation locks (an
// operation cut by a crash did not happen), consoles, injected failures, availability.
package world

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// KeyPrefix is the first part of every key the simulated world is stored under.
const KeyPrefix = "sim"

// Keys is the table of the keys the simulated world is stored under, all below
// KeyPrefix.
var Keys = []persistence.KeyKind{
	{Prefix: KeyPrefix, Holds: "sim/world, sim/vm/<vmid>, sim/backup/<vmid>/<id>: the simulated world, when it persists"},
}

// Schema versions of the stored records: WorldVersion, MachineVersion, BackupVersion.
const (
	WorldVersion   = 1
	MachineVersion = 1
	BackupVersion  = 1
)

// MaxHistory bounds a machine's stored power history (about 35 bytes an entry, so a
// record stays far below the store's value limit). Past it the oldest quarter goes:
// usage graphs of a machine switched more than MaxHistory times are quiet before the
// oldest change kept.
const MaxHistory = 8192

// WorldKey is the key of sim/world.
func WorldKey() []byte { return persistence.Key(KeyPrefix, "world") }

// MachineKey is the key of a machine's record, sim/vm/<vmid>.
func MachineKey(vmid int) []byte { return persistence.Key(KeyPrefix, "vm", vmidPart(vmid)) }

// BackupKey is the key of a backup's record, sim/backup/<vmid>/<id>.
func BackupKey(vmid int, id string) []byte {
	return persistence.Key(KeyPrefix, "backup", vmidPart(vmid), id)
}

// vmidPart pads a vmid so that keys scan in vmid order.
func vmidPart(vmid int) string { return fmt.Sprintf("%010d", vmid) }

// Kind is what a key of the world names.
type Kind int

// The kinds of keys: the world, a machine, a backup, or none of them.
const (
	KindNone Kind = iota
	KindWorld
	KindMachine
	KindBackup
)

// ParseKey reads a key of the world: its kind, and the vmid (and the backup's id) it
// names. A key it does not know is KindNone.
func ParseKey(key string) (kind Kind, vmid int, id string) {
	parts := strings.Split(key, "/")
	switch {
	case len(parts) == 2 && parts[1] == "world":
		return KindWorld, 0, ""
	case len(parts) < 3:
		return KindNone, 0, ""
	}
	vmid, err := strconv.Atoi(parts[2])
	switch {
	case err != nil:
	case parts[1] == "vm" && len(parts) == 3:
		return KindMachine, vmid, ""
	case parts[1] == "backup" && len(parts) == 4:
		return KindBackup, vmid, parts[3]
	}
	return KindNone, 0, ""
}

// World is sim/world.
type World struct {
	Seed      uint64                `json:"seed"`
	Nodes     []hypervisor.Node     `json:"nodes"`
	Templates []hypervisor.Template `json:"templates"`
	// ISOs is the ISO storage, shared by every node as a cluster's shared storage is.
	ISOs map[string]hypervisor.ISO `json:"isos,omitempty"`
}

// Machine is sim/vm/<vmid>.
type Machine struct {
	Machine   hypervisor.Machine `json:"machine"`
	CreatedAt time.Time          `json:"created_at"`
	History   []Change           `json:"history"`
	// Firewall is the rule set last pushed; absent when none ever was (an empty set
	// that was pushed is kept as []).
	Firewall *[]hypervisor.FirewallRule `json:"firewall,omitempty"`
	// Snapshots are the machine's snapshots in the order they were taken, each with
	// the machine as it was, and Parent the one the machine is at now: they live and
	// die with the machine's record, as they live in a Proxmox VM's config file, so an
	// operation on the machine reads and writes them in one conditional write.
	Snapshots []Snapshot `json:"snapshots,omitempty"`
	Parent    string     `json:"parent,omitempty"`
}

// Snapshot is one snapshot in a machine's record.
type Snapshot struct {
	Snapshot hypervisor.Snapshot `json:"snapshot"`
	// Config is the machine as it was when the snapshot was taken: what a rollback
	// brings back.
	Config hypervisor.Machine `json:"config"`
}

// Backup is sim/backup/<vmid>/<id>.
type Backup struct {
	Backup hypervisor.Backup `json:"backup"`
	// Config is the machine as it was backed up: what a restore brings back.
	Config hypervisor.Machine `json:"config"`
	// Seq orders a machine's backups as they were taken.
	Seq uint64 `json:"seq"`
}

// Change records that a machine entered a state at an instant: one entry of its power
// history.
type Change struct {
	At    int64 // unix nanoseconds
	State hypervisor.State
}

// MarshalJSON writes a state change as [unix_ns, "state"]: histories are long.
func (c Change) MarshalJSON() ([]byte, error) {
	b := append([]byte{'['}, strconv.FormatInt(c.At, 10)...)
	b = append(b, ',')
	s, err := json.Marshal(c.State)
	if err != nil {
		return nil, err
	}
	return append(append(b, s...), ']'), nil
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (c *Change) UnmarshalJSON(data []byte) error {
	var pair [2]json.RawMessage
	if err := json.Unmarshal(data, &pair); err != nil {
		return err
	}
	if err := json.Unmarshal(pair[0], &c.At); err != nil {
		return err
	}
	return json.Unmarshal(pair[1], &c.State)
}

// decode reads one stored record, refusing one a newer vmplane wrote.
func decode(val []byte, known uint16, v any, what string) error {
	version, err := persistence.Decode(val, v)
	if err != nil {
		return fmt.Errorf("simulated world, %s: %w", what, err)
	}
	if version > known {
		return Corrupt("%s has schema version %d; this vmplane reads up to %d (written by a newer vmplane?)", what, version, known)
	}
	return nil
}

// Corrupt is the error of a stored world that cannot be read as it is.
func Corrupt(format string, args ...any) error {
	return apierr.New(apierr.ErrInternal, "simulated world: "+format, args...)
}
