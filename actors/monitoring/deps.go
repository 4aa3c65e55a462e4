package monitoring

import (
	"time"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Deps are what health checks, monitoring, insights and the usage history
// need from outside their package.
type Deps struct {
	Runtime  *kit.Runtime
	Driver   hypervisor.Driver
	Events   *events.Events
	Alerts   *alerts.Alerts
	Machines *machines.Services
	Tenants  *tenants.Tenants
	// Options configure the node usage alert (zero: defaults).
	Options MonitoringOptions
	// Faulty are the faulty-deployment rules' windows and thresholds (zero: defaults).
	Faulty FaultyOptions
	// HistoryInterval is how often the cluster's usage is sampled (0: never).
	HistoryInterval time.Duration
}

// Services are the services of the monitoring package.
type Services struct {
	HealthChecks *HealthChecks
	Monitoring   *Monitoring
	Insights     *Insights
	History      *History
}

// system is what the monitoring code reaches through its sys field.
type system struct {
	*Services
	rt       *kit.Runtime
	store    persistence.Store
	driver   hypervisor.Driver
	log      *zap.Logger
	Events   *events.Events
	Alerts   *alerts.Alerts
	Machines *machines.Machines
	Nodes    *capacity.Nodes
	Tasks    *tasks.Tasks
	Tenants  *tenants.Tenants
}

// Start starts the health checks' kind and the monitoring loops.
func Start(d Deps) *Services {
	s := &system{Services: &Services{}, rt: d.Runtime, store: d.Runtime.Store, driver: d.Driver,
		log: d.Runtime.Log, Events: d.Events, Alerts: d.Alerts, Machines: d.Machines.Machines, Nodes: d.Machines.Nodes, Tasks: d.Machines.Tasks, Tenants: d.Tenants}
	s.HealthChecks = startHealthChecks(s)
	s.Monitoring = startMonitoring(s, d.Options)
	s.Insights = startInsights(s, d.Faulty)
	s.History = startHistory(s, d.HistoryInterval)
	return s.Services
}
