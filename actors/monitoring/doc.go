// Package monitoring watches the cluster for operators: health checks and their
// probes (entities that run on timers), the alert rules (failed tasks, node usage, node
// offline, an unreachable hypervisor), insights (faulty deployments: crash loops,
// repeated failures, failing checks), the daily usage history and its forecasts.
package monitoring
