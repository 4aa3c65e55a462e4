package client

import (
	"context"
	"iter"
	"net/http"
)

// Power actions a PowerSchedule may run (ActionStart, ActionStop, ActionShutdown,
// ActionReboot) are those of MachineAction; the backup modes are these.
const (
	BackupSnapshot = "snapshot"
	BackupSuspend  = "suspend"
	BackupStop     = "stop"
)

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
