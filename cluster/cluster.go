// Package cluster makes a vmplane process a member of a cluster whose state lives in
// etcd. A member holds a lease (renewed while it lives, gone seconds after it dies)
// and registers itself under it; every entity it activates is claimed in etcd under
// that same lease, so each entity is active on exactly one member and a dead member's
// claims vanish with its lease. Requests for an entity claimed elsewhere are forwarded
// to its owner over the members' own HTTP listener (transport.go).
//
// It implements kit.Placement; the runtime asks it before each request, and no domain
// package knows it exists. The writes of a member are fenced by its lease (the etcd
// store compares it in every transaction), so a member that was paused past its lease
// cannot write after it resumes: it is told it lost its lease (Options.Lost) and must
// exit so its supervisor restarts it with a new one.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
)

// DefaultLeaseTTL is a member's lease: how long after its death its entities move.
// etcd's floor is about 2 s; 3 s leaves room for a slow keepalive on a busy machine.
const DefaultLeaseTTL = 3 * time.Second

// takeoverReport is how long after a member left this one reports what it took over.
const takeoverReport = 10 * time.Second

// closeGrace is how long after a member left this one closes the connections to it
// that requests still wait on (closeTo): long enough for the answers of a member that
// left gracefully to be read (TestClusterGracefulLeaveLosesNoRequest passed 10 of 10
// runs beside three CPU spinners at 0.3 s, failed 2 of 8 with none), short enough that
// a paused member's forwards end about when its entities move.
const closeGrace = 300 * time.Millisecond

// resyncRetryMin and resyncRetryMax bound the pause between two reads of the member list
// after a compaction.
const (
	resyncRetryMin = 100 * time.Millisecond
	resyncRetryMax = 2 * time.Second
)

// Options configure a member.
type Options struct {
	// Client is the etcd client the member uses; the caller closes it.
	Client *clientv3.Client
	// Prefix is put before every key (the store's prefix: one etcd serves several
	// installations).
	Prefix string
	// Name is the member's node name, unique in the cluster and stable across restarts.
	Name string
	// Addr is the host:port this member serves other members on, as they reach it.
	Addr string
	// LeaseTTL is the member's lease (DefaultLeaseTTL when zero).
	LeaseTTL time.Duration
	// RequestTimeout bounds each etcd call (3 s when zero).
	RequestTimeout time.Duration
	// Log is the member's logger.
	Log *zap.Logger
	// Lost is called once when the member's lease is gone while it runs: it can no
	// longer write, and should exit so that it restarts as a new member.
	Lost func()
	// Maintains names what this member keeps that members of an earlier release do
	// not ("usage-counters"): it announces them in its record, and Maintained tells
	// whether every live member does.
	Maintains []string
}

// memberRecord is what a member registers under members/<name>.
type memberRecord struct {
	Name    string    `json:"name"`
	Addr    string    `json:"addr"`
	Lease   int64     `json:"lease"`
	Started time.Time `json:"started"`
	// Maintains is Options.Maintains; a member of a release before it has none.
	Maintains []string `json:"maintains,omitempty"`
	// Acks is set once the member answers writers' requests for acks and may hold a
	// read lease (readlease.go): writers wait for it.
	Acks bool `json:"acks,omitempty"`
}

