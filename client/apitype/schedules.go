package apitype

import (
	"time"
)

// ScheduleBase is what power and backup schedules have in common: a machine, a cron
// expression read in a time zone, and the record of their runs.
type ScheduleBase struct {
	ID        string `json:"id"`
	MachineID string `json:"machine_id"`
	TenantID  string `json:"tenant_id"`
	// Cron is a 5-field cron expression (minute hour day-of-month month day-of-week),
	// optionally with a leading seconds field, or a descriptor such as @daily.
	Cron string `json:"cron"`
	// Timezone is the IANA time zone Cron is read in.
	Timezone string `json:"timezone"`
	Enabled  bool   `json:"enabled"`
	// Runs counts the runs started so far.
	Runs       int64      `json:"runs"`
	NextRunAt  *time.Time `json:"next_run_at"`
	LastRunAt  *time.Time `json:"last_run_at"`
	LastStatus *string    `json:"last_status"`
	LastTaskID *string    `json:"last_task_id"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
}

// PowerSchedule starts, stops, shuts down or reboots a machine on a cron schedule.
type PowerSchedule struct {
	ScheduleBase
	Action string `json:"action"`
}

// BackupSchedule backs a machine up on a cron schedule and keeps the newest Retention
// of the backups it took.
type BackupSchedule struct {
	ScheduleBase
	Retention int64  `json:"retention"`
	Mode      string `json:"mode"`
}

// PowerScheduleSpec is the body of CreatePowerSchedule (MachineID required) and of
// CreateMachinePowerSchedule (MachineID not sent: the machine is in the path).
type PowerScheduleSpec struct {
	MachineID string `json:"machine_id,omitempty"`
	// Action is ActionStart, ActionStop, ActionShutdown or ActionReboot.
	Action   string `json:"action"`
	Cron     string `json:"cron"`
	Timezone string `json:"timezone,omitempty"` // default UTC
	Enabled  *bool  `json:"enabled,omitempty"`  // default true
	// TenantID: an operator's CreatePowerSchedule names the tenant (ForTenant fills it).
	TenantID string `json:"tenant_id,omitempty"`
}

// PowerScheduleChange is the body of UpdatePowerSchedule: fields left zero keep their
// value.
type PowerScheduleChange struct {
	Action   Optional[string] `json:"action,omitzero"`
	Cron     Optional[string] `json:"cron,omitzero"`
	Timezone Optional[string] `json:"timezone,omitzero"`
	Enabled  Optional[bool]   `json:"enabled,omitzero"`
}

// BackupScheduleSpec is the body of CreateBackupSchedule (MachineID required) and of
// CreateMachineBackupSchedule (MachineID not sent).
type BackupScheduleSpec struct {
	MachineID string `json:"machine_id,omitempty"`
	Cron      string `json:"cron"`
	// Retention is how many of the schedule's backups are kept, 1..100.
	Retention int64  `json:"retention"`
	Mode      string `json:"mode,omitempty"`     // BackupSnapshot (default), BackupSuspend, BackupStop
	Timezone  string `json:"timezone,omitempty"` // default UTC
	Enabled   *bool  `json:"enabled,omitempty"`  // default true
	TenantID  string `json:"tenant_id,omitempty"`
}

// BackupScheduleChange is the body of UpdateBackupSchedule: fields left zero keep
// their value.
type BackupScheduleChange struct {
	Cron      Optional[string] `json:"cron,omitzero"`
	Timezone  Optional[string] `json:"timezone,omitzero"`
	Enabled   Optional[bool]   `json:"enabled,omitzero"`
	Retention Optional[int64]  `json:"retention,omitzero"`
	Mode      Optional[string] `json:"mode,omitzero"`
}
