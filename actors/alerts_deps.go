package actors

import (
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/persistence"
)

// AlertsDeps are what the alerts need from outside their package.
type AlertsDeps struct {
	Runtime *kit.Runtime
	Events  *Events
}

// alertsSys is what the alerts' code reaches through its sys field.
type alertsSys struct {
	rt     *kit.Runtime
	store  persistence.Store
	log    *zap.Logger
	Events *Events
}

// StartAlerts starts the alerts' kind.
func StartAlerts(d AlertsDeps) *Alerts {
	return startAlerts(&alertsSys{rt: d.Runtime, store: d.Runtime.Store, log: d.Runtime.Log, Events: d.Events})
}