// Cluster is this process's membership.
type Cluster struct {
	opts   Options
	cli    *clientv3.Client
	prefix string
	log    *zap.Logger
	lease  clientv3.LeaseID
	secret string
	self   memberRecord

	mu      sync.RWMutex
	members map[string]memberRecord // live members by name, self included
	owners  map[string]owner        // kind/id → its owner, as last seen
	owned   map[string]int64        // kind/id claimed by this member → the claim's revision
	// orphans are entities this member knew a departed member held: claiming one is
	// a takeover.
	orphans map[string]struct{}

	onLeft    []func(context.Context, kit.Member)
	claims    atomic.Uint64
	takeovers atomic.Uint64
	// lacking counts the arrivals of members whose record lacks one of what this one
	// maintains (Maintained).
	lacking  atomic.Uint64
	lostOnce sync.Once
	lost     atomic.Bool
	// validUntil (unix nanoseconds) is when the lease ends unless renewed: until then
	// no other member can take this member's entities. Past it, the member cannot tell
	// whether they moved (it was paused, or cut off), so it serves none of them.
	validUntil atomic.Int64
	// unsure is set while etcd does not answer the lease's keepalive: whether the
	// lease survives is known only once etcd answers again.
	unsure atomic.Bool
	// departing is set once Depart began: the lease is being given up on purpose, so
	// its end is no loss to report.
	departing atomic.Bool
	runCtx    context.Context
	cancel    context.CancelFunc
	done      sync.WaitGroup
	transport *transport
	// readLease, when started, is the member's read leases (readlease.go).
	readLease *ReadLease
}

// owner is a claim as read from etcd: the member's name and lease.
type owner struct {
	name  string
	lease clientv3.LeaseID
}

// Join registers this process as a member. A record left under the same name by a
// previous run of this member (killed before its lease ran out) is taken over: its
// lease is revoked, so its claims are released at once rather than after the TTL.
func Join(opts Options) (*Cluster, error) {
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	opts.RequestTimeout, opts.Log = withDefaults(opts.RequestTimeout, opts.Log)
	if opts.Name == "" || opts.Addr == "" {
		return nil, errors.New("cluster: a member needs a name and an address")
	}
	c := &Cluster{opts: opts, cli: opts.Client, prefix: opts.Prefix, log: opts.Log,
		members: map[string]memberRecord{}, owners: map[string]owner{}, owned: map[string]int64{},
		orphans: map[string]struct{}{}}
	ctx, cancel := context.WithTimeout(context.Background(), opts.RequestTimeout)
	defer cancel()

	if err := c.retirePrevious(ctx); err != nil {
		return nil, err
	}
	lease, err := c.cli.Grant(ctx, int64((opts.LeaseTTL+time.Second-1)/time.Second))
	if err != nil {
		return nil, fmt.Errorf("cluster: grant lease: %w", err)
	}
	c.lease = lease.ID
	secret, err := c.sharedSecret(ctx)
	if err != nil {
		return nil, err
	}
	c.secret = secret
	c.self = memberRecord{Name: opts.Name, Addr: opts.Addr, Lease: int64(c.lease), Started: time.Now().UTC(), Maintains: opts.Maintains}
	rec, _ := json.Marshal(c.self)
	if _, err := c.cli.Put(ctx, c.memberKey(opts.Name), string(rec), clientv3.WithLease(c.lease)); err != nil {
		return nil, fmt.Errorf("cluster: register member: %w", err)
	}
	// The member list as of now, then every change after it: no gap.
	resp, err := c.cli.Get(ctx, c.prefix+"members/", clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("cluster: read members: %w", err)
	}
	for _, kv := range resp.Kvs {
		var m memberRecord
		if json.Unmarshal(kv.Value, &m) == nil {
			c.members[m.Name] = m
			c.arrived(m)
		}
	}
	runCtx, runCancel := context.WithCancel(context.Background())
	c.runCtx, c.cancel = runCtx, runCancel
	c.renewed(lease.TTL)
	keep, err := c.cli.KeepAlive(runCtx, c.lease)
	if err != nil {
		runCancel()
		return nil, fmt.Errorf("cluster: keep lease alive: %w", err)
	}
	c.done.Add(2)
	go c.keepAlive(runCtx, keep)
	go c.watchMembers(runCtx, resp.Header.Revision+1)
	c.log.Info("member joined the cluster", zap.String("node", opts.Name), zap.String("addr", opts.Addr),
		zap.Int("members", len(c.members)), zap.String("lease", fmt.Sprintf("%x", c.lease)))
	return c, nil
}

