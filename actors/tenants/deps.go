package tenants

import (
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/machines"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Deps are what tenants, their firewall and the overview need from outside
// their package.
type Deps struct {
	Runtime  *kit.Runtime
	Driver   hypervisor.Driver
	Events   *events.Events
	Machines *machines.Services
}

// system is what the tenants' code reaches through its sys field.
type system struct {
	rt       *kit.Runtime
	store    persistence.Store
	driver   hypervisor.Driver
	log      *zap.Logger
	Events   *events.Events
	Machines *machines.Machines
	Nodes    *machines.Nodes
	Backups  *machines.Backups
	Tenants  *Tenants
}

// Start starts the tenants' kind.
func Start(d Deps) *Tenants {
	s := &system{rt: d.Runtime, store: d.Runtime.Store, driver: d.Driver, log: d.Runtime.Log, Events: d.Events,
		Machines: d.Machines.Machines, Nodes: d.Machines.Nodes, Backups: d.Machines.Backups}
	s.Tenants = startTenants(s)
	return s.Tenants
}
