package traffic

import "time"

// MachineTraffic is a machine's traffic in the current calendar month (UTC), with its
// plan's allowance and what is left of it.
type MachineTraffic struct {
	MachineID string `json:"machine_id"`
	Month     string `json:"month" doc:"the calendar month counted, UTC, as 2006-01"`
	InBytes   int64  `json:"in_bytes" doc:"bytes the machine received this month"`
	OutBytes  int64  `json:"out_bytes" doc:"bytes the machine sent this month"`
	// TotalBytes is what counts against the allowance.
	TotalBytes     int64  `json:"total_bytes" doc:"in and out together: what counts against the allowance"`
	AllowanceBytes *int64 `json:"allowance_bytes" doc:"the plan's traffic_gb in bytes (GiB); null: unmetered (no plan, or a plan without traffic_gb)"`
	RemainingBytes *int64 `json:"remaining_bytes" doc:"what is left of the allowance, 0 once past it; null: unmetered"`
	// Exceeded says when the machine went past its allowance this month, and the
	// overage action taken; null while it has not.
	Exceeded *TrafficOverage `json:"exceeded" doc:"when the machine went past its allowance this month and the action taken; null: it has not"`
	// CountedUntil is when the month's figures end: the counters are read with each
	// sync of the inventory (once a minute by default).
	CountedUntil time.Time `json:"counted_until" doc:"now: the figures include the last sync's reading"`
}