// retirePrevious revokes the lease of an earlier run of this member, if its record is
// still there.
func (c *Cluster) retirePrevious(ctx context.Context) error {
	resp, err := c.cli.Get(ctx, c.memberKey(c.opts.Name))
	if err != nil {
		return fmt.Errorf("cluster: read own member record: %w", err)
	}
	if len(resp.Kvs) == 0 {
		return nil
	}
	var prev memberRecord
	if json.Unmarshal(resp.Kvs[0].Value, &prev) != nil {
		return nil
	}
	// If two members were configured with one name they would retire each other in
	// turn: the log line says so.
	c.log.Warn("a member with this node name was still registered: taking over its entities (a previous run that did not stop cleanly; if another live process has this name, give each member its own)",
		zap.String("node", prev.Name), zap.String("addr", prev.Addr))
	if _, err := c.cli.Revoke(ctx, clientv3.LeaseID(prev.Lease)); err != nil && !isLeaseNotFound(err) {
		return fmt.Errorf("cluster: release the previous run's lease: %w", err)
	}
	return nil
}

// sharedSecret returns the key members authenticate each other's requests with,
// created by the first member that needs it.
func (c *Cluster) sharedSecret(ctx context.Context) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	key := c.prefix + "cluster/secret"
	resp, err := c.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, hex.EncodeToString(b))).
		Else(clientv3.OpGet(key)).Commit()
	if err != nil {
		return "", fmt.Errorf("cluster: shared secret: %w", err)
	}
	if resp.Succeeded {
		return hex.EncodeToString(b), nil
	}
	return string(resp.Responses[0].GetResponseRange().Kvs[0].Value), nil
}

// keepAlive renews the lease until ctx ends. The client closes the channel when the
// lease is gone, and also when etcd did not answer for a whole TTL (an outage, a
// partition): then whether the lease survived is asked of etcd until it answers, and
// renewal resumes if it did. Only a lease etcd no longer has is lost.
func (c *Cluster) keepAlive(ctx context.Context, keep <-chan *clientv3.LeaseKeepAliveResponse) {
	defer c.done.Done()
	defer kit.Recover(c.log, "cluster lease keepalive", nil)
	for {
		for r := range keep {
			c.renewed(r.TTL)
		}
		if ctx.Err() != nil {
			return
		}
		c.unsure.Store(true)
		alive := c.leaseAlive(ctx)
		c.unsure.Store(false)
		if !alive {
			if ctx.Err() == nil {
				c.lose("etcd no longer has its lease")
			}
			return
		}
		var err error
		if keep, err = c.cli.KeepAlive(ctx, c.lease); err != nil {
			if ctx.Err() == nil {
				c.lose("its lease could not be renewed: " + err.Error())
			}
			return
		}
	}
}

// leaseAlive asks etcd, until it answers or ctx ends, whether the member's lease
// still exists.
func (c *Cluster) leaseAlive(ctx context.Context) bool {
	warned := false
	for ctx.Err() == nil {
		rctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
		ttl, err := c.cli.TimeToLive(rctx, c.lease)
		cancel()
		switch {
		case err == nil:
			if ttl.TTL > 0 && warned {
				c.log.Info("etcd answers again: the member's lease survived", zap.String("node", c.opts.Name))
			}
			return ttl.TTL > 0
		case isLeaseNotFound(err):
			return false
		case !warned:
			warned = true
			c.log.Warn("lost contact with etcd: the member serves reads it can, refuses writes, and renews its lease when etcd answers",
				zap.String("node", c.opts.Name), zap.Error(err))
		}
		pauseFor(ctx, 500*time.Millisecond)
	}
	return false
}

// lose reports once that the member's lease is gone.
func (c *Cluster) lose(why string) {
	if c.departing.Load() {
		return // Depart revoked the lease: the member is stopping anyway
	}
	c.lostOnce.Do(func() {
		c.lost.Store(true)
		c.log.Error("member lost its cluster lease: it can no longer write and must restart as a new member",
			zap.String("node", c.opts.Name), zap.String("why", why))
		if c.opts.Lost != nil {
			c.opts.Lost()
		}
	})
}

