package alerts

import (
	"github.com/vmplane/vmplane/actors/events"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/persistence"
)

// Deps are what the alerts need from outside their package.
type Deps struct {
	Runtime *kit.Runtime
	Events  *events.Events
}

// system is what the alerts' code reaches through its sys field.
type system struct {
	rt     *kit.Runtime
	store  persistence.Store
	log    *zap.Logger
	Events *events.Events
}

// Start starts the alerts' kind.
func Start(d Deps) *Alerts {
	return startAlerts(&system{rt: d.Runtime, store: d.Runtime.Store, log: d.Runtime.Log, Events: d.Events})
}
