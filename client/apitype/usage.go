package apitype

import (
	"time"
)

// UsageLine is what one machine on one plan used over some hours. Memory is in
// MB-hours, disks in GB-hours, backups in byte-hours and backup-hours (a count),
// snapshots in snapshot-hours (a count), traffic in bytes.
type UsageLine struct {
	MachineID       string  `json:"machine_id"`
	Name            string  `json:"name"`
	TenantID        *string `json:"tenant_id"`
	PlanID          *string `json:"plan_id"`
	Hours           int64   `json:"hours"`
	CoreHours       int64   `json:"core_hours"`
	MemoryMBHours   int64   `json:"memory_mb_hours"`
	DiskGBHours     int64   `json:"disk_gb_hours"`
	BackupHours     int64   `json:"backup_hours"`
	BackupByteHours int64   `json:"backup_byte_hours"`
	SnapshotHours   int64   `json:"snapshot_hours"`
	TrafficInBytes  int64   `json:"traffic_in_bytes"`
	TrafficOutBytes int64   `json:"traffic_out_bytes"`
	EstimatedHours  int64   `json:"estimated_hours"`
}

// UsageReport is what the hours [From, To) come to: a line per machine and plan, the
// totals, and how many hours no record covers (Gaps: unknown, not zero).
type UsageReport struct {
	From   time.Time   `json:"from"`
	To     time.Time   `json:"to"`
	Lines  []UsageLine `json:"lines"`
	Totals UsageLine   `json:"totals"`
	Gaps   int64       `json:"gaps"`
}

// MachineTraffic is a machine's traffic in the current calendar month (UTC), in
// bytes, with its plan's allowance (nil: unmetered) and what is left of it.
type MachineTraffic struct {
	MachineID      string          `json:"machine_id"`
	Month          string          `json:"month"`
	InBytes        int64           `json:"in_bytes"`
	OutBytes       int64           `json:"out_bytes"`
	TotalBytes     int64           `json:"total_bytes"`
	AllowanceBytes *int64          `json:"allowance_bytes"`
	RemainingBytes *int64          `json:"remaining_bytes"`
	Exceeded       *TrafficOverage `json:"exceeded"`
	CountedUntil   time.Time       `json:"counted_until"`
}

// TrafficOverage is when a machine went past its allowance this month, and the
// overage action taken (report, throttle, suspend).
type TrafficOverage struct {
	At     time.Time `json:"at"`
	Action string    `json:"action"`
}
