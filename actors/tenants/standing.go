package tenants

import (
	"sync"
	"time"

	"github.com/vmplane/vmplane/actors/kit/fresh"
	"github.com/vmplane/vmplane/persistence"
)

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
// so the table is off. There a member keeps instead a copy of the active tenants'
// standing (fresh.Cache: served while its watch of tenant/ is known to be recent,
// filled by CheckActive from the entity's answers), and a change that ends a tenant's
// writes (a suspension, a deletion) is answered only fresh.Fence after it is durable
// (tenantEntity.setRec), so every member's copy has dropped the tenant by then. A
// suspended tenant is never copied: its users' writes ask the entity, so a tenant
// taken out of suspension writes at once on every member.
type standings struct {
	on bool
	m  sync.Map // tenant id → *standing
	// fresh is a cluster member's copy of the active tenants (nil on a single node).
	fresh *fresh.Cache[struct{}]
	// fence waits out fresh.Fence once a change that ends a tenant's writes is
	// durable, on a member with a copy; tests replace it.
	fence func()
}

// maxFresh bounds a member's copy of the active tenants.
const maxFresh = 1 << 16

// standing is a tenant's as published: suspended, and the operator's reason.
type standing struct {
	suspended bool
	reason    string
}

// activeStanding is every active tenant's entry.
var activeStanding = &standing{}

func newStandings(store persistence.Store) *standings {
	return &standings{on: !store.Shared(), fresh: fresh.New[struct{}](store, maxFresh, "tenant"),
		fence: func() { time.Sleep(fresh.Fence) }}
}

// get is the tenant's published standing, if there is one.
func (s *standings) get(id string) (*standing, bool) {
	if !s.on {
		if _, ok := s.fresh.Get(id); ok {
			return activeStanding, true
		}
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

// ended holds the answer of a change that ends a tenant's writes (prev active; next
// suspended, or nil: deleted) for the fence, on a cluster member: in the entity's
// mailbox, so the tenant's next messages wait too, for this rare change.
func (s *standings) ended(prev, next *Tenant) {
	if s.fresh != nil && prev != nil && prev.Suspension == nil && (next == nil || next.Suspension != nil) {
		s.fence()
	}
}