// Fenced is what the store calls when a write failed because the member's lease is
// gone.
func (c *Cluster) Fenced() { c.lose("a write was refused: the lease is no longer valid") }

// watchMembers keeps the member list current from rev on and reports arrivals and
// departures.
func (c *Cluster) watchMembers(ctx context.Context, rev int64) {
	defer c.done.Done()
	defer kit.Recover(c.log, "cluster member watch", nil)
	prefix := c.prefix + "members/"
	for ctx.Err() == nil {
		wch := c.cli.Watch(clientv3.WithRequireLeader(ctx), prefix, clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithPrevKV())
		for resp := range wch {
			if resp.CompactRevision != 0 {
				// History is gone: re-read the list and go on from there.
				rev = c.resync(ctx)
				break
			}
			if err := resp.Err(); err != nil {
				break
			}
			for _, ev := range resp.Events {
				c.memberEvent(ev)
			}
			rev = resp.Header.Revision + 1
		}
		if ctx.Err() == nil {
			pauseFor(ctx, 200*time.Millisecond)
		}
	}
}

// resync re-reads the member list after a watch lost its history and returns the
// revision to watch from. A read that fails is tried again, with a growing pause, until
// it succeeds or the member stops (then it returns 0): watching from the present without
// the read would miss every departure in the lost history for good.
func (c *Cluster) resync(ctx context.Context) int64 {
	pause := resyncRetryMin
	for failures := 0; ; failures++ {
		rctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
		resp, err := c.cli.Get(rctx, c.prefix+"members/", clientv3.WithPrefix())
		cancel()
		if err == nil {
			if failures > 0 {
				c.log.Info("member list read again after etcd compacted its history", zap.Int("attempts", failures+1))
			}
			return c.replaceMembers(resp)
		}
		if ctx.Err() != nil {
			return 0
		}
		if failures == 0 {
			c.log.Warn("cannot read the member list after etcd compacted its history; retrying", zap.Error(err))
		}
		pauseFor(ctx, pause)
		pause = min(2*pause, resyncRetryMax)
	}
}

// replaceMembers makes resp the member list and reports the members that left meanwhile;
// it returns the revision to watch from.
func (c *Cluster) replaceMembers(resp *clientv3.GetResponse) int64 {
	now := map[string]memberRecord{}
	for _, kv := range resp.Kvs {
		var m memberRecord
		if json.Unmarshal(kv.Value, &m) == nil {
			now[m.Name] = m
			c.arrived(m)
		}
	}
	c.mu.Lock()
	old := c.members
	c.members = now
	c.mu.Unlock()
	for name, m := range old {
		if n, ok := now[name]; !ok || n.Lease != m.Lease {
			c.left(m)
		}
	}
	return resp.Header.Revision + 1
}

// memberEvent applies one change of the member list.
func (c *Cluster) memberEvent(ev *clientv3.Event) {
	if ev.Type == clientv3.EventTypePut {
		var m memberRecord
		if json.Unmarshal(ev.Kv.Value, &m) != nil {
			return
		}
		c.arrived(m)
		c.mu.Lock()
		prev, had := c.members[m.Name]
		c.members[m.Name] = m
		c.mu.Unlock()
		if had && prev.Lease != m.Lease {
			c.left(prev)
		}
		if !had || prev.Lease != m.Lease {
			c.log.Info("member joined", zap.String("member", m.Name), zap.String("addr", m.Addr))
		}
		return
	}
	if ev.PrevKv == nil {
		return
	}
	var m memberRecord
	if json.Unmarshal(ev.PrevKv.Value, &m) != nil {
		return
	}
	c.mu.Lock()
	cur, ok := c.members[m.Name]
	if ok && cur.Lease == m.Lease {
		delete(c.members, m.Name)
	}
	c.mu.Unlock()
	if m.Name == c.opts.Name && m.Lease == int64(c.lease) {
		c.lose("its member record was removed")
		return
	}
	c.left(m)
}

