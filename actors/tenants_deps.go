package actors

import (
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// TenantsDeps are what tenants, their firewall and the overview need from outside
// their package.
type TenantsDeps struct {
	Runtime  *kit.Runtime
	Driver   hypervisor.Driver
	Events   *Events
	Machines *MachineServices
}

// tenantsSys is what the tenants' code reaches through its sys field.
type tenantsSys struct {
	rt       *kit.Runtime
	store    persistence.Store
	driver   hypervisor.Driver
	log      *zap.Logger
	Events   *Events
	Machines *Machines
	Nodes    *Nodes
	Backups  *Backups
	Tenants  *Tenants
}

// StartTenants starts the tenants' kind.
func StartTenants(d TenantsDeps) *Tenants {
	s := &tenantsSys{rt: d.Runtime, store: d.Runtime.Store, driver: d.Driver, log: d.Runtime.Log, Events: d.Events,
		Machines: d.Machines.Machines, Nodes: d.Machines.Nodes, Backups: d.Machines.Backups}
	s.Tenants = startTenants(s)
	return s.Tenants
}
