package apitype

import (
	"time"
)

// Alert is an alert event: a condition (Kind on a target) raised, perhaps
// acknowledged, and resolved when the condition clears.
type Alert struct {
	ID         string  `json:"id"`
	Kind       string  `json:"kind"`     // health_check, node_offline, task_failed, ...
	Severity   string  `json:"severity"` // info, warning, critical
	TargetType string  `json:"target_type"`
	TargetID   string  `json:"target_id"`
	TenantID   *string `json:"tenant_id"`
	// MachineID is the machine a health check alert concerns, when its check names one.
	MachineID      *string    `json:"machine_id"`
	Message        string     `json:"message"`
	Status         string     `json:"status"` // AlertFiring, AlertAcknowledged, AlertResolved
	StartedAt      time.Time  `json:"started_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
	AcknowledgedAt *time.Time `json:"acknowledged_at"`
	ResolvedAt     *time.Time `json:"resolved_at"`
}
