package cluster

// The event relay: the cluster's event bus on etcd. Every member puts the events its
// entities publish under events/ and every member's bus is fed from one etcd watch on
// that prefix, so all buses hold the same events, in the same order, with the same
// ids.
//
//   - An event's id is its put's etcd revision × eventIDScale + its position in that
//     transaction: a member writes its events in batches, one transaction each, and
//     all the puts of a transaction share its revision. Ids are identical on every
//     member and increase (revisions do), so a client resumes with Last-Event-ID on
//     any member; revision = id / eventIDScale.
//   - One writer goroutine per member sends the events in the order published (so
//     each publisher's order holds), up to eventBatchMax per transaction (halved when
//     an etcd configured below its defaults refuses it). Publish only
//     queues: while etcd is slow or away, events wait (up to eventQueueMax, then new
//     ones are dropped and logged). A transaction whose outcome is unknown is retried
//     with the same keys, on the condition that its first key does not exist yet, so
//     an event is never stored twice.
//   - Events live an hour (EventRelayOptions.TTL): the events of one minute share one
//     lease, granted by the first put of that minute, so etcd holds one lease per
//     minute of events, not one per event. A lease's expiry deletes its events; the
//     watch ignores deletions.
//   - At start a member reads the most recent events.EventBacklog events still in etcd
//     (its bus's backlog) and watches from the revision of that read. A watch that is
//     cut off resumes from the last revision it saw. If etcd compacted that history
//     meanwhile, the events themselves are still there (keys outlive the history of
//     their puts): the relay reads those after the last revision seen and goes on; only
//     when it was cut off longer than the events live, or more than EventBacklog came
//     meanwhile, does it report a gap (its bus tells the clients: event: gap).
//   - Puts are not fenced by the member's lease: an event is a report of a write that
//     was fenced already.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
)

// DefaultEventTTL is how long an event stays in etcd: how long a client may be away and
// still resume without a gap (a member's bus keeps events.EventBacklog of them).
const DefaultEventTTL = time.Hour

const (
	// eventIDScale makes room in an id for the position of an event in its transaction.
	eventIDScale = 1000
	// eventBatchMax is the most events one transaction carries: below etcd's default
	// --max-txn-ops (128) and eventIDScale.
	eventBatchMax = 100
	// eventBatchBytes bounds a transaction's size, well below etcd's default
	// --max-request-bytes (1.5 MiB).
	eventBatchBytes = 512 << 10
	// eventQueueMax is how many events may wait for etcd before new ones are dropped.
	eventQueueMax = 50000
	// eventBucket is the span of time whose events share one lease.
	eventBucket = time.Minute
	// eventRetryMax is the longest pause between two attempts to write a batch.
	eventRetryMax = 2 * time.Second
)

// EventRelayOptions configure NewEventRelay.
type EventRelayOptions struct {
	// Client is the etcd client; the caller closes it after the relay.
	Client *clientv3.Client
	// Prefix is put before every key (the store's prefix).
	Prefix string
	// Name is this member's node name, the Origin of its events.
	Name string
	// TTL is how long events stay in etcd (DefaultEventTTL when zero).
	TTL time.Duration
	// RequestTimeout bounds each etcd call, and how long Close waits for the queued
	// events to be written (3 s when zero).
	RequestTimeout time.Duration
	// Log is the member's logger.
	Log *zap.Logger
}

// EventRelay implements events.Relay on etcd.
type EventRelay struct {
	opts   EventRelayOptions
	cli    *clientv3.Client
	key    string // prefix + "events/"
	log    *zap.Logger
	run    string // this run of the member, in its keys: a restart reuses no key
	leases map[int64]clientv3.LeaseID
	seq    uint64 // the writer's: keys written so far

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []events.Event
	closing bool
	dropped int // since the last write that succeeded

	// backlog and rev are the start's read, delivered by Run.
	backlog []events.Event
	rev     int64

	ctx, wctx       context.Context // the watch's; the writer's
	cancel, wcancel context.CancelFunc
	wg              sync.WaitGroup
	closeOnce       sync.Once
}

