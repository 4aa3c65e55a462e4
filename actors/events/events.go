package events

import (
	"encoding/json"
	"sync"
	"time"
)

// Event is one change that clients may follow on GET /api/events: a task, a machine's
// state or an alert. IDs increase, so a client that reconnects with Last-Event-ID gets
// what it missed.
type Event struct {
	ID       uint64    `json:"id"`
	Type     string    `json:"type"` // task.updated, machine.updated, machine.deleted, alert.updated, tenant.suspended, ...
	TenantID *string   `json:"tenant_id"`
	Time     time.Time `json:"time"`
	// Cause says what changed a machine: "task" (its task's end or start), "sync" (the
	// hypervisor was seen to differ: a crash, a change behind our back), "create",
	// "assign", "billing" (a billing suspension began or ended), "terminate" (marked
	// for termination, or taken back).
	Cause string `json:"cause,omitempty"`
	// PreviousStatus is a machine's status before this change.
	PreviousStatus string          `json:"previous_status,omitempty"`
	Data           json.RawMessage `json:"data"`
	// Origin is the cluster member whose entity published the event ("" on a single
	// node). Internal: a relay carries it in its own envelope, clients never see it.
	// SubscribeLocal uses it so that side effects run on that member only.
	Origin string `json:"-"`
}

// Event types.
const (
	EventTask           = "task.updated"
	EventMachine        = "machine.updated"
	EventMachineDeleted = "machine.deleted"
	EventAlert          = "alert.updated"
	// EventTenantSuspended and EventTenantUnsuspended carry the tenant (with its
	// suspension) when an operator or a billing system suspends it or ends that.
	EventTenantSuspended   = "tenant.suspended"
	EventTenantUnsuspended = "tenant.unsuspended"
	// EventMachineTerminated says a termination deleted a machine with its snapshots
	// and backups (data: its id); machine.deleted follows.
	EventMachineTerminated = "machine.terminated"
	// EventMachineTrafficExceeded says a machine's traffic this month went past its
	// plan's allowance (data: the machine, the month, the bytes used and allowed, and
	// the overage action taken), once per machine and month.
	EventMachineTrafficExceeded = "machine.traffic_exceeded"
)

// Types lists every event type, in the order the API documents them (the webhooks'
// events are checked against it): a new type is added here once.
var Types = []string{EventMachine, EventMachineDeleted, EventMachineTerminated, EventMachineTrafficExceeded, EventTask, EventAlert,
	EventTenantSuspended, EventTenantUnsuspended}

// EventBacklog is how many recent events are kept for clients that reconnect.
const EventBacklog = 10000

// relayAheadMax is how far past the last event it holds a relayed bus takes a
// client's position for one it has not received yet (its watch lags the member the
// client came from by far less); beyond, the position is not of this cluster.
const relayAheadMax = 1 << 40

// Relay carries events between the members of a cluster (cluster.EventRelay on etcd).
// A bus with a relay does not number or deliver its own events: Publish hands them to
// the relay, and the bus hears every member's events, its own included, from Run, with
// ids the relay assigns (the same on every member), so a client resumes with
// Last-Event-ID on any member.
type Relay interface {
	// Origin names this member: the Origin of the events published here.
	Origin() string
	// Publish sends ev to every member's bus. It must not block (it is called from
	// entity mailboxes), and the events of one publisher arrive in the order published.
	Publish(ev Event)
	// Run delivers every member's events to deliver, in increasing ID, until Close:
	// first the recent ones the relay keeps (at most EventBacklog), before Run returns,
	// then, from a goroutine of the relay's, each new one. gap is called (from that
	// goroutine) when events may have been lost before the next one delivered.
	Run(deliver func(Event), gap func())
	// Close stops Run and sends what was published before it, as far as it can.
	Close()
}

// Events fans out events to subscribers and keeps the recent ones. Publishing never
// blocks the publisher (an entity's mailbox): a subscriber that falls behind is cut off
// and resumes from the backlog with Last-Event-ID.
type Events struct {
	mu     sync.Mutex
	next   uint64
	ring   []Event // the last EventBacklog events, oldest first
	subs   map[*Subscription]struct{}
	closed bool
	// start is the last id before this bus started: SubscribeLocal(0) begins after it.
	start uint64

	// In a cluster: relay carries the events, origin is this member, and every event
	// with an id above floor is in the ring (ids are not consecutive there).
	relay  Relay
	origin string
	floor  uint64
}

// Subscription receives events as they are published.
type Subscription struct {
	// C delivers events; it is closed when the subscriber fell behind or the bus closed.
	C      chan Event
	tenant *string
	events *Events
	// local: only this member's events; after: none up to this id (a relay may deliver
	// an event after the subscriber named it as its position).
	local bool
	after uint64
}

// New returns a single node's bus: it numbers its events itself.
func New() *Events {
	// Ids continue from the clock so that they keep increasing across restarts.
	next := uint64(time.Now().UnixMicro())
	return &Events{next: next, start: next, subs: map[*Subscription]struct{}{}}
}

// NewRelayed returns a cluster member's bus: its events go through r, and it holds
// every member's. It returns once r delivered the events it keeps.
func NewRelayed(r Relay) *Events {
	e := &Events{subs: map[*Subscription]struct{}{}, relay: r, origin: r.Origin()}
	r.Run(e.deliver, e.gap)
	e.mu.Lock()
	e.start = e.next
	e.mu.Unlock()
	return e
}

// Publish records an event for tenant (nil: operators only).
func (e *Events) Publish(typ string, tenant *string, data any) {
	e.PublishEvent(Event{Type: typ, TenantID: tenant}, data)
}