// arrived counts m when it lacks something this member maintains. It is called
// before m is in the list, so that a reader of Maintained that sees the list without
// m has not missed its count.
func (c *Cluster) arrived(m memberRecord) {
	if !maintainsAll(m, c.opts.Maintains) {
		c.lacking.Add(1)
	}
}

func maintainsAll(m memberRecord, what []string) bool {
	for _, w := range what {
		if !slices.Contains(m.Maintains, w) {
			return false
		}
	}
	return true
}

// Maintained reports whether every live member announces what (Options.Maintains), and
// how many member records lacking something this member maintains it has seen arrive
// since it joined: a reader that gets the same count twice knows no such member came
// and went between.
func (c *Cluster) Maintained(what string) (all bool, lacking uint64) {
	lacking = c.lacking.Load()
	c.mu.RLock()
	defer c.mu.RUnlock()
	for _, m := range c.members {
		if !slices.Contains(m.Maintains, what) {
			return false, lacking
		}
	}
	return true, lacking
}

// left forgets what a departed member owned and tells the listeners.
func (c *Cluster) left(m memberRecord) {
	c.mu.Lock()
	var orphans []string
	for key, o := range c.owners {
		if o.lease == clientv3.LeaseID(m.Lease) {
			delete(c.owners, key)
			c.orphans[key] = struct{}{}
			orphans = append(orphans, key)
		}
	}
	listeners := slices.Clone(c.onLeft)
	l := c.readLease
	c.mu.Unlock()
	if l != nil {
		l.forget(m)
	}
	// No request goes to m any more: the connections kept alive to it close now,
	// before m closes them, which would race a request sent on one; and, closeGrace
	// later, those that requests still wait on, which a member that hangs would hold
	// until their deadline. Not at once: a member that left gracefully answered
	// every request it took before its lease ended, and an answer may still be on
	// its way here (TestClusterGracefulLeaveLosesNoRequest saw two of 140 cut so).
	c.closeIdle()
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		if pauseFor(c.runCtx, closeGrace); c.runCtx.Err() == nil {
			c.closeTo(m)
		}
	}()
	c.log.Warn("member left the cluster: its entities move to the others", zap.String("member", m.Name),
		zap.String("addr", m.Addr), zap.Int("entities_known_here", len(orphans)))
	before := c.takeovers.Load()
	c.done.Add(1)
	go func() {
		// One line once the move has settled: how many of the departed member's
		// entities this member took.
		defer c.done.Done()
		if pauseFor(c.runCtx, takeoverReport); c.runCtx.Err() == nil {
			c.log.Info("took over entities of the member that left", zap.String("member", m.Name),
				zap.Uint64("entities", c.takeovers.Load()-before))
		}
		c.mu.Lock()
		for _, key := range orphans {
			delete(c.orphans, key)
		}
		c.mu.Unlock()
	}()
	if c.runCtx.Err() != nil {
		return // leaving: no listener starts that Leave would have to wait for
	}
	for _, fn := range listeners {
		// Tracked like the member's own goroutines (the caller is one of them, so the
		// count is not zero here): Leave waits for the listeners.
		c.done.Add(1)
		go func() {
			defer c.done.Done()
			defer kit.Recover(c.log, "member left listener", nil)
			fn(c.runCtx, kit.Member{Name: m.Name, Addr: m.Addr})
		}()
	}
}

// OnMemberLeft registers fn to run (on its own goroutine) after a member left: the
// composition root wakes the entities that run on their own (schedules, health
// checks, machines with a task in flight), so that the dead member's move here or to
// another member. ctx ends when this member leaves; fn must return then, since Leave
// waits for the listeners that run.
func (c *Cluster) OnMemberLeft(fn func(ctx context.Context, m kit.Member)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onLeft = append(c.onLeft, fn)
}

