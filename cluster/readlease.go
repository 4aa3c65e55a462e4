package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Read leases: a member answers the reads of its caches (a tenant's machine list, an
// API key's record) from what its store's watch told them, without first asking etcd
// how far the watch must go (the catch-up round each read paid before: most of a
// member's read). The writers pay instead, and only a member-to-member round each:
//
//   - Every transaction of every member also reads the members' records (in the same
//     transaction, so as of the write), and the write is answered only once each
//     member whose record says it answers (memberRecord.Acks) has confirmed that its
//     watch reached the write's revision (POST /cluster/v1/seen), or has left: its
//     record is gone, so its cluster lease expired or was revoked.
//   - A member holds its lease (Holding) only after it announced Acks and then caught
//     up once (the writes made before the writers knew of it), only while its cluster
//     lease is valid by its own clock with a margin (etcd deletes the record of an
//     expired lease: a writer that waited for that deletion must find the member no
//     longer holding), only while every live member maintains ReadLeaseFeature (a
//     member of an earlier release writes without waiting), and only while its watch
//     is known to have caught up with etcd within readLeaseFresh.
//   - A member whose watch does not reach a revision within ackWait gives its lease up
//     before it answers (released: the writer goes on), and takes it again after
//     another catch-up.
//   - A writer that cannot reach a member for withdrawAfter (the member died and etcd
//     has not expired its lease yet, or the network splits the members but not etcd)
//     withdraws its acks: it rewrites the member's record without them, under the
//     member's lease, and waits withdrawFence. A member holding its lease hears of
//     that within readLeaseFresh and gives it up; it takes it again only while its
//     record announces acks, and offers them again after a pause (5 s, doubling to a
//     minute).
//
// So a read that begins on a holding member after a write was acknowledged anywhere
// finds that write told to its caches. A member that dies, or that the others cannot
// reach, holds writes for about withdrawAfter + withdrawFence (2.55 s) at most.

// ReadLeaseFeature is what a member whose writes wait for the read leases announces
// (Options.Maintains): members hold read leases only while every live member does.
const ReadLeaseFeature = "read-lease"

const (
	// seenPath is the route a writer asks a holding member on.
	seenPath = "/cluster/v1/seen"
	// revisionHeader carries the revision the writer waits for.
	revisionHeader = "X-Vmplane-Revision"
	// ackWait is how long a member waits for its watch to reach a revision before it
	// gives its lease up and lets the writer go on.
	ackWait = time.Second
	// ackTimeout bounds a writer's request for an ack: the member answers within
	// ackWait unless it hangs.
	ackTimeout = ackWait + time.Second
	// ackRetry is the pause between a writer's attempts to reach a member that did
	// not answer, until it answers or its record is gone.
	ackRetry = 50 * time.Millisecond
	// leaseMargin is how long before its cluster lease runs out, by its own clock, a
	// member stops holding: etcd counts the TTL from its own renewal, which the
	// member hears of a little later, and clocks run at slightly different rates.
	leaseMargin = 500 * time.Millisecond
	// withdrawAfter is how long a writer tries to reach a member holding a lease that
	// etcd still renews before it withdraws the member's acks (withdraw): a member the
	// others cannot reach must not hold every write.
	withdrawAfter = 2 * time.Second
	// withdrawFence is how long a writer waits once it withdrew a member's acks: the
	// member's watch hears of it within readLeaseFresh while it holds (Holding), and a
	// tenth more for the members' clocks running at slightly different rates.
	withdrawFence = readLeaseFresh + readLeaseFresh/10
	// reofferFirst and reofferMax bound the pause before a member whose acks were
	// withdrawn offers them again (doubling each time).
	reofferFirst = 5 * time.Second
	reofferMax   = time.Minute
	// reofferReset: a withdrawal that comes this long after the member last took its
	// lease starts the pauses again at reofferFirst.
	reofferReset = 10 * time.Minute
	// readLeaseFresh is how recent the store's watch's catch-up with etcd must be for
	// the member to hold (persistence.WatchClock): a member of an earlier release
	// that joins is seen within it.
	readLeaseFresh = 500 * time.Millisecond
)

// leaseStore is what read leases need of the cluster's store (persistence.Etcd).
type leaseStore interface {
	// Seen returns once the watch told its watchers of every write up to rev.
	Seen(ctx context.Context, rev int64) error
	// CatchUp returns after one catch-up round that began after it was called.
	CatchUp(ctx context.Context) error
	// WatchedThrough is persistence.WatchClock's.
	WatchedThrough() (time.Time, uint64)
	// Watch is persistence.Store's: fn hears of every write of a key under prefix
	// before WatchedThrough passes it.
	Watch(prefix []byte, fn func(key []byte))
}

// ReadLease is a member's read leases: its own (Holding, and the acks it answers
// other members' writes with) and its writes' waits for the others' (Settle). It
// implements persistence.Readers.
type ReadLease struct {
	c     *Cluster
	store leaseStore

	// mu orders a release against a promotion that began before it.
	mu        sync.Mutex
	holding   atomic.Bool
	gen       uint64 // counts releases
	promoting bool
	offered   bool          // its record announces acks (as this member last put it)
	reoffer   time.Duration // the pause before the next offer after a withdrawal
	heldAt    time.Time     // when it last took its lease

	peersMu sync.Mutex
	peers   map[int64]*peerAcks // by lease
	// byRecord is what peerOf made of each member record it read, nil for a record
	// writes do not wait for.
	byRecord map[string]*peerAcks
	// client asks the other members for acks, from the member's first write on
	// (before it serves them itself).
	client *peerClient

	releases atomic.Uint64
}

// StartReadLease makes this member's writes wait for the members holding read leases;
// pass it to the store's SetReaders before the member writes. The member itself holds
// one once it serves the other members (Serve).
func (c *Cluster) StartReadLease(store leaseStore) *ReadLease {
	l := &ReadLease{c: c, store: store, peers: map[int64]*peerAcks{}, byRecord: map[string]*peerAcks{},
		client: newPeerClient(16)}
	c.mu.Lock()
	c.readLease = l
	c.mu.Unlock()
	// A write of this member's record by another member withdraws its acks: the lease
	// is given up before the watch moves past that write, and taken again only while
	// the record still announces acks (promote).
	own := string(c.MemberKey())
	store.Watch([]byte(own), func(key []byte) {
		if string(key) == own {
			l.release("")
		}
	})
	return l
}

// Prefix implements persistence.Readers: the members' records.
func (l *ReadLease) Prefix() string { return "members/" }

// Holding implements persistence.Readers.
func (l *ReadLease) Holding() bool {
	if !l.holding.Load() {
		return false
	}
	c := l.c
	if c.lost.Load() || c.unsure.Load() || time.Now().UnixNano() >= c.validUntil.Load()-int64(leaseMargin) {
		return false
	}
	if at, _ := l.store.WatchedThrough(); at.IsZero() || time.Since(at) > readLeaseFresh {
		return false
	}
	all, _ := c.Maintained(ReadLeaseFeature)
	return all
}

// offer announces that this member answers acks (its record's Acks), then takes its
// lease after a catch-up. Serve calls it once the member answers other members.
func (l *ReadLease) offer() {
	c := l.c
	// The others will ask on the address the record gives: one this member cannot
	// reach itself on (a wildcard address, a wrong port) would hold every write.
	c.mu.RLock()
	self := c.self
	c.mu.RUnlock()
	if err := l.askSeen(self, 0); err != nil {
		c.log.Error("member does not answer on its own cluster address: it holds no read lease, and its reads catch up with etcd each (set --cluster-addr to the address the other members reach it on)",
			zap.String("addr", self.Addr), zap.Error(err))
		return
	}
	c.mu.Lock()
	c.self.Acks = true
	rec, _ := json.Marshal(c.self)
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(c.runCtx, c.opts.RequestTimeout)
	_, err := c.cli.Put(ctx, c.memberKey(c.opts.Name), string(rec), clientv3.WithLease(c.lease))
	cancel()
	if err != nil {
		c.log.Warn("member could not announce its read lease: its reads catch up with etcd each", zap.Error(err))
		return
	}
	l.mu.Lock()
	l.offered = true
	l.mu.Unlock()
	l.release("") // not held yet: take it after a catch-up
}

// release gives the lease up (why, when not empty, is logged) and takes it again after
// a catch-up that begins after the release.
func (l *ReadLease) release(why string) {
	l.mu.Lock()
	l.gen++
	held := l.holding.Swap(false)
	start := !l.promoting
	l.promoting = true
	l.mu.Unlock()
	if why != "" {
		l.releases.Add(1)
		if held { // once per lease: a watch that keeps lagging would flood the log
			l.c.log.Warn("member gave its read lease up: its reads catch up with etcd until it takes it again", zap.String("why", why))
		}
	}
	if start {
		go l.promote()
	}
}

// promote takes the lease after a catch-up round that began after the last release,
// if the member's record still announces acks then: another member may have withdrawn
// them (withdraw), and then the member offers them again later.
func (l *ReadLease) promote() {
	ctx := l.c.runCtx
	for ctx.Err() == nil {
		l.mu.Lock()
		gen := l.gen
		l.mu.Unlock()
		rctx, cancel := context.WithTimeout(ctx, l.c.opts.RequestTimeout)
		err := l.store.CatchUp(rctx)
		var acks bool
		if err == nil {
			acks, err = l.announced(rctx)
		}
		cancel()
		if err != nil {
			pauseFor(ctx, ackRetry)
			continue
		}
		l.mu.Lock()
		if l.gen != gen {
			l.mu.Unlock()
			continue // released meanwhile: catch up again
		}
		l.promoting = false
		if acks {
			l.holding.Store(true)
			l.heldAt = time.Now()
			l.mu.Unlock()
			return
		}
		withdrawn := l.offered // else it has not offered them yet: offer does
		l.offered = false
		if withdrawn {
			if time.Since(l.heldAt) > reofferReset {
				l.reoffer = 0 // the last withdrawal is long past: start again short
			}
			l.reoffer = min(max(2*l.reoffer, reofferFirst), reofferMax)
		}
		pause := l.reoffer
		l.mu.Unlock()
		if withdrawn {
			l.c.log.Warn("another member withdrew this member's read lease: it could not reach it; offering it again later",
				zap.Duration("in", pause))
			go func() {
				if pauseFor(ctx, pause); ctx.Err() == nil {
					l.offer()
				}
			}()
		}
		return
	}
	l.mu.Lock()
	l.promoting = false
	l.mu.Unlock()
}

// announced reads whether the member's record, under its lease, announces acks.
func (l *ReadLease) announced(ctx context.Context) (bool, error) {
	c := l.c
	resp, err := c.cli.Get(ctx, c.memberKey(c.opts.Name))
	if err != nil || len(resp.Kvs) == 0 {
		return false, err
	}
	var m memberRecord
	if json.Unmarshal(resp.Kvs[0].Value, &m) != nil {
		return false, nil
	}
	return m.Acks && m.Lease == int64(c.lease), nil
}

// Settle implements persistence.Readers.
func (l *ReadLease) Settle(ctx context.Context, rev int64, recs [][]byte) error {
	var wait []*peerAcks
	for _, b := range recs {
		if p := l.peerOf(b); p != nil && p.confirmed.Load() < rev {
			wait = append(wait, p)
		}
	}
	switch len(wait) {
	case 0:
		return nil
	case 1:
		return wait[0].seen(ctx, rev)
	}
	errs := make(chan error, len(wait))
	for _, p := range wait {
		go func() { errs <- p.seen(ctx, rev) }()
	}
	var first error
	for range wait {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// maxRecords bounds ReadLease.byRecord: records change when members come, go or
// announce acks, so it holds a few; past it, it starts again empty.
const maxRecords = 256

// peerOf is the acks state of the member whose record is rec, nil when writes do not
// wait for it (it does not answer acks, it is this member, or rec is unreadable). Every
// write reads the same few records: each is decoded once.
func (l *ReadLease) peerOf(rec []byte) *peerAcks {
	l.peersMu.Lock()
	defer l.peersMu.Unlock()
	if p, ok := l.byRecord[string(rec)]; ok {
		return p
	}
	var m memberRecord
	var p *peerAcks
	// This member's own watchers heard of the write before it returns.
	if json.Unmarshal(rec, &m) == nil && m.Acks && m.Lease != int64(l.c.lease) {
		if p = l.peers[m.Lease]; p == nil || p.raw != string(rec) {
			p = &peerAcks{l: l, m: m, raw: string(rec)}
			l.peers[m.Lease] = p
		}
	}
	if len(l.byRecord) >= maxRecords {
		clear(l.byRecord)
	}
	l.byRecord[string(rec)] = p
	return p
}

// forget drops the acks state of a member that left.
func (l *ReadLease) forget(m memberRecord) {
	l.peersMu.Lock()
	delete(l.peers, m.Lease)
	clear(l.byRecord)
	l.peersMu.Unlock()
}

// peerAcks asks one member for acks: the writers waiting on it share its requests, at
// most one in flight, each for the highest revision asked when it starts.
type peerAcks struct {
	l         *ReadLease
	m         memberRecord
	raw       string       // the record as read: withdraw replaces exactly it
	confirmed atomic.Int64 // the highest revision the member confirmed

	mu      sync.Mutex
	running *ackRound // the request in flight, nil when none
	next    *ackRound // the request that starts after it
}

// ackRound is one request for an ack; err is known once done is closed.
type ackRound struct {
	done   chan struct{}
	target int64
	err    error
}

// seen returns once the member confirmed rev (or a later revision), or left.
func (p *peerAcks) seen(ctx context.Context, rev int64) error {
	var failing time.Time
	for p.confirmed.Load() < rev {
		r := p.join(rev)
		select {
		case <-r.done:
		case <-ctx.Done():
			return fmt.Errorf("member %s did not confirm revision %d: %w", p.m.Name, rev, ctx.Err())
		}
		if r.err == nil {
			failing = time.Time{}
			continue
		}
		if p.l.c.gone(p.m) {
			return nil // its lease ended: it holds no read lease any more
		}
		if failing.IsZero() {
			failing = time.Now()
		} else if time.Since(failing) >= withdrawAfter {
			if err := p.withdraw(ctx); err == nil {
				return nil
			}
		}
		pauseFor(ctx, ackRetry)
	}
	return nil
}

// withdraw makes the member's record say it answers no acks, under its own lease and
// only if it is still the record the writes read, then waits withdrawFence: by then
// the member, if it still held its lease, heard of the change and gave the lease up
// (its watch is recent while it holds), and the writes after it do not wait for it.
// A record that changed meanwhile (the member offered again, and caught up after; or
// another writer withdrew it first, or the lease ended) needs only the fence.
func (p *peerAcks) withdraw(ctx context.Context) error {
	c := p.l.c
	m := p.m
	m.Acks = false
	rec, err := json.Marshal(m)
	if err != nil {
		return err
	}
	key := c.memberKey(m.Name)
	tctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	resp, err := c.cli.Txn(tctx).If(clientv3.Compare(clientv3.Value(key), "=", p.raw)).
		Then(clientv3.OpPut(key, string(rec), clientv3.WithLease(clientv3.LeaseID(m.Lease)))).Commit()
	cancel()
	if err != nil && !isLeaseNotFound(err) {
		return err
	}
	if err == nil && resp.Succeeded {
		c.log.Warn("a member holding a read lease did not answer: its acks are withdrawn, so that writes go on; it offers them again later",
			zap.String("member", m.Name), zap.String("addr", m.Addr))
	}
	pauseFor(ctx, withdrawFence)
	return ctx.Err()
}

// join returns the round that answers rev: the one in flight if it asks for rev or
// later, else the next one, started now when none is in flight.
func (p *peerAcks) join(rev int64) *ackRound {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running != nil && p.running.target >= rev {
		return p.running
	}
	if p.next == nil {
		p.next = &ackRound{done: make(chan struct{})}
	}
	r := p.next
	r.target = max(r.target, rev)
	if p.running == nil {
		p.running, p.next = r, nil
		go p.loop(r)
	}
	return r
}

func (p *peerAcks) loop(r *ackRound) {
	for r != nil {
		r.err = p.l.askSeen(p.m, r.target)
		if r.err == nil && r.target > p.confirmed.Load() {
			p.confirmed.Store(r.target) // only the loop writes it
		}
		close(r.done)
		p.mu.Lock()
		r, p.next = p.next, nil
		p.running = r
		p.mu.Unlock()
	}
}

// gone reports whether m's record is no longer in the member list (its lease ended).
func (c *Cluster) gone(m memberRecord) bool {
	cur, ok := c.memberNamed(m.Name)
	return !ok || cur.Lease != m.Lease
}

// memberNamed is the record of the live member of that name, if there is one.
func (c *Cluster) memberNamed(name string) (memberRecord, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	m, ok := c.members[name]
	return m, ok
}

// askSeen asks member m to confirm that its watch reached rev.
func (l *ReadLease) askSeen(m memberRecord, rev int64) error {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	l.c.peerRequest(req, m.Addr, seenPath)
	req.Header.Set(revisionHeader, strconv.FormatInt(rev, 10))
	if err := l.client.do(req, resp, time.Now().Add(ackTimeout)); err != nil {
		return err
	}
	if resp.StatusCode() != fasthttp.StatusOK {
		return fmt.Errorf("member %s answered %d", m.Name, resp.StatusCode())
	}
	return nil
}

// handleSeen answers a writer's request for an ack: once the watch reached the
// revision, or, when it does not within ackWait, after giving the lease up.
func (t *transport) handleSeen(ctx *fasthttp.RequestCtx) {
	t.c.mu.RLock()
	l := t.c.readLease
	t.c.mu.RUnlock()
	rev, err := strconv.ParseInt(string(ctx.Request.Header.Peek(revisionHeader)), 10, 64)
	if l == nil || err != nil {
		ctx.SetStatusCode(fasthttp.StatusBadRequest)
		return
	}
	wctx, cancel := context.WithTimeout(context.Background(), ackWait)
	err = l.store.Seen(wctx, rev)
	cancel()
	ctx.SetContentType("text/plain; charset=utf-8")
	if err != nil {
		l.release(fmt.Sprintf("its watch did not reach revision %d within %s: %v", rev, ackWait, err))
		ctx.SetBodyString("released")
		return
	}
	ctx.SetBodyString("seen")
}
