package apitype

import (
	"time"
)

// HealthCheck is a probe of an HTTP URL or a TCP address, run on its own timer; a
// failing check raises an alert.
type HealthCheck struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Type   string `json:"type"` // CheckHTTP or CheckTCP
	Target string `json:"target"`
	// IntervalS is the time between probes, TimeoutMS a probe's deadline.
	IntervalS int64 `json:"interval_s"`
	TimeoutMS int64 `json:"timeout_ms"`
	// ExpectedStatus is the HTTP status a probe must get; 0 accepts any 2xx or 3xx.
	ExpectedStatus int64 `json:"expected_status"`
	// FailureThreshold is how many failed probes in a row make the check failing.
	FailureThreshold int64     `json:"failure_threshold"`
	MachineID        *string   `json:"machine_id"`
	TenantID         *string   `json:"tenant_id"`
	Enabled          bool      `json:"enabled"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
	// Last is the check's state after its latest probe.
	Last CheckResult `json:"last"`
	// Results are the most recent probes, oldest first: GetHealthCheck has them, lists
	// leave them out.
	Results []ProbeResult `json:"results"`
	// SkippedProbes counts the probes skipped because the one before was still running.
	SkippedProbes int64 `json:"skipped_probes"`
	// TargetScoped is set when a tenant's user chose the target: it is checked to be an
	// address of the tenant's machines before each probe.
	TargetScoped bool `json:"target_scoped"`
}

// CheckResult is a health check's state after its latest probe.
type CheckResult struct {
	Status              string     `json:"status"` // CheckUnknown, CheckPassing, CheckFailing
	CheckedAt           *time.Time `json:"checked_at"`
	LatencyMS           float64    `json:"latency_ms"`
	Error               *string    `json:"error"`
	ConsecutiveFailures int64      `json:"consecutive_failures"`
}

// ProbeResult is one probe's outcome.
type ProbeResult struct {
	CheckedAt time.Time `json:"checked_at"`
	OK        bool      `json:"ok"`
	LatencyMS float64   `json:"latency_ms"`
	// StatusCode is the HTTP status the target answered (http checks that got one).
	StatusCode *int64  `json:"status_code"`
	Error      *string `json:"error"`
}

// HealthCheckSpec is the body of CreateHealthCheck. A tenant's user may only probe
// addresses of its tenant's machines; an operator names the tenant (or none) with
// TenantID.
type HealthCheckSpec struct {
	Name   string `json:"name"`
	Type   string `json:"type"`   // CheckHTTP or CheckTCP
	Target string `json:"target"` // a URL (http) or host:port (tcp)
	// Zero fields take the server's defaults: a probe every 60s, a timeout of 5s (or
	// half the interval), any 2xx or 3xx, and the default failure threshold.
	IntervalS        int64  `json:"interval_s,omitempty"`
	TimeoutMS        int64  `json:"timeout_ms,omitempty"`
	ExpectedStatus   int64  `json:"expected_status,omitempty"`
	FailureThreshold int64  `json:"failure_threshold,omitempty"`
	MachineID        string `json:"machine_id,omitempty"`
	TenantID         string `json:"tenant_id,omitempty"`
	Enabled          *bool  `json:"enabled,omitempty"` // default true
}

// HealthCheckChange is the body of UpdateHealthCheck: fields left zero keep their
// value; MachineID may be Null, which unties the check from its machine. A new type,
// target or expected status starts the check afresh.
type HealthCheckChange struct {
	Name             Optional[string] `json:"name,omitzero"`
	Type             Optional[string] `json:"type,omitzero"`
	Target           Optional[string] `json:"target,omitzero"`
	IntervalS        Optional[int64]  `json:"interval_s,omitzero"`
	TimeoutMS        Optional[int64]  `json:"timeout_ms,omitzero"`
	ExpectedStatus   Optional[int64]  `json:"expected_status,omitzero"`
	FailureThreshold Optional[int64]  `json:"failure_threshold,omitzero"`
	MachineID        Optional[string] `json:"machine_id,omitzero"`
	Enabled          Optional[bool]   `json:"enabled,omitzero"`
}
