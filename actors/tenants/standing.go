package tenants

import "sync"

// standings is the tenants' standing (active or suspended, and why) as their entities
// hold it, published where the edge reads it without a message: CheckActive, asked
// before every write of a tenant user, was an actor round trip (a message to the
// tenant's entity and its answer) on the path of every durable write.
//
// It is exact because the entity is the only writer of its tenant's record and keeps
// the table in step with what it holds: an entity that is about to write its record
// first withdraws its entry (a check meanwhile asks the entity, which answers after
// the write), and publishes the new standing once the write is durable, before it
// answers the change. A suspension acknowledged to its caller is therefore in the
// table (or the entry is absent, and the entity is asked) for every request that
// comes after. A tenant whose entity has not been active since the start has no entry:
// its check asks the entity, which publishes when it loads.
//
// On a shared store (a cluster) another member's entity may change a tenant's record,
// so the table is off and every check asks the entity, wherever it runs, as before.
type standings struct {
	on bool
	m  sync.Map // tenant id → *standing
}

// standing is a tenant's as published: suspended, and the operator's reason.
type standing struct {
	suspended bool
	reason    string
}

// activeStanding is every active tenant's entry.
var activeStanding = &standing{}

func newStandings(shared bool) *standings { return &standings{on: !shared} }

// get is the tenant's published standing, if there is one.
func (s *standings) get(id string) (*standing, bool) {
	if !s.on {
		return nil, false
	}
	v, ok := s.m.Load(id)
	if !ok {
		return nil, false
	}
	return v.(*standing), true
}

// publish records rec's standing (nil: the tenant is gone, its entry dropped).
func (s *standings) publish(id string, rec *Tenant) {
	if !s.on {
		return
	}
	switch {
	case rec == nil:
		s.m.Delete(id)
	case rec.Suspension == nil:
		s.m.Store(id, activeStanding)
	default:
		s.m.Store(id, &standing{suspended: true, reason: rec.Suspension.Reason})
	}
}

// withdraw drops the tenant's entry before a write of its record: until the entity
// publishes again, a check asks it.
func (s *standings) withdraw(id string) {
	if s.on {
		s.m.Delete(id)
	}
}
