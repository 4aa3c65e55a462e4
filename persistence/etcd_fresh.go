package persistence

import (
	"context"
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
	select {
	case s.revSeen <- struct{}{}:
	default:
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
	target := resp.Header.Revision
	if s.watchRev.Load() < target {
		if err := s.c.RequestProgress(ctx); err != nil {
			return
		}
		for s.watchRev.Load() < target {
			select {
			case <-s.revSeen:
			case <-ctx.Done():
				return
			}
		}
	}
	s.fresh.Store(&at)
}
