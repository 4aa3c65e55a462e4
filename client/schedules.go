package client

import (
	"context"
	"iter"
	"net/http"
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

// Power actions a PowerSchedule may run (ActionStart, ActionStop, ActionShutdown,
// ActionReboot) are those of MachineAction; the backup modes are these.
const (
	BackupSnapshot = "snapshot"
	BackupSuspend  = "suspend"
	BackupStop     = "stop"
)

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

// --- power schedules ---

// CreatePowerSchedule adds a power schedule to the machine spec.MachineID.
func (c *Client) CreatePowerSchedule(ctx context.Context, spec PowerScheduleSpec) (*PowerSchedule, error) {
	if spec.TenantID == "" {
		spec.TenantID = c.tenant
	}
	return callFor[PowerSchedule](ctx, c, http.MethodPost, "/api/resources/power-schedules", nil, spec)
}

// CreateMachinePowerSchedule adds a power schedule to the machine machineID (given by
// id or vmid) in the client area; spec.MachineID is not used.
func (c *Client) CreateMachinePowerSchedule(ctx context.Context, machineID string, spec PowerScheduleSpec) (*PowerSchedule, error) {
	spec.MachineID, spec.TenantID = "", ""
	return callFor[PowerSchedule](ctx, c, http.MethodPost, "/api/client/machines/"+esc(machineID)+"/power-schedules", c.clientQuery(), spec)
}

// GetPowerSchedule reads one power schedule.
func (c *Client) GetPowerSchedule(ctx context.Context, id string) (*PowerSchedule, error) {
	return getRecord[PowerSchedule](ctx, c, "/api/resources/power-schedules/"+esc(id))
}

// UpdatePowerSchedule changes the fields of a power schedule that ch sets.
func (c *Client) UpdatePowerSchedule(ctx context.Context, id string, ch PowerScheduleChange) (*PowerSchedule, error) {
	return callFor[PowerSchedule](ctx, c, http.MethodPatch, "/api/resources/power-schedules/"+esc(id), nil, ch)
}

// DeletePowerSchedule deletes a power schedule.
func (c *Client) DeletePowerSchedule(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/power-schedules/"+esc(id))
}

// PowerSchedulesPage reads one page of power schedules (of one machine or tenant
// when f says so).
func (c *Client) PowerSchedulesPage(ctx context.Context, f RecordFilter) (Page[PowerSchedule], error) {
	return getPage[PowerSchedule](ctx, c, "/api/resources/power-schedules", f.values())
}

// PowerSchedules yields every power schedule f selects, in creation order.
func (c *Client) PowerSchedules(ctx context.Context, f RecordFilter) iter.Seq2[PowerSchedule, error] {
	return allFiltered(ctx, f, c.PowerSchedulesPage)
}

// MachinePowerSchedulesPage reads one page of a machine's power schedules in the
// client area.
func (c *Client) MachinePowerSchedulesPage(ctx context.Context, machineID string, opt ListOptions) (Page[PowerSchedule], error) {
	return getPage[PowerSchedule](ctx, c, "/api/client/machines/"+esc(machineID)+"/power-schedules", withQuery(opt.values(), c.clientQuery()))
}

// MachinePowerSchedules yields every power schedule of a machine.
func (c *Client) MachinePowerSchedules(ctx context.Context, machineID string, opt ListOptions) iter.Seq2[PowerSchedule, error] {
	return all(ctx, opt, func(ctx context.Context, o ListOptions) (Page[PowerSchedule], error) {
		return c.MachinePowerSchedulesPage(ctx, machineID, o)
	})
}

// --- backup schedules ---

// CreateBackupSchedule adds a backup schedule to the machine spec.MachineID.
func (c *Client) CreateBackupSchedule(ctx context.Context, spec BackupScheduleSpec) (*BackupSchedule, error) {
	if spec.TenantID == "" {
		spec.TenantID = c.tenant
	}
	return callFor[BackupSchedule](ctx, c, http.MethodPost, "/api/resources/backup-schedules", nil, spec)
}

// CreateMachineBackupSchedule adds a backup schedule to the machine machineID (given
// by id or vmid) in the client area; spec.MachineID is not used.
func (c *Client) CreateMachineBackupSchedule(ctx context.Context, machineID string, spec BackupScheduleSpec) (*BackupSchedule, error) {
	spec.MachineID, spec.TenantID = "", ""
	return callFor[BackupSchedule](ctx, c, http.MethodPost, "/api/client/machines/"+esc(machineID)+"/backup-schedules", c.clientQuery(), spec)
}

// GetBackupSchedule reads one backup schedule.
func (c *Client) GetBackupSchedule(ctx context.Context, id string) (*BackupSchedule, error) {
	return getRecord[BackupSchedule](ctx, c, "/api/resources/backup-schedules/"+esc(id))
}

// UpdateBackupSchedule changes the fields of a backup schedule that ch sets.
func (c *Client) UpdateBackupSchedule(ctx context.Context, id string, ch BackupScheduleChange) (*BackupSchedule, error) {
	return callFor[BackupSchedule](ctx, c, http.MethodPatch, "/api/resources/backup-schedules/"+esc(id), nil, ch)
}

// DeleteBackupSchedule deletes a backup schedule; the backups it took stay.
func (c *Client) DeleteBackupSchedule(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/backup-schedules/"+esc(id))
}

// BackupSchedulesPage reads one page of backup schedules.
func (c *Client) BackupSchedulesPage(ctx context.Context, f RecordFilter) (Page[BackupSchedule], error) {
	return getPage[BackupSchedule](ctx, c, "/api/resources/backup-schedules", f.values())
}

// BackupSchedules yields every backup schedule f selects, in creation order.
func (c *Client) BackupSchedules(ctx context.Context, f RecordFilter) iter.Seq2[BackupSchedule, error] {
	return allFiltered(ctx, f, c.BackupSchedulesPage)
}

// MachineBackupSchedulesPage reads one page of a machine's backup schedules in the
// client area.
func (c *Client) MachineBackupSchedulesPage(ctx context.Context, machineID string, opt ListOptions) (Page[BackupSchedule], error) {
	return getPage[BackupSchedule](ctx, c, "/api/client/machines/"+esc(machineID)+"/backup-schedules", withQuery(opt.values(), c.clientQuery()))
}

// MachineBackupSchedules yields every backup schedule of a machine.
func (c *Client) MachineBackupSchedules(ctx context.Context, machineID string, opt ListOptions) iter.Seq2[BackupSchedule, error] {
	return all(ctx, opt, func(ctx context.Context, o ListOptions) (Page[BackupSchedule], error) {
		return c.MachineBackupSchedulesPage(ctx, machineID, o)
	})
}
