// Package persistence holds vmplane's durable state: the Badger store, the key layout,
// versioned record codecs and the group-commit writer that makes durable writes fast.
//
// Actors see the store only through the Store interface, so that a replicated store can
// stand in for Badger in a clustered deployment.
package persistence

import (
	"context"
	"errors"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

// ErrNotFound is returned by Get for a key that does not exist.
var ErrNotFound = apierr.New(apierr.ErrNotFound, "record not found")

// ErrConditionFailed is the error of a batch whose conditions (Batch.Require) did not
// all hold when it was applied: nothing of it was written. errors.Is matches it as it
// matches every conflict error (apierr compares codes); IsConditionFailed tells it
// apart exactly.
var ErrConditionFailed = apierr.New(apierr.ErrConflict, "a condition of the write no longer holds; nothing was written")

// IsConditionFailed reports whether err is (or wraps) ErrConditionFailed itself, not
// merely another conflict.
func IsConditionFailed(err error) bool {
	var e *apierr.Error
	return errors.As(err, &e) && e == ErrConditionFailed
}

// Store is the small interface actors use. Reads see every write whose Commit returned.
type Store interface {
	// Get returns the value stored under key, or ErrNotFound. When ctx ends first, Get
	// gives up (an etcd request in flight is cancelled) and fails with an error that
	// matches ctx.Err(): context.Canceled with apierr.ErrUnavailable, or
	// context.DeadlineExceeded with apierr.ErrTimeout.
	Get(ctx context.Context, key []byte) ([]byte, error)
	// Scan calls fn for each key with the given prefix in ascending key order, starting
	// strictly after `after` when it is non-empty, stopping after limit keys when
	// limit > 0, or when fn returns an error (which Scan returns). The slices passed to
	// fn are valid only during the call. When ctx ends, Scan calls fn no more and fails
	// as Get does; a ctx already ended calls fn not at all.
	Scan(ctx context.Context, prefix, after []byte, limit int, fn func(key, value []byte) error) error
	// Commit applies the batch atomically and returns only after it is durable on disk
	// (fsynced). Concurrent commits are grouped into one synced transaction. A batch
	// whose conditions (Batch.Require) do not all hold when it is applied fails with
	// ErrConditionFailed and writes nothing; conditions see the writes of every batch
	// applied before it, those grouped into the same transaction included.
	Commit(ctx context.Context, b *Batch) error
	// Enqueue hands the batch to the writer and returns at once; Wait on the result
	// returns what Commit would have. Batches enqueued one after another are written
	// in that order (in one synced transaction or in successive ones), so an owner
	// that serialises its writes can start the next before the last is durable, and
	// only acknowledge each once it is. Their results are known in that order too,
	// failures included: once a batch's result is known, so is every earlier one's
	// (a batch withdrawn by its Wait's context is the exception: it fails at once,
	// unwritten). then, when not nil, is called once with that
	// same result as soon as it is known, on the writer's goroutine (or in Enqueue
	// when the result is known at once): it must be quick and must not use the store.
	// (Without group commit, Enqueue writes and syncs before it returns.)
	Enqueue(b *Batch, then func(error)) *Pending
	// Watch calls fn with the key of every committed put or delete under prefix,
	// synchronously: after the write is visible to Get and Scan and before its Commit
	// returns. It is how in-memory read caches stay exact: a cache that drops what fn
	// names never serves a value older than an acknowledged write. fn runs on the
	// writing goroutine, possibly concurrently with itself; it must be quick and must not
	// use the store. Watchers are registered at startup and never removed.
	Watch(prefix []byte, fn func(key []byte))
	// Stats reports figures for /metrics.
	Stats() Stats
	// Health is nil while the store accepts writes, else the error writes fail with
	// (apierr.ErrUnavailable, or apierr.ErrInsufficientStorage when the disk is full),
	// whose detail says why. Reads may still work.
	Health() error
	// Shared reports whether other processes write to the same state (the etcd store
	// of a cluster). Then Watch still names every write, but another member's only
	// after that member's Commit returned: a cache built on Watch can serve a value
	// older than an acknowledged write for a moment, so such caches turn themselves
	// off when the store is shared.
	Shared() bool
	// Close flushes and closes the store; later calls fail with apierr.ErrUnavailable.
	Close() error
}

// WatchClock is a shared store that says how far its Watch has caught up with the
// other members' writes, so that a cache built on Watch can be exact on it after all:
// WatchedThrough is the latest time T (of this process's clock) such that every
// write acknowledged to any member before T has been told to the watchers, and the
// count of the watch's resets. A cache serves only while T is recent (now-T within a
// window W), and a writer that must be seen by every member at once (a logout, a
// disabled user) waits W after its write is acknowledged before it answers: a request
// that comes after that answer and finds T recent has T later than the write, so its
// watcher has heard of it. A reset (the watch resumed past writes it never read, which
// etcd had compacted away; their keys are not named) must empty such a cache. T is zero
// until the watch has first caught up.
type WatchClock interface {
	WatchedThrough() (at time.Time, resets uint64)
}

// WatchBarrier is a shared store whose Watch can be caught up with on demand, so that
// a cache built on Watch can be exact on it without waiting on writers: a read that
// calls CaughtUp first and then serves from the cache (dropping it all when the reset
// count moved: see WatchClock) sees every write acknowledged to any member before
// the read began. It costs the read one to two round trips to etcd, shared by all
// the reads waiting at the same time.
type WatchBarrier interface {
	// CaughtUp returns once the watchers have been told of every write acknowledged
	// (to any member) before CaughtUp was called, with the watch's reset count at that
	// point. It fails as Get does when ctx ends or etcd does not answer.
	CaughtUp(ctx context.Context) (resets uint64, err error)
}

// MultiGetter is a store that reads many keys in one request (the etcd store, where
// every Get is a round trip to etcd). Use GetMany, which falls back to one Get per key.
type MultiGetter interface {
	// GetMany returns the values of keys, in their order, nil for a key that does not
	// exist, with the guarantee of Get: every write whose Commit returned before
	// GetMany was called is seen.
	GetMany(ctx context.Context, keys [][]byte) ([][]byte, error)
}

// GetMany reads keys through the store's MultiGetter when it has one, else with one
// Get per key: values in the keys' order, nil for a key that does not exist (an empty
// value is a non-nil empty slice).
func GetMany(ctx context.Context, s Store, keys [][]byte) ([][]byte, error) {
	if m, ok := s.(MultiGetter); ok {
		return m.GetMany(ctx, keys)
	}
	out := make([][]byte, len(keys))
	for i, k := range keys {
		v, err := s.Get(ctx, k)
		switch {
		case errors.Is(err, ErrNotFound):
		case err != nil:
			return nil, err
		case v == nil:
			out[i] = []byte{}
		default:
			out[i] = v
		}
	}
	return out, nil
}

// Batch is a set of writes applied atomically by Commit.
type Batch struct {
	Ops []Op
	// Conds must all hold when the batch is applied, else it fails with
	// ErrConditionFailed, unwritten (see Require).
	Conds []Cond
	// After, when set, is an earlier write this one builds on: if it fails, this batch
	// fails too, unwritten. An owner that pipelines its writes (Enqueue) computes each
	// from a state that includes the ones before, so one must not land without them.
	After *Pending
}

// Op is one write of a batch: a put, or a delete when Delete is set.
type Op struct {
	Key    []byte
	Value  []byte
	Delete bool
	// TTL, when positive, makes the key expire: Get and Scan no longer see it after.
	TTL time.Duration
}

// Cond is a condition on one key that a batch requires (Batch.Require): the key is
// absent when Absent is set, else it is present with exactly Value. Conditions are
// checked against the state the batch is applied to, so "create once" (IfAbsent) and
// "change only what I read" (IfValue) hold across every writer of the store, the other
// members of a cluster included.
type Cond struct {
	Key    []byte
	Absent bool
	Value  []byte
}

// IfAbsent is the condition that key does not exist.
func IfAbsent(key []byte) Cond { return Cond{Key: key, Absent: true} }

// IfValue is the condition that key exists and holds exactly v.
func IfValue(key, v []byte) Cond { return Cond{Key: key, Value: v} }

// Require adds a condition to the batch and returns the batch for chaining.
func (b *Batch) Require(c Cond) *Batch {
	b.Conds = append(b.Conds, c)
	return b
}

// empty reports whether the batch has nothing to write or check.
func (b *Batch) empty() bool { return b == nil || len(b.Ops) == 0 && len(b.Conds) == 0 }

// Put adds a put of key to the batch and returns the batch for chaining.
func (b *Batch) Put(key, value []byte) *Batch {
	b.Ops = append(b.Ops, Op{Key: key, Value: value})
	return b
}

// PutTTL adds a put of key that expires after ttl.
func (b *Batch) PutTTL(key, value []byte, ttl time.Duration) *Batch {
	b.Ops = append(b.Ops, Op{Key: key, Value: value, TTL: ttl})
	return b
}

// Del adds a delete of key to the batch and returns the batch for chaining.
func (b *Batch) Del(key []byte) *Batch {
	b.Ops = append(b.Ops, Op{Key: key, Delete: true})
	return b
}

// Stats are the store figures exported on /metrics.
type Stats struct {
	Commits       uint64 // Commit calls acknowledged
	Groups        uint64 // synced transactions written (Commits/Groups is the batching factor)
	CommitErrors  uint64
	LSMBytes      int64
	VLogBytes     int64
	PendingWrites int64 // commits waiting for the writer right now
	// CompactionScore is Badger's highest level score (0 while all are under 1): at 1
	// or more compactions are pending, taking CPU and disk from writes and reads.
	CompactionScore float64
}
