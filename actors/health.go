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
	Storage string `json:"storage"`
	// Hypervisor is the default location's, the configured driver's.
	Hypervisor string `json:"hypervisor"`
	// Locations are the other locations' hypervisors, by id: "ok" or "unavailable".
	// A location that does not answer degrades its own entry alone: the server
	// still serves every other location. Omitted when there are none.
	Locations map[string]string `json:"locations,omitempty"`
}

// pingEach is a driver over several locations (hypervisor/locations' dispatcher).
type pingEach interface {
	PingEach(ctx context.Context) map[string]error
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
	p, ok := s.driver.(pingEach)
	if !ok {
		if err := s.driver.Ping(pctx); err != nil {
			h.Hypervisor = "unavailable"
		}
		return h
	}
	for tag, err := range p.PingEach(pctx) {
		state := "ok"
		if err != nil {
			state = "unavailable"
		}
		if tag == "" {
			h.Hypervisor = state
			continue
		}
		if h.Locations == nil {
			h.Locations = map[string]string{}
		}
		h.Locations[tag] = state
	}
	return h
}