// renewed records that etcd renewed the lease for ttl seconds from now.
func (c *Cluster) renewed(ttl int64) {
	c.validUntil.Store(time.Now().Add(time.Duration(ttl) * time.Second).UnixNano())
}

// leaseValid reports whether the lease is known to last until now.
func (c *Cluster) leaseValid() bool { return time.Now().UnixNano() < c.validUntil.Load() }

// Lost reports whether the member lost its lease: it can no longer write, and its
// health is degraded until it restarts.
func (c *Cluster) Lost() bool { return c.lost.Load() }

// The member's lease as LeaseStatus reports it.
const (
	// LeaseHeld: etcd renewed the lease within its TTL.
	LeaseHeld = "held"
	// LeaseUnconfirmed: etcd did not renew the lease within its TTL (it is away, or
	// hangs), or has not said yet whether it survived an outage. Another member may hold
	// this member's entities by now, so it serves none of them.
	LeaseUnconfirmed = "unconfirmed"
	// LeaseLost: etcd no longer has the lease; the member must restart.
	LeaseLost = "lost"
)

// LeaseStatus reports the member's lease from what the member knows (when etcd last
// renewed it), without asking etcd: LeaseHeld, LeaseUnconfirmed or LeaseLost.
func (c *Cluster) LeaseStatus() string {
	switch {
	case c.lost.Load():
		return LeaseLost
	case c.unsure.Load() || !c.leaseValid():
		return LeaseUnconfirmed
	}
	return LeaseHeld
}

// Lease is the member's lease, which the store fences every write with.
func (c *Cluster) Lease() clientv3.LeaseID { return c.lease }

// MemberKey is the key of this member's record (under the prefix), the store's fence.
func (c *Cluster) MemberKey() []byte { return []byte("members/" + c.opts.Name) }

// Name is the member's node name.
func (c *Cluster) Name() string { return c.opts.Name }

// MemberStatus is one member as /api/health shows it.
type MemberStatus struct {
	Name   string `json:"name"`
	Addr   string `json:"addr"`
	Status string `json:"status" openapi:"enum=alive"`
}

// Members lists the live members by name.
func (c *Cluster) Members() []MemberStatus {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]MemberStatus, 0, len(c.members))
	for _, name := range slices.Sorted(maps.Keys(c.members)) {
		m := c.members[name]
		out = append(out, MemberStatus{Name: m.Name, Addr: m.Addr, Status: "alive"})
	}
	return out
}

// Stats are the member's figures for /metrics.
type Stats struct {
	// Members is how many members are alive, this one included.
	Members int
	// Owned is how many entities this member holds.
	Owned int
	// Claims counts the entities this member claimed; Takeovers those of them a
	// departed member held.
	Claims, Takeovers uint64
	// ReadLease is whether the member holds its read lease now (readlease.go);
	// ReadLeaseReleases counts the times it gave it up because its watch lagged.
	ReadLease         bool
	ReadLeaseReleases uint64
}

// Stats reports the member's figures.
func (c *Cluster) Stats() Stats {
	c.mu.RLock()
	st := Stats{Members: len(c.members), Owned: len(c.owned), Claims: c.claims.Load(), Takeovers: c.takeovers.Load()}
	l := c.readLease
	c.mu.RUnlock()
	if l != nil { // Holding reads the member list: not under the lock
		st.ReadLease, st.ReadLeaseReleases = l.Holding(), l.releases.Load()
	}
	return st
}