// PublishEvent records ev with data, which is marshalled into ev.Data; the bus sets
// its id and time (in a cluster, the relay sets the id).
func (e *Events) PublishEvent(ev Event, data any) {
	raw, err := json.Marshal(data)
	if err != nil {
		return
	}
	if e.relay != nil {
		ev.ID, ev.Time, ev.Data, ev.Origin = 0, time.Now().UTC(), raw, e.origin
		e.mu.Lock()
		closed := e.closed
		e.mu.Unlock()
		if !closed {
			e.relay.Publish(ev)
		}
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.next++
	ev.ID, ev.Time, ev.Data = e.next, time.Now().UTC(), raw
	e.add(ev)
}

// deliver takes an event from the relay.
func (e *Events) deliver(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed || ev.ID <= e.next {
		return // a relay that resumed may repeat what it delivered
	}
	if e.next == 0 {
		// The first event this bus holds: older ones may have been dropped.
		e.floor = max(e.floor, ev.ID-1)
	}
	e.next = ev.ID
	e.add(ev)
}

// gap records that events after the last one delivered were lost: a subscriber
// resuming from before them is told so (Subscribe's gone), and the current ones are
// cut off so that they resume, and learn it.
func (e *Events) gap() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.floor = max(e.floor, e.next+1)
	for s := range e.subs {
		close(s.C)
		delete(e.subs, s)
	}
}

// add keeps ev in the ring and sends it to the subscribers; e.mu is held.
func (e *Events) add(ev Event) {
	// The oldest event leaves by re-slicing, and the ring moves to the front of a new
	// buffer of twice the backlog once that buffer is used up: one copy of the backlog
	// per EventBacklog events. Shifting the backlog down by one for every event was
	// most of a first sync's CPU (issue 33: 10,000 events moved for each of 100,000
	// adoptions).
	if len(e.ring) == EventBacklog {
		e.floor = max(e.floor, e.ring[0].ID)
		e.ring[0] = Event{} // its data is not kept until the next move
		e.ring = e.ring[1:]
	}
	if len(e.ring) == cap(e.ring) && len(e.ring) > 0 {
		buf := make([]Event, len(e.ring), 2*EventBacklog)
		copy(buf, e.ring)
		e.ring = buf
	}
	e.ring = append(e.ring, ev)
	for s := range e.subs {
		if !s.wants(ev) {
			continue
		}
		select {
		case s.C <- ev:
		default:
			close(s.C)
			delete(e.subs, s)
		}
	}
}

func (s *Subscription) wants(ev Event) bool {
	return ev.ID > s.after && visible(s.tenant, ev) && (!s.local || ev.Origin == s.events.origin)
}

func visible(tenant *string, ev Event) bool {
	return tenant == nil || (ev.TenantID != nil && *ev.TenantID == *tenant)
}

// Latest is the id of the last event published: a subscriber that wants only what
// happens from now on subscribes after it.
func (e *Events) Latest() uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.next
}

// Subscribe returns the kept events after lastID that tenant may see (nil: every
// event), and a subscription for the ones to come. Gone reports that events after lastID
// were already dropped from the backlog, so the client missed some.
//
// In a cluster these are every member's events: clients (GET /api/events) subscribe
// here. A watcher whose handling has side effects (alerts, records) uses
// SubscribeLocal, so that each event is handled once in the cluster.
func (e *Events) Subscribe(lastID uint64, tenant *string) (backlog []Event, sub *Subscription, gone bool) {
	return e.subscribe(lastID, tenant, false)
}

// SubscribeLocal is Subscribe for every event published on this member (on a single
// node, every event): the watchers that act on events (raise alerts, write records)
// use it, so that each event's side effects happen once in a cluster, on the member
// whose entity published it. lastID 0 means from this bus's start: the events that
// an earlier run of this member published are not handled again.
func (e *Events) SubscribeLocal(lastID uint64) (backlog []Event, sub *Subscription, gone bool) {
	if lastID == 0 {
		lastID = e.start // set once, before the bus is shared
	}
	return e.subscribe(lastID, nil, true)
}

func (e *Events) subscribe(lastID uint64, tenant *string, local bool) (backlog []Event, sub *Subscription, gone bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.relay == nil {
		// Ids are consecutive here.
		gone = lastID > 0 && len(e.ring) > 0 && e.ring[0].ID > lastID+1
	} else {
		gone = lastID > 0 && lastID < e.floor
		if lastID > e.next+relayAheadMax {
			// Not an id of this cluster (one of a single node's, from before it became
			// one): waiting for it would send nothing, ever.
			lastID, gone = e.next, true
		}
	}
	sub = &Subscription{C: make(chan Event, 256), tenant: tenant, events: e, local: local}
	if e.relay != nil {
		sub.after = lastID
	}
	for _, ev := range e.ring {
		if ev.ID > lastID && sub.wants(ev) {
			backlog = append(backlog, ev)
		}
	}
	if e.closed {
		close(sub.C)
		return backlog, sub, gone
	}
	e.subs[sub] = struct{}{}
	return backlog, sub, gone
}

// Close ends the subscription.
func (s *Subscription) Close() {
	s.events.mu.Lock()
	defer s.events.mu.Unlock()
	if _, ok := s.events.subs[s]; ok {
		delete(s.events.subs, s)
		close(s.C)
	}
}

// Close ends every subscription and, in a cluster, closes the relay (which sends what
// was published before).
func (e *Events) Close() {
	e.mu.Lock()
	e.closed = true
	for s := range e.subs {
		close(s.C)
		delete(e.subs, s)
	}
	e.mu.Unlock()
	if e.relay != nil {
		e.relay.Close()
	}
}
