package apitype

import (
	"time"
)

// MachineDetail is a machine with what belongs to it: its schedules (its disks,
// interfaces, addresses and firewall state are the Machine's own fields).
type MachineDetail struct {
	Machine
	PowerSchedules  []PowerSchedule  `json:"power_schedules"`
	BackupSchedules []BackupSchedule `json:"backup_schedules"`
	// LastTask is the machine's newest task (nil before any).
	LastTask *Task `json:"last_task"`
}

// Snapshot is one snapshot of a machine, as the hypervisor holds it.
type Snapshot struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	CreatedAt   time.Time `json:"created_at"`
	// IncludesMemory says a rollback to it leaves the machine running where it was.
	IncludesMemory bool `json:"includes_memory"`
	// Parent is the snapshot the machine was at when this one was taken ("": none).
	Parent string `json:"parent"`
}

// SnapshotSpec is the body of CreateSnapshot.
type SnapshotSpec struct {
	// Name starts with a letter, then letters, digits, _ and -, 2 to 40 in all.
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// IncludeMemory saves a running machine's memory too.
	IncludeMemory bool `json:"include_memory,omitempty"`
}

// BackupSpec is the body of BackupMachine.
type BackupSpec struct {
	// Mode is "snapshot" (the default), "suspend" or "stop".
	Mode string `json:"mode,omitempty"`
	Note string `json:"note,omitempty"`
}
