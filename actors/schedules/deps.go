package schedules

import (
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Deps are what the power and backup schedules need from outside their package.
type Deps struct {
	Runtime  *kit.Runtime
	Driver   hypervisor.Driver
	Machines *machines.Services
	Options  ScheduleOptions
	// Tenants, when set, are asked before each run whether the schedule's tenant is
	// suspended: a suspended tenant's schedules do not run.
	Tenants *tenants.Tenants
}

// system is what the schedules' code reaches through its sys field.
type system struct {
	rt       *kit.Runtime
	store    persistence.Store
	driver   hypervisor.Driver
	log      *zap.Logger
	Machines *machines.Machines
	Tasks    *tasks.Tasks
	Backups  *machines.Backups
	Tenants  *tenants.Tenants
}

// Start starts the schedules' kind; WakeAll arms their timers.
func Start(d Deps) *Schedules {
	return startSchedules(&system{rt: d.Runtime, store: d.Runtime.Store, driver: d.Driver, log: d.Runtime.Log,
		Machines: d.Machines.Machines, Tasks: d.Machines.Tasks, Backups: d.Machines.Backups, Tenants: d.Tenants}, d.Options)
}