var _ events.Relay = (*EventRelay)(nil)

// wireEvent is an event as stored in etcd: the event with its origin and position
// in its transaction (the id is the revision's, decided by etcd).
type wireEvent struct {
	events.Event
	Origin string `json:"origin"`
	Index  int    `json:"i"`
}

// NewEventRelay reads the events still in etcd (Run delivers them first) and starts
// the writer.
func NewEventRelay(opts EventRelayOptions) (*EventRelay, error) {
	if opts.TTL <= 0 {
		opts.TTL = DefaultEventTTL
	}
	opts.RequestTimeout, opts.Log = withDefaults(opts.RequestTimeout, opts.Log)
	if opts.Name == "" {
		return nil, errors.New("cluster: an event relay needs the member's name")
	}
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	r := &EventRelay{opts: opts, cli: opts.Client, key: opts.Prefix + "events/", log: opts.Log, run: hex.EncodeToString(b),
		leases: map[int64]clientv3.LeaseID{}}
	r.cond = sync.NewCond(&r.mu)
	ctx, cancel := context.WithTimeout(context.Background(), opts.RequestTimeout)
	defer cancel()
	evs, _, rev, err := r.read(ctx, 0)
	if err != nil {
		return nil, fmt.Errorf("cluster: read the kept events: %w", err)
	}
	r.backlog, r.rev = evs, rev
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.wctx, r.wcancel = context.WithCancel(context.Background())
	r.wg.Add(1)
	go r.write()
	return r, nil
}

// Origin implements events.Relay: the member's name.
func (r *EventRelay) Origin() string { return r.opts.Name }

// Publish implements events.Relay: it queues ev for the writer.
func (r *EventRelay) Publish(ev events.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return
	}
	if len(r.queue) >= eventQueueMax {
		if r.dropped == 0 {
			r.log.Warn("events are dropped: etcd has not taken this member's events for a while",
				zap.Int("queued", len(r.queue)))
		}
		r.dropped++
		return
	}
	r.queue = append(r.queue, ev)
	r.cond.Signal()
}

// Run implements events.Relay.
func (r *EventRelay) Run(deliver func(events.Event), gap func()) {
	for _, ev := range r.backlog {
		deliver(ev)
	}
	r.backlog = nil
	r.wg.Add(1)
	go r.follow(r.rev, deliver, gap)
}

// Close implements events.Relay: the watch stops at once; the writer sends what is
// queued, for up to RequestTimeout. It is idempotent.
func (r *EventRelay) Close() {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closing = true
		r.cond.Broadcast()
		r.mu.Unlock()
		r.cancel()
		giveUp := time.AfterFunc(r.opts.RequestTimeout, r.wcancel)
		r.wg.Wait()
		giveUp.Stop()
		r.wcancel()
	})
}

// write sends the queued events, batch after batch, until Close.
func (r *EventRelay) write() {
	defer r.wg.Done()
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && !r.closing {
			r.cond.Wait()
		}
		if len(r.queue) == 0 {
			r.mu.Unlock()
			return
		}
		n := min(len(r.queue), eventBatchMax)
		batch := slices.Clone(r.queue[:n])
		r.queue = r.queue[n:]
		if len(r.queue) == 0 {
			r.queue = nil // let the backing array go after a burst
		}
		r.mu.Unlock()
		r.send(batch)
	}
}

