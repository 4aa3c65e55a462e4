package client

import (
	"context"
	"iter"
	"time"
)

// Backup is one backup of a machine, taken by a backup schedule.
type Backup struct {
	ID string `json:"id"`
	// BackupID is the hypervisor's name of the backup (its volume id).
	BackupID  string `json:"backup_id"`
	MachineID string `json:"machine_id"`
	TenantID  string `json:"tenant_id"`
	VMID      int64  `json:"vmid"`
	Node      string `json:"node"`
	Storage   string `json:"storage"`
	Mode      string `json:"mode"`
	SizeBytes int64  `json:"size_bytes"`
	// CreatedAt is when the hypervisor took the backup.
	CreatedAt time.Time `json:"created_at"`
	// ScheduleID is the schedule that took it (it may have been deleted since).
	ScheduleID *string `json:"schedule_id"`
	// ScheduledAt is the due time of the run that took it.
	ScheduledAt *time.Time `json:"scheduled_at"`
	// TaskID is the task that took it.
	TaskID *string `json:"task_id"`
	// Origin is "schedule", "on_demand" (a user asked for it) or "external" (taken
	// outside vmplane, such as by a vzdump job of Proxmox's own, and adopted by the
	// sync).
	Origin string `json:"origin"`
	// Note is what the user wrote when asking for it.
	Note string `json:"note"`
}

// GetBackup reads one backup.
func (c *Client) GetBackup(ctx context.Context, id string) (*Backup, error) {
	return getRecord[Backup](ctx, c, "/api/resources/backups/"+esc(id))
}

// DeleteBackup deletes a backup.
func (c *Client) DeleteBackup(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/backups/"+esc(id))
}

// BackupsPage reads one page of backups (of one machine or tenant when f says so).
func (c *Client) BackupsPage(ctx context.Context, f RecordFilter) (Page[Backup], error) {
	return getPage[Backup](ctx, c, "/api/resources/backups", f.values())
}

// Backups yields every backup f selects, in creation order.
func (c *Client) Backups(ctx context.Context, f RecordFilter) iter.Seq2[Backup, error] {
	return allFiltered(ctx, f, c.BackupsPage)
}
