package persistence

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// How the etcd store keeps WatchedThrough (WatchClock): every etcdFreshEvery it notes
// the time T, reads etcd's current revision R with a linearizable read (so R is at
// least the revision of every write acknowledged before T), and once its watch has
// told the watchers of everything up to R (asking etcd for a progress notification
// when nothing under the prefix moved the watch there), T is the new WatchedThrough.
// A round that takes longer than etcdFreshWait is given up and T stays where it was:
// caches built on it then stop serving, which is safe.
const (
	etcdFreshEvery = 50 * time.Millisecond
	etcdFreshWait  = time.Second
)

var _ WatchClock = (*Etcd)(nil)

// WatchedThrough implements WatchClock.
func (s *Etcd) WatchedThrough() (time.Time, uint64) {
	var at time.Time
	if p := s.fresh.Load(); p != nil {
		at = *p
	}
	// Read after the time: a reset is counted before the watch moves past what it
	// missed, so a time that includes it comes with its count.
	return at, s.resets.Load()
}

// seen records that the watch has told the watchers of every write up to rev.
func (s *Etcd) seen(rev int64) {
	if rev <= s.watchRev.Load() {
		return
	}
	s.watchRev.Store(rev) // only the watch's goroutine writes it
	// Wake every waiter (freshness rounds, CaughtUp rounds): after the store above, so
	// that one that took the channel before this swap finds it closed, and one that
	// takes the new one finds the new revision.
	next := make(chan struct{})
	close(*s.revSeen.Swap(&next))
}

// watchedTo waits until the watch has told the watchers of every write up to target,
// asking etcd for a progress notification when nothing under the prefix moves the
// watch there. ctx must carry the watch's metadata (s.watchCtx), so that the request
// reaches the watch's stream.
func (s *Etcd) watchedTo(ctx context.Context, target int64) error {
	if s.watchRev.Load() >= target {
		return nil
	}
	if err := s.c.RequestProgress(ctx); err != nil {
		return err
	}
	for {
		ch := *s.revSeen.Load()
		if s.watchRev.Load() >= target {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// followFreshness runs the rounds until ctx ends. ctx carries the watch's metadata, so
// that a progress request reaches the watch's stream.
func (s *Etcd) followFreshness(ctx context.Context) {
	t := time.NewTicker(etcdFreshEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.freshRound(ctx)
	}
}

// freshRound is one round: see etcdFreshEvery.
func (s *Etcd) freshRound(ctx context.Context) {
	at := time.Now()
	ctx, cancel := context.WithTimeout(ctx, etcdFreshWait)
	defer cancel()
	resp, err := s.c.Get(ctx, s.prefix+etcdProbeKey, clientv3.WithCountOnly())
	if err != nil {
		return
	}
	if s.watchedTo(ctx, resp.Header.Revision) != nil {
		return
	}
	s.fresh.Store(&at)
}

var _ WatchBarrier = (*Etcd)(nil)

// CaughtUp implements WatchBarrier. Callers share rounds: a round reads etcd's
// revision (linearizable) and waits for the watch to reach it; a caller that comes
// while a round is under way waits for the next one, which starts after it came (the
// revision of the one under way may have been read before a write the caller must
// see was acknowledged). So there is at most one round in flight per store however
// many requests wait, and a caller waits one to two rounds. A request whose context
// carries a CatchUp catches up once: its later calls return at once (catchup.go).
func (s *Etcd) CaughtUp(ctx context.Context) (uint64, error) {
	if s.holding() {
		// A read lease: every write acknowledged so far waited for this member's watch
		// (etcd_readers.go). The count is read after: a reset is counted before the
		// watch moves past what it missed.
		return s.resets.Load(), nil
	}
	return caughtUpOnce(ctx, s, func() (uint64, error) { return s.caughtUp(ctx) })
}

// caughtUp is one caller's wait for a round that starts after it came.
func (s *Etcd) caughtUp(ctx context.Context) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, ctxError(err)
	}
	if !s.gate.enter() {
		return 0, errClosed()
	}
	defer s.gate.leave()
	r := s.caught.join(s.caughtRound)
	select {
	case <-r.done:
		if r.err != nil {
			return 0, s.readError(ctx, "catching up with etcd failed", r.err)
		}
		return r.resets, nil
	case <-ctx.Done():
		return 0, ctxError(ctx.Err())
	}
}

// caughtRound is one round of CaughtUp: the watch's reset count read once it reached
// the revision (a reset is counted before the watch moves past what it missed).
func (s *Etcd) caughtRound(r *caughtRound) {
	ctx, cancel := context.WithTimeout(s.watchCtx, s.timeout)
	defer cancel()
	start := time.Now()
	resp, err := s.c.Get(ctx, s.prefix+etcdProbeKey, clientv3.WithCountOnly())
	s.metrics.observe("caught-up", start, err)
	if err == nil {
		err = s.watchedTo(ctx, resp.Header.Revision)
	}
	r.err, r.resets = err, s.resets.Load()
}

// caughtRounds runs CaughtUp's rounds one at a time: next collects the callers that
// came while one is under way.
type caughtRounds struct {
	mu      sync.Mutex
	running bool
	next    *caughtRound
}

// caughtRound is one round's outcome, known once done is closed.
type caughtRound struct {
	done   chan struct{}
	err    error
	resets uint64
}

// join returns the round that answers a caller coming now: the next one to start.
// When none is under way, it starts one (run, in a goroutine of its own, then the
// rounds that callers join meanwhile, until one ends with no caller waiting).
func (c *caughtRounds) join(run func(*caughtRound)) *caughtRound {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.next == nil {
		c.next = &caughtRound{done: make(chan struct{})}
	}
	r := c.next
	if !c.running {
		c.running = true
		c.next = nil
		go c.loop(run, r)
	}
	return r
}

func (c *caughtRounds) loop(run func(*caughtRound), r *caughtRound) {
	for r != nil {
		run(r)
		close(r.done)
		c.mu.Lock()
		r, c.next = c.next, nil
		c.running = r != nil
		c.mu.Unlock()
	}
}
