package actors

import (
	"context"
	"time"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/apierr"
)

// Health is the state of what the API depends on: "ok" per check, or what is wrong
// ("unavailable", or for storage the reason writes are refused).
type Health struct {
	Storage    string `json:"storage"`
	Hypervisor string `json:"hypervisor"`
}

// OK reports whether every check passes.
func (h Health) OK() bool { return h.Storage == "ok" && h.Hypervisor == "ok" }

// Health probes the store and the hypervisor, each bounded by a short deadline. A
// shared store (etcd) is not read: a read waits for etcd up to the store's request
// timeout, longer than a load balancer's health check waits for its answer, so its
// Health reports what the store's background probe last found.
func (s *System) Health(ctx context.Context) Health {
	h := Health{Storage: "ok", Hypervisor: "ok"}
	if s.store.Shared() {
		if err := s.store.Health(); err != nil {
			h.Storage = apierr.From(err).Detail
		}
	} else if _, err := auth.AdminExists(ctx, s.store); err != nil {
		h.Storage = "unavailable"
	} else if err := s.store.Health(); err != nil {
		// A store that reads but refuses writes (failed sync, full disk) is degraded.
		h.Storage = apierr.From(err).Detail
	}
	if s.driver == nil {
		h.Hypervisor = "unavailable"
		return h
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := s.driver.Ping(pctx); err != nil {
		h.Hypervisor = "unavailable"
	}
	return h
}
