package apitype

import (
	"time"
)

// MonitoringOverview is the operators' summary of the cluster, from live state.
// Capacity counts the online nodes only.
type MonitoringOverview struct {
	Nodes        OverviewNodes    `json:"nodes"`
	Machines     OverviewMachines `json:"machines"`
	Alerts       OverviewAlerts   `json:"alerts"`
	HealthChecks OverviewChecks   `json:"health_checks"`
	Capacity     OverviewCapacity `json:"capacity"`
}

// OverviewNodes counts nodes by status.
type OverviewNodes struct {
	Total   int64 `json:"total"`
	Online  int64 `json:"online"`
	Offline int64 `json:"offline"`
}

// OverviewMachines counts machines by status; Other is provisioning, migrating and
// suspended.
type OverviewMachines struct {
	Total   int64 `json:"total"`
	Running int64 `json:"running"`
	Stopped int64 `json:"stopped"`
	Error   int64 `json:"error"`
	Other   int64 `json:"other"`
}

// OverviewAlerts counts open alert events: firing (not acknowledged), the critical
// ones among them, and acknowledged ones.
type OverviewAlerts struct {
	Firing       int64 `json:"firing"`
	Critical     int64 `json:"critical"`
	Acknowledged int64 `json:"acknowledged"`
}

// OverviewChecks counts health checks by their latest status; a disabled check counts
// in Total and Disabled only.
type OverviewChecks struct {
	Total    int64 `json:"total"`
	Passing  int64 `json:"passing"`
	Failing  int64 `json:"failing"`
	Unknown  int64 `json:"unknown"`
	Disabled int64 `json:"disabled"`
}

// OverviewCapacity is what the online nodes have and use; each Ratio is used/total.
type OverviewCapacity struct {
	CPU struct {
		TotalCores int64   `json:"total_cores"`
		UsedCores  float64 `json:"used_cores"`
		Ratio      float64 `json:"ratio"`
	} `json:"cpu"`
	Memory struct {
		TotalMB int64   `json:"total_mb"`
		UsedMB  float64 `json:"used_mb"`
		Ratio   float64 `json:"ratio"`
	} `json:"memory"`
	Disk struct {
		TotalGB int64   `json:"total_gb"`
		UsedGB  float64 `json:"used_gb"`
		Ratio   float64 `json:"ratio"`
	} `json:"disk"`
}

// FaultyDeployment is one machine in trouble: its deployment failed, it crash-loops,
// fails tasks repeatedly or fails its health checks right after deployment.
type FaultyDeployment struct {
	MachineID   string    `json:"machine_id"`
	Name        string    `json:"name"`
	TenantID    *string   `json:"tenant_id"`
	Reason      string    `json:"reason"`
	FailedTasks int64     `json:"failed_tasks"`
	LastError   *string   `json:"last_error"`
	Since       time.Time `json:"since"`
}

// ClusterForecast is the cluster's daily usage of cpu, memory and disk, its trend,
// and the day each runs out within the horizon.
type ClusterForecast struct {
	HorizonDays int64              `json:"horizon_days"`
	Resources   []ResourceForecast `json:"resources"`
}

// ResourceForecast is one resource's usage, trend and the day it runs out.
type ResourceForecast struct {
	Resource string `json:"resource"` // cpu, memory, disk
	// Unit of Used, Capacity, TrendPerDay and the points: cores or bytes.
	Unit        string  `json:"unit"`
	Used        float64 `json:"used"`
	Capacity    float64 `json:"capacity"`
	TrendPerDay float64 `json:"trend_per_day"`
	// ExhaustedAt is the day (YYYY-MM-DD) usage reaches capacity within the horizon.
	ExhaustedAt *string         `json:"exhausted_at"`
	Points      []ForecastPoint `json:"points"`
}

// ForecastPoint is one day's average usage.
type ForecastPoint struct {
	Date string  `json:"date"`
	Used float64 `json:"used"`
}

// Trends is a tenant's daily consumption, oldest day first.
type Trends struct {
	Days   int64        `json:"days"`
	Points []TrendPoint `json:"points"`
	// MissingMachines lists the machines whose usage could not be read: the sums
	// leave them out. MissingNodes lists their nodes.
	MissingMachines []string `json:"missing_machines"`
	MissingNodes    []string `json:"missing_nodes"`
}

// TrendPoint is one day of a tenant's consumption.
type TrendPoint struct {
	Date          string  `json:"date"` // YYYY-MM-DD, UTC
	CPUCoreHours  float64 `json:"cpu_core_hours"`
	MemoryGBHours float64 `json:"memory_gb_hours"`
	NetInBytes    float64 `json:"net_in_bytes"`
	NetOutBytes   float64 `json:"net_out_bytes"`
}

// UsageGraph is a series of evenly spaced usage points, oldest first, as the
// hypervisor keeps them (ResolutionSeconds apart).
type UsageGraph struct {
	Timeframe         string       `json:"timeframe"`
	ResolutionSeconds int64        `json:"resolution_seconds"`
	Points            []UsagePoint `json:"points"`
}

// ClusterUsage is the cluster's usage graph: the nodes' graphs summed bucket by
// bucket. MissingNodes names the nodes left out (offline, or unreadable).
type ClusterUsage struct {
	UsageGraph
	MissingNodes []string `json:"missing_nodes"`
}

// UsagePoint is one bucket of a usage graph. A nil field is a gap (no data).
type UsagePoint struct {
	Time          time.Time `json:"time"`
	CPU           *float64  `json:"cpu"` // fraction 0..1 of CPUCores
	CPUCores      *float64  `json:"cpu_cores"`
	MemBytes      *float64  `json:"mem_bytes"`
	MemTotalBytes *float64  `json:"mem_total_bytes"`
	NetInBps      *float64  `json:"net_in_bps"`
	NetOutBps     *float64  `json:"net_out_bps"`
	DiskReadBps   *float64  `json:"disk_read_bps"`
	DiskWriteBps  *float64  `json:"disk_write_bps"`
}
