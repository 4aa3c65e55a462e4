package apitype

import (
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
	// LocationID is the hypervisor cluster that holds the archive, its machine's
	// ("default": the one the server's settings configure).
	LocationID string `json:"location_id"`
}

// RestoreNewSpec says where a backup is restored as a new machine; every field may be
// left out.
type RestoreNewSpec struct {
	// Node is the node to restore to; "": the hypervisor's choice.
	Node string `json:"node,omitempty"`
	// Name is the new machine's; "": the backup's machine's name.
	Name string `json:"name,omitempty"`
	// TenantID is the tenant the machine is for, within its quota; "": the backup's.
	TenantID string `json:"tenant_id,omitempty"`
	// StartAfter starts the machine once it is restored.
	StartAfter bool `json:"start_after,omitempty"`
}
