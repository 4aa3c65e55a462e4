package app

import (
	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/httpedge/api"
)

// edgeServices hands the edge the services of the running system it calls, each as
// the narrow interface the edge declares for it (api.Services).
func edgeServices(sys *actors.System) api.Services {
	return api.Services{
		Machines:        sys.Machines,
		Nodes:           sys.Nodes,
		Inventory:       sys.Inventory,
		Tasks:           sys.Tasks,
		Consoles:        sys.Consoles,
		Backups:         sys.Backups,
		ISOs:            sys.ISOs,
		Tenants:         sys.Tenants,
		Firewall:        sys.Tenants.Firewall(),
		Plans:           sys.Plans,
		Webhooks:        sys.Webhooks,
		IPPools:         sys.Addresses,
		Usage:           sys.Usage,
		Locations:       sys.Locations,
		Traffic:         sys,
		Users:           sys.Users,
		Idempotency:     sys.Idempotency,
		APIKeys:         sys.APIKeys,
		Limiter:         sys.Limiter,
		Events:          sys.Events,
		Alerts:          sys.Alerts,
		HealthChecks:    sys.HealthChecks,
		Insights:        sys.Insights,
		History:         sys.History,
		Monitoring:      sys.Monitoring,
		PowerSchedules:  sys.Schedules.Power(),
		BackupSchedules: sys.Schedules.Backup(),
		System:          sys,
		Audit:           sys.Audit,
	}
}
