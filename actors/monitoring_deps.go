package actors

import (
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// MonitoringDeps are what health checks, monitoring, insights and the usage history
// need from outside their package.
type MonitoringDeps struct {
	Runtime  *kit.Runtime
	Driver   hypervisor.Driver
	Events   *Events
	Alerts   *Alerts
	Machines *MachineServices
	Tenants  *Tenants
	// Options configure the node usage alert (zero: defaults).
	Options MonitoringOptions
	// Faulty are the faulty-deployment rules' windows and thresholds (zero: defaults).
	Faulty FaultyOptions
	// HistoryInterval is how often the cluster's usage is sampled (0: never).
	HistoryInterval time.Duration
}

// MonitoringServices are the services of the monitoring package.
type MonitoringServices struct {
	HealthChecks *HealthChecks
	Monitoring   *Monitoring
	Insights     *Insights
	History      *History
}

// monitoringSys is what the monitoring code reaches through its sys field.
type monitoringSys struct {
	*MonitoringServices
	rt       *kit.Runtime
	store    persistence.Store
	driver   hypervisor.Driver
	log      *zap.Logger
	Events   *Events
	Alerts   *Alerts
	Machines *Machines
	Nodes    *Nodes
	Tenants  *Tenants
}

// StartMonitoring starts the health checks' kind and the monitoring loops.
func StartMonitoring(d MonitoringDeps) *MonitoringServices {
	s := &monitoringSys{MonitoringServices: &MonitoringServices{}, rt: d.Runtime, store: d.Runtime.Store, driver: d.Driver,
		log: d.Runtime.Log, Events: d.Events, Alerts: d.Alerts, Machines: d.Machines.Machines, Nodes: d.Machines.Nodes, Tenants: d.Tenants}
	s.HealthChecks = startHealthChecks(s)
	s.Monitoring = startMonitoring(s, d.Options)
	s.Insights = startInsights(s, d.Faulty)
	s.History = startHistory(s, d.HistoryInterval)
	return s.MonitoringServices
}
