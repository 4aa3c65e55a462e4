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
	Type     string    `json:"type"` // task.updated, machine.updated, machine.deleted, alert.updated
	TenantID *string   `json:"tenant_id"`
	Time     time.Time `json:"time"`
	// Cause says what changed a machine: "task" (its task's end or start), "sync" (the
	// hypervisor was seen to differ: a crash, a change behind our back), "create",
	// "assign".
	Cause string `json:"cause,omitempty"`
	// PreviousStatus is a machine's status before this change.
	PreviousStatus string          `json:"previous_status,omitempty"`
	Data           json.RawMessage `json:"data"`
}

// Event types.
const (
	EventTask           = "task.updated"
	EventMachine        = "machine.updated"
	EventMachineDeleted = "machine.deleted"
	EventAlert          = "alert.updated"
)

// EventBacklog is how many recent events are kept for clients that reconnect.
const EventBacklog = 10000

// Events fans out events to subscribers and keeps the recent ones. Publishing never
// blocks the publisher (an entity's mailbox): a subscriber that falls behind is cut off
// and resumes from the backlog with Last-Event-ID.
type Events struct {
	mu     sync.Mutex
	next   uint64
	ring   []Event // the last EventBacklog events, oldest first
	subs   map[*Subscription]struct{}
	closed bool
}

// Subscription receives events as they are published.
type Subscription struct {
	// C delivers events; it is closed when the subscriber fell behind or the bus closed.
	C      chan Event
	tenant *string
	events *Events
}

func New() *Events {
	// Ids continue from the clock so that they keep increasing across restarts.
	return &Events{next: uint64(time.Now().UnixMicro()), subs: map[*Subscription]struct{}{}}
}

// Publish records an event for tenant (nil: operators only).
func (e *Events) Publish(typ string, tenant *string, data any) {
	e.PublishEvent(Event{Type: typ, TenantID: tenant}, data)
}

// PublishEvent records ev with data, which is marshalled into ev.Data; the bus sets
// its id and time.
func (e *Events) PublishEvent(ev Event, data any) {
	raw, err := json.Marshal(data)
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.next++
	ev.ID, ev.Time, ev.Data = e.next, time.Now().UTC(), raw
	if len(e.ring) == EventBacklog {
		copy(e.ring, e.ring[1:])
		e.ring = e.ring[:EventBacklog-1]
	}
	e.ring = append(e.ring, ev)
	for s := range e.subs {
		if !visible(s.tenant, ev) {
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
func (e *Events) Subscribe(lastID uint64, tenant *string) (backlog []Event, sub *Subscription, gone bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if lastID > 0 && len(e.ring) > 0 && e.ring[0].ID > lastID+1 {
		gone = true
	}
	for _, ev := range e.ring {
		if ev.ID > lastID && visible(tenant, ev) {
			backlog = append(backlog, ev)
		}
	}
	sub = &Subscription{C: make(chan Event, 256), tenant: tenant, events: e}
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

func (e *Events) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for s := range e.subs {
		close(s.C)
		delete(e.subs, s)
	}
}