// send writes batch, in as many transactions as its size needs, retrying each until
// it is written or the writer gives up (Close).
func (r *EventRelay) send(batch []events.Event) {
	defer kit.Recover(r.log, "event relay writer", nil)
	minute := time.Now().Unix() / int64(eventBucket/time.Second)
	var (
		keys []string
		vals []string
		size int
	)
	flush := func() {
		if len(keys) > 0 {
			r.sendTxn(minute, keys, vals)
		}
		keys, vals, size = nil, nil, 0
	}
	for _, ev := range batch {
		val, err := json.Marshal(wireEvent{Event: ev, Origin: ev.Origin, Index: len(keys)})
		if err != nil {
			continue
		}
		if size+len(val) > eventBatchBytes {
			flush()
			if val, err = json.Marshal(wireEvent{Event: ev, Origin: ev.Origin, Index: 0}); err != nil {
				continue
			}
		}
		r.seq++
		keys = append(keys, fmt.Sprintf("%s%d/%s.%s.%d", r.key, minute, r.opts.Name, r.run, r.seq))
		vals = append(vals, string(val))
		size += len(val)
	}
	flush()
}

// sendTxn puts one transaction's events, retrying with the same keys until it is
// written: the condition on the first key makes a retry of a transaction that was
// applied do nothing.
func (r *EventRelay) sendTxn(minute int64, keys, vals []string) {
	pause := 100 * time.Millisecond
	for failures := 0; ; failures++ {
		err := r.put(minute, keys, vals)
		if err == nil {
			if failures > 0 {
				r.log.Info("events are written to etcd again", zap.Int("attempts", failures+1))
			}
			r.mu.Lock()
			if r.dropped > 0 {
				r.log.Warn("events were dropped while etcd did not take them", zap.Int("dropped", r.dropped))
				r.dropped = 0
			}
			r.mu.Unlock()
			return
		}
		if errors.Is(err, rpctypes.ErrTooManyOps) || errors.Is(err, rpctypes.ErrRequestTooLarge) {
			// etcd is configured below its defaults: halves, down to one event (the
			// positions in the values stay unique and ordered).
			if len(keys) == 1 {
				r.log.Error("an event is dropped: etcd refuses it as too large (--max-request-bytes)", zap.Error(err))
				return
			}
			h := len(keys) / 2
			r.sendTxn(minute, keys[:h], vals[:h])
			r.sendTxn(minute, keys[h:], vals[h:])
			return
		}
		if r.wctx.Err() != nil {
			r.log.Warn("events not written before the member stopped", zap.Int("events", len(keys)), zap.Error(err))
			return
		}
		if failures == 0 {
			r.log.Warn("cannot write events to etcd; retrying", zap.Error(err))
		}
		pauseFor(r.wctx, pause)
		pause = min(2*pause, eventRetryMax)
	}
}

func (r *EventRelay) put(minute int64, keys, vals []string) error {
	ctx, cancel := context.WithTimeout(r.wctx, r.opts.RequestTimeout)
	defer cancel()
	lease, err := r.lease(ctx, minute)
	if err != nil {
		return err
	}
	ops := make([]clientv3.Op, len(keys))
	for i := range keys {
		ops[i] = clientv3.OpPut(keys[i], vals[i], clientv3.WithLease(lease))
	}
	_, err = r.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(keys[0]), "=", 0)).Then(ops...).Commit()
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		delete(r.leases, minute) // revoked, or expired while etcd was away: grant another
	}
	return err
}

// lease returns the lease of minute's events, granting it on the first put of that
// minute. Only the writer calls it.
func (r *EventRelay) lease(ctx context.Context, minute int64) (clientv3.LeaseID, error) {
	if id, ok := r.leases[minute]; ok {
		return id, nil
	}
	resp, err := r.cli.Grant(ctx, int64((r.opts.TTL+eventBucket)/time.Second))
	if err != nil {
		return 0, err
	}
	for m := range r.leases {
		if m < minute-1 {
			delete(r.leases, m)
		}
	}
	r.leases[minute] = resp.ID
	return resp.ID, nil
}

