package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
)

// relayedBus is one member's event bus on its own etcd client, as a separate process
// has.
type relayedBus struct {
	*events.Events
	name string
	cli  *clientv3.Client
}

func startBus(t *testing.T, endpoints []string, name string) *relayedBus {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	r, err := NewEventRelay(EventRelayOptions{Client: cli, Prefix: "/test/", Name: name, RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	b := &relayedBus{Events: events.NewRelayed(r), name: name, cli: cli}
	t.Cleanup(b.Close)
	return b
}

// payload is what the tests publish: who and the how-manieth.
type payload struct {
	Pub string `json:"pub"`
	N   int    `json:"n"`
}

func (b *relayedBus) publish(n int) {
	b.Publish(events.EventTask, nil, payload{Pub: b.name, N: n})
}

// collector gathers what one subscription receives.
type collector struct {
	mu  sync.Mutex
	evs []events.Event
}

func collect(t *testing.T, sub *events.Subscription, backlog []events.Event) *collector {
	c := &collector{evs: slices.Clone(backlog)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range sub.C {
			c.mu.Lock()
			c.evs = append(c.evs, ev)
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() { sub.Close(); <-done })
	return c
}

// collectAll gathers every event of bus b from the start as a client does that
// resumes after its subscription was cut off for falling behind (a burst of more
// events than a subscription buffers, on a machine too busy to read them in time):
// from the last event it had, out of the backlog.
func collectAll(t *testing.T, b *relayedBus) *collector {
	c := &collector{}
	stop := make(chan struct{})
	done := make(chan struct{})
	var mu sync.Mutex
	var sub *events.Subscription
	go func() {
		defer close(done)
		var last uint64
		for {
			backlog, s, _ := b.Subscribe(last, nil)
			mu.Lock()
			select {
			case <-stop: // the cleanup closed the subscription before this one
				mu.Unlock()
				s.Close()
				return
			default:
			}
			sub = s
			mu.Unlock()
			c.mu.Lock()
			c.evs = append(c.evs, backlog...)
			c.mu.Unlock()
			if len(backlog) > 0 {
				last = backlog[len(backlog)-1].ID
			}
			for ev := range s.C {
				c.mu.Lock()
				c.evs = append(c.evs, ev)
				c.mu.Unlock()
				last = ev.ID
			}
			select {
			case <-stop:
				return
			default: // cut off: resume
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		mu.Lock()
		sub.Close()
		mu.Unlock()
		<-done
	})
	return c
}

func (c *collector) events() []events.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.evs)
}

func decodePayload(t *testing.T, ev events.Event) payload {
	t.Helper()
	var p payload
	if err := json.Unmarshal(ev.Data, &p); err != nil {
		t.Fatalf("event %d: %v", ev.ID, err)
	}
	return p
}

// ids lists the events' ids and checks that they increase.
func ids(t *testing.T, evs []events.Event) []uint64 {
	t.Helper()
	out := make([]uint64, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
		if i > 0 && ev.ID <= evs[i-1].ID {
			t.Fatalf("ids do not increase: %d after %d", ev.ID, evs[i-1].ID)
		}
	}
	return out
}

// TestRelayEveryMemberGetsEveryEvent: events published on two members reach all three
// buses with the same ids, increasing, each publisher's in the order it published.
func TestRelayEveryMemberGetsEveryEvent(t *testing.T) {
	srv := etcdtest.Start(t)
	buses := []*relayedBus{startBus(t, srv.Endpoints(), "a"), startBus(t, srv.Endpoints(), "b"), startBus(t, srv.Endpoints(), "c")}
	var got []*collector
	for _, b := range buses {
		got = append(got, collectAll(t, b))
	}
	const each = 150 // more than one transaction's worth for each publisher
	for i := range each {
		buses[0].publish(i)
		buses[1].publish(i)
	}
	for i, c := range got {
		testwait.Eventually(t, fmt.Sprintf("bus %d to get every event", i), func() bool { return len(c.events()) >= 2*each })
	}
	want := ids(t, got[0].events())
	if len(want) != 2*each {
		t.Fatalf("bus 0 got %d events; want %d", len(want), 2*each)
	}
	for i, c := range got[1:] {
		if have := ids(t, c.events()); !slices.Equal(have, want) {
			t.Fatalf("bus %d has ids %v; bus 0 %v", i+1, have, want)
		}
	}
	next := map[string]int{}
	for _, ev := range got[2].events() {
		p := decodePayload(t, ev)
		if p.N != next[p.Pub] {
			t.Fatalf("event %d of %s arrived at position %d: a publisher's order is lost", p.N, p.Pub, next[p.Pub])
		}
		if ev.Origin != p.Pub {
			t.Fatalf("event from %s has origin %q", p.Pub, ev.Origin)
		}
		next[p.Pub]++
	}
	if last := buses[2].Latest(); last != want[len(want)-1] {
		t.Fatalf("Latest() = %d; want the last id %d", last, want[len(want)-1])
	}
}

// TestRelayResumeOnAnotherMember: a client that read some events on one member and
// resumes from the last id on another gets exactly the ones it missed.
func TestRelayResumeOnAnotherMember(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b, c := startBus(t, srv.Endpoints(), "a"), startBus(t, srv.Endpoints(), "b"), startBus(t, srv.Endpoints(), "c")
	backlog, sub, _ := b.Subscribe(0, nil)
	onB := collect(t, sub, backlog)
	for i := range 10 {
		a.publish(i)
	}
	testwait.Eventually(t, "b to get the ten events", func() bool { return len(onB.events()) == 10 })
	seen := onB.events()
	all := ids(t, seen)
	testwait.Eventually(t, "c to get the ten events", func() bool { return c.Latest() == all[9] })
	missed, sub, gone := c.Subscribe(all[3], nil)
	sub.Close()
	if gone {
		t.Fatal("resuming within the backlog reports a gap")
	}
	if have := ids(t, missed); !slices.Equal(have, all[4:]) {
		t.Fatalf("resumed after %d on c: %v; want %v", all[3], have, all[4:])
	}
	// A member whose watch is behind the client's position sends nothing twice: an
	// id the client names is a position even before this member has the event.
	ahead, sub, _ := c.Subscribe(all[9]+1, nil)
	after := collect(t, sub, ahead)
	a.publish(10)
	testwait.Eventually(t, "the next event on c", func() bool { return len(after.events()) == 1 })
	if p := decodePayload(t, after.events()[0]); p.N != 10 {
		t.Fatalf("after the position, c sent event %d; want 10", p.N)
	}
}

// TestRelayLateMemberGetsTheBacklog: a member that starts after events were published
// holds them (read from etcd), with the same ids; a client resumes there.
func TestRelayLateMemberGetsTheBacklog(t *testing.T) {
	srv := etcdtest.Start(t)
	a := startBus(t, srv.Endpoints(), "a")
	backlog, sub, _ := a.Subscribe(0, nil)
	onA := collect(t, sub, backlog)
	for i := range 5 {
		a.publish(i)
	}
	testwait.Eventually(t, "a to get its five events", func() bool { return len(onA.events()) == 5 })
	want := ids(t, onA.events())

	late := startBus(t, srv.Endpoints(), "late")
	if late.Latest() != want[4] {
		t.Fatalf("a bus started later has Latest() %d; want %d", late.Latest(), want[4])
	}
	kept, sub, gone := late.Subscribe(0, nil)
	sub.Close()
	if gone || !slices.Equal(ids(t, kept), want) {
		t.Fatalf("backlog of the late bus: %v (gone %v); want %v", ids(t, kept), gone, want)
	}
	missed, sub, gone := late.Subscribe(want[1], nil)
	sub.Close()
	if gone || !slices.Equal(ids(t, missed), want[2:]) {
		t.Fatalf("resumed on the late bus after %d: %v (gone %v); want %v", want[1], ids(t, missed), gone, want[2:])
	}
}

// TestRelaySubscribeLocal: the watchers with side effects see their own member's
// events only, and a member that restarts does not handle its earlier run's again.
func TestRelaySubscribeLocal(t *testing.T) {
	srv := etcdtest.Start(t)
	a, b := startBus(t, srv.Endpoints(), "a"), startBus(t, srv.Endpoints(), "b")
	backlog, sub, _ := a.SubscribeLocal(0)
	localA := collect(t, sub, backlog)
	backlog, sub, _ = b.SubscribeLocal(0)
	localB := collect(t, sub, backlog)
	backlog, sub, _ = b.Subscribe(0, nil)
	allB := collect(t, sub, backlog)
	for i := range 4 {
		a.publish(i)
		b.publish(i)
	}
	testwait.Eventually(t, "b to get all eight events", func() bool { return len(allB.events()) == 8 })
	testwait.Eventually(t, "a's local watcher to get a's four", func() bool { return len(localA.events()) == 4 })
	for name, c := range map[string]*collector{"a": localA, "b": localB} {
		evs := c.events()
		if len(evs) != 4 {
			t.Fatalf("%s's local watcher got %d events; want its 4", name, len(evs))
		}
		for _, ev := range evs {
			if p := decodePayload(t, ev); p.Pub != name {
				t.Fatalf("%s's local watcher got an event of %s", name, p.Pub)
			}
		}
	}
	// A later run of a, under the same name: a's events are in its backlog, but its
	// local watchers start after them.
	again := startBus(t, srv.Endpoints(), "a")
	if kept, sub, _ := again.Subscribe(0, nil); len(kept) != 8 {
		t.Fatalf("the restarted member holds %d events; want 8", len(kept))
	} else {
		sub.Close()
	}
	kept, sub, gone := again.SubscribeLocal(0)
	sub.Close()
	if len(kept) != 0 || gone {
		t.Fatalf("the restarted member's local watchers would handle %d events of its earlier run (gone %v)", len(kept), gone)
	}
}

// TestRelayResumesAfterCutAndCompaction: a member cut off from etcd while another
// publishes, whose watch history etcd then compacted, still gets every event, with
// the ids the others have, and no gap.
func TestRelayResumesAfterCutAndCompaction(t *testing.T) {
	srv := etcdtest.Start(t)
	a := startBus(t, srv.Endpoints(), "a")
	proxy := etcdtest.NewProxy(t, srv)
	b := startBus(t, proxy.Endpoints(), "b")
	backlog, sub, _ := a.Subscribe(0, nil)
	onA := collect(t, sub, backlog)
	a.publish(0)
	testwait.Eventually(t, "b to follow a", func() bool { return b.Latest() != 0 && b.Latest() == a.Latest() })
	backlog, sub, _ = b.Subscribe(b.Latest(), nil)
	onB := collect(t, sub, backlog)

	proxy.Cut()
	for i := 1; i <= 3; i++ {
		a.publish(i)
	}
	testwait.Eventually(t, "a to get its events", func() bool { return len(onA.events()) == 4 })
	// A write after the events: compacting at it leaves their puts out of etcd's
	// history.
	resp, err := a.cli.Put(context.Background(), "/test/other", "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.cli.Compact(context.Background(), resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	proxy.Heal()
	testwait.Eventually(t, "b to get the events published while it was cut off", func() bool { return len(onB.events()) == 3 })
	if have, want := ids(t, onB.events()), ids(t, onA.events())[1:]; !slices.Equal(have, want) {
		t.Fatalf("b got %v after the cut; a has %v", have, want)
	}
	if _, sub, gone := b.Subscribe(ids(t, onA.events())[0], nil); gone {
		t.Fatal("a gap is reported though no event was lost")
	} else {
		sub.Close()
	}
}

// TestRelayHalvesWhatEtcdRefuses: an etcd run with a smaller --max-txn-ops than a
// batch still gets every event, in order.
func TestRelayHalvesWhatEtcdRefuses(t *testing.T) {
	srv := etcdtest.Start(t, func(c *embed.Config) { c.MaxTxnOps = 8 })
	a := startBus(t, srv.Endpoints(), "a")
	backlog, sub, _ := a.Subscribe(0, nil)
	got := collect(t, sub, backlog)
	for i := range 50 {
		a.publish(i)
	}
	testwait.Eventually(t, "the fifty events", func() bool { return len(got.events()) == 50 })
	for i, ev := range got.events() {
		if p := decodePayload(t, ev); p.N != i {
			t.Fatalf("event %d arrived at position %d", p.N, i)
		}
	}
	ids(t, got.events())
}