// Depart hands this member's entities over to the others before it stops, in an
// order that loses no request forwarded to it: first it refuses new forwarded requests
// with the not-delivered answer (their senders look the owner up again and retry) and
// waits, until ctx ends, for those it is serving; then it revokes its lease, which
// releases every claim at once, so that the senders' next look finds no owner and
// claims the entity themselves. From then on this member serves no entity, and any
// write it still attempts (actors not stopped yet) fails its fence instead of landing
// after the others took over. Call it before stopping the runtime's entities, and
// Leave after.
func (c *Cluster) Depart(ctx context.Context) {
	if !c.departing.CompareAndSwap(false, true) {
		return
	}
	c.mu.RLock()
	t := c.transport
	c.mu.RUnlock()
	if t != nil && !t.refuse(ctx) {
		c.log.Warn("member departs with forwarded requests still running: they end with the lease", zap.String("node", c.opts.Name))
	}
	// Local and Place stop answering for this member's entities at once, before etcd
	// confirms the revocation.
	c.validUntil.Store(0)
	c.revoke()
}

// Leave ends the membership: the lease is revoked (unless Depart did it), so every
// entity this member held is released at once and the others take them on their next
// request; the listener for the other members closes. It returns once the member's
// goroutines, OnMemberLeft listeners included, have ended. Call it after the runtime
// has stopped its entities.
func (c *Cluster) Leave() {
	c.departing.Store(true)
	c.validUntil.Store(0)
	if c.transport != nil {
		c.transport.close()
	}
	c.cancel()
	c.revoke()
	c.done.Wait()
	c.log.Info("member left the cluster", zap.String("node", c.opts.Name))
}

// revoke gives up the member's lease; a second call finds it gone.
func (c *Cluster) revoke() {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.RequestTimeout)
	defer cancel()
	if _, err := c.cli.Revoke(ctx, c.lease); err != nil && !isLeaseNotFound(err) {
		c.log.Warn("member could not release its lease: its entities move when it expires", zap.Error(err))
	}
}

func (c *Cluster) memberKey(name string) string { return c.prefix + "members/" + name }

// isLeaseNotFound reports etcd's answer for a lease that no longer exists.
func isLeaseNotFound(err error) bool { return errors.Is(err, rpctypes.ErrLeaseNotFound) }

// defaultRequestTimeout bounds each etcd call of a member and of its event relay.
const defaultRequestTimeout = 3 * time.Second

// withDefaults fills an unset request timeout and logger.
func withDefaults(timeout time.Duration, log *zap.Logger) (time.Duration, *zap.Logger) {
	if timeout <= 0 {
		timeout = defaultRequestTimeout
	}
	if log == nil {
		log = zap.NewNop()
	}
	return timeout, log
}

// pauseFor waits d or until ctx ends.
func pauseFor(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// unavailable is the error a request gets while ownership cannot be read.
func unavailable(err error) error {
	return apierr.New(apierr.ErrUnavailable, "the cluster's store is unreachable: %v", err)
}

// Self names this member and its lease, as the owner of the Idempotency-Key claims of
// the requests it runs (kit.Owners).
func (c *Cluster) Self() string { return fmt.Sprintf("member:%s@%x", c.opts.Name, int64(c.lease)) }

// Gone reports whether the member named by owner (a Self) has lost its lease: etcd no
// longer has it, so every write of that member fails its fence, and nothing it started
// can commit any more (kit.Owners). An owner that names no member lease is gone.
func (c *Cluster) Gone(ctx context.Context, owner string) (bool, error) {
	if owner == c.Self() {
		return false, nil
	}
	at := strings.LastIndexByte(owner, '@')
	if !strings.HasPrefix(owner, "member:") || at < 0 {
		return true, nil
	}
	lease, err := strconv.ParseInt(owner[at+1:], 16, 64)
	if err != nil {
		return true, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.RequestTimeout)
	defer cancel()
	ttl, err := c.cli.TimeToLive(ctx, clientv3.LeaseID(lease))
	switch {
	case isLeaseNotFound(err):
		return true, nil
	case err != nil:
		return false, unavailable(err)
	}
	// etcd answers a TTL of -1 for a lease it no longer has; the member's record, which
	// its every write is fenced on, went with it.
	return ttl.TTL < 0, nil
}