// read returns the most recent events.EventBacklog events whose revision is at least
// minRev, oldest first, whether there were more, and the revision read at.
func (r *EventRelay) read(ctx context.Context, minRev int64) ([]events.Event, bool, int64, error) {
	opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithSort(clientv3.SortByModRevision, clientv3.SortDescend),
		clientv3.WithLimit(events.EventBacklog)}
	if minRev > 0 {
		opts = append(opts, clientv3.WithMinModRev(minRev))
	}
	resp, err := r.cli.Get(ctx, r.key, opts...)
	if err != nil {
		return nil, false, 0, err
	}
	evs := make([]events.Event, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		if ev, ok := r.decode(kv); ok {
			evs = append(evs, ev)
		}
	}
	sortEvents(evs)
	return evs, resp.More, resp.Header.Revision, nil
}

// follow delivers the events put after revision rev, as etcd's watch reports them,
// until Close. live is when the watch was last known to be current (an answer from
// it): a history lost after a cut longer than the events live means lost events.
func (r *EventRelay) follow(rev int64, deliver func(events.Event), gap func()) {
	defer r.wg.Done()
	defer kit.Recover(r.log, "event relay watch", nil)
	live := time.Now()
	var batch []events.Event
	for r.ctx.Err() == nil {
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(r.ctx))
		ch := r.cli.Watch(wctx, r.key, clientv3.WithPrefix(), clientv3.WithRev(rev+1), clientv3.WithProgressNotify())
		for resp := range ch {
			if resp.CompactRevision > 0 {
				if next, err := r.catchUp(rev, live, deliver, gap); err != nil {
					r.log.Warn("event relay: cannot read the events after a compaction; retrying", zap.Error(err))
				} else {
					rev, live = next, time.Now()
				}
				break
			}
			if resp.Err() != nil {
				break
			}
			live = time.Now()
			batch = batch[:0]
			for _, ev := range resp.Events {
				rev = max(rev, ev.Kv.ModRevision)
				if ev.Type != clientv3.EventTypePut {
					continue // a lease expired
				}
				if e, ok := r.decode(ev.Kv); ok {
					batch = append(batch, e)
				}
			}
			sortEvents(batch)
			for _, e := range batch {
				deliver(e)
			}
			if resp.IsProgressNotify() {
				rev = max(rev, resp.Header.Revision)
			}
		}
		cancel()
		pauseFor(r.ctx, 200*time.Millisecond)
	}
}

// catchUp delivers the events after rev that etcd still holds, after its watch
// history from rev on was compacted, and returns the revision to watch after.
func (r *EventRelay) catchUp(rev int64, live time.Time, deliver func(events.Event), gap func()) (int64, error) {
	ctx, cancel := context.WithTimeout(r.ctx, r.opts.RequestTimeout)
	defer cancel()
	evs, more, at, err := r.read(ctx, rev+1)
	if err != nil {
		return 0, err
	}
	// Events put after live expire no earlier than TTL later (their minute's lease
	// was granted at most a minute before them and lives TTL and a minute).
	if more || time.Since(live) >= r.opts.TTL {
		r.log.Warn("event relay: events were lost while this member was cut off from etcd; clients that resume are told",
			zap.Int64("after_revision", rev), zap.Duration("cut_off_for", time.Since(live)))
		gap()
	}
	for _, ev := range evs {
		deliver(ev)
	}
	return at, nil
}

// decode makes an event of a stored one, with its cluster-wide id.
func (r *EventRelay) decode(kv *mvccpb.KeyValue) (events.Event, bool) {
	var w wireEvent
	if err := json.Unmarshal(kv.Value, &w); err != nil || w.Index < 0 || w.Index >= eventIDScale {
		r.log.Warn("event relay: an unreadable event is skipped", zap.ByteString("key", kv.Key), zap.Error(err))
		return events.Event{}, false
	}
	ev := w.Event
	ev.Origin = w.Origin
	ev.ID = uint64(kv.ModRevision)*eventIDScale + uint64(w.Index)
	return ev, true
}

func sortEvents(evs []events.Event) {
	slices.SortFunc(evs, func(a, b events.Event) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}
