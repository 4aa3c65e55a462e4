package events

import (
	"sync"
	"testing"
)

// loopRelay is a relay within one process, as a cluster of one member: it numbers the
// events with gaps between ids (as etcd's revisions leave them) and delivers them when
// the test says so, so that the test decides what the bus hears and when.
type loopRelay struct {
	mu      sync.Mutex
	next    uint64
	pending []Event
	deliver func(Event)
	gap     func()
}

func (r *loopRelay) Origin() string { return "here" }

func (r *loopRelay) Publish(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next += 1000
	ev.ID = r.next
	r.pending = append(r.pending, ev)
}

func (r *loopRelay) Run(deliver func(Event), gap func()) { r.deliver, r.gap = deliver, gap }
func (r *loopRelay) Close()                              {}

// flush delivers what was published, as the relay's watch would.
func (r *loopRelay) flush() {
	r.mu.Lock()
	evs := r.pending
	r.pending = nil
	r.mu.Unlock()
	for _, ev := range evs {
		r.deliver(ev)
	}
}

func TestSingleNodeGoneWhenTheBacklogDroppedEvents(t *testing.T) {
	e := New()
	defer e.Close()
	first := e.Latest() + 1
	for range EventBacklog + 10 {
		e.Publish(EventTask, nil, "x")
	}
	if _, sub, gone := e.Subscribe(first, nil); !gone {
		t.Fatal("resuming from an event dropped from the backlog does not report a gap")
	} else {
		sub.Close()
	}
	kept, sub, gone := e.Subscribe(first+9, nil)
	sub.Close()
	if gone || len(kept) != EventBacklog {
		t.Fatalf("resuming from the last dropped event: %d events, gone %v; want %d, no gap", len(kept), gone, EventBacklog)
	}
}

// The backlog is the last EventBacklog events, in order, however many times its
// buffer was moved (once every EventBacklog events).
func TestBacklogKeepsTheLastEventsInOrder(t *testing.T) {
	e := New()
	defer e.Close()
	first := e.Latest() + 1
	const n = 3*EventBacklog + 7
	for range n {
		e.Publish(EventTask, nil, "x")
	}
	kept, sub, _ := e.Subscribe(first+n-EventBacklog-1, nil)
	sub.Close()
	if len(kept) != EventBacklog {
		t.Fatalf("%d events kept; want %d", len(kept), EventBacklog)
	}
	for i, ev := range kept {
		if want := first + n - EventBacklog + uint64(i); ev.ID != want {
			t.Fatalf("kept event %d has id %d; want %d", i, ev.ID, want)
		}
	}
}

func TestSingleNodeEveryEventIsLocal(t *testing.T) {
	e := New()
	defer e.Close()
	e.Publish(EventTask, nil, "before the watcher subscribed")
	kept, sub, gone := e.SubscribeLocal(0)
	defer sub.Close()
	if len(kept) != 1 || gone {
		t.Fatalf("a local watcher starting at 0 gets %d events (gone %v); want the one published since the start", len(kept), gone)
	}
	e.Publish(EventTask, nil, "after")
	if ev := <-sub.C; ev.ID != kept[0].ID+1 {
		t.Fatalf("next event %d; want %d", ev.ID, kept[0].ID+1)
	}
}

func TestRelayedBusGapAndTrim(t *testing.T) {
	r := &loopRelay{}
	e := NewRelayed(r)
	defer e.Close()
	for range 3 {
		e.Publish(EventTask, nil, "x")
	}
	if e.Latest() != 0 {
		t.Fatal("a relayed bus holds an event its relay has not delivered")
	}
	r.flush()
	if e.Latest() != 3000 {
		t.Fatalf("Latest() = %d; want the relay's id 3000", e.Latest())
	}
	// A repeat (a relay's watch that resumed) is not delivered twice.
	r.deliver(Event{ID: 2000, Type: EventTask})
	kept, sub, gone := e.Subscribe(1000, nil)
	if gone || len(kept) != 2 || kept[0].ID != 2000 || kept[1].ID != 3000 {
		t.Fatalf("resumed after 1000: %v (gone %v); want 2000 and 3000", kept, gone)
	}
	// Lost events: the subscriber is cut off, and learns it when it resumes.
	r.gap()
	if _, ok := <-sub.C; ok {
		t.Fatal("a gap leaves the subscribers running")
	}
	e.Publish(EventTask, nil, "x")
	r.flush()
	if _, sub, gone := e.Subscribe(3000, nil); !gone {
		t.Fatal("resuming from before a gap does not report it")
	} else {
		sub.Close()
	}
	if _, sub, gone := e.Subscribe(4000, nil); gone {
		t.Fatal("resuming after a gap reports it")
	} else {
		sub.Close()
	}
	// The ring keeps EventBacklog events; ids are not consecutive, and resuming from
	// the last one dropped is no gap, from an earlier one is.
	for range EventBacklog {
		e.Publish(EventTask, nil, "x")
	}
	r.flush()
	// 1000 to 4000 were dropped.
	kept, sub, gone = e.Subscribe(4000, nil)
	sub.Close()
	if gone || len(kept) != EventBacklog {
		t.Fatalf("resumed after the last dropped event: %d events, gone %v; want %d, no gap", len(kept), gone, EventBacklog)
	}
	if _, sub, gone := e.Subscribe(3500, nil); !gone {
		t.Fatal("resuming from before a dropped event does not report it")
	} else {
		sub.Close()
	}
}

// TestRelayedBusForeignPosition: an id from elsewhere (a single node's clock-based
// ids, far above a cluster's) is reported as a gap and the stream starts at now,
// rather than waiting for an id that never comes.
func TestRelayedBusForeignPosition(t *testing.T) {
	r := &loopRelay{}
	e := NewRelayed(r)
	defer e.Close()
	e.Publish(EventTask, nil, "x")
	r.flush()
	kept, sub, gone := e.Subscribe(uint64(1_700_000_000_000_000), nil)
	defer sub.Close()
	if !gone || len(kept) != 0 {
		t.Fatalf("a foreign position: %d events, gone %v; want none and a gap", len(kept), gone)
	}
	e.Publish(EventTask, nil, "y")
	r.flush()
	if ev := <-sub.C; ev.ID != 2000 {
		t.Fatalf("next event %d; want 2000", ev.ID)
	}
}
