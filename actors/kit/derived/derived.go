// Package derived keeps the trust in data derived from records: an index or a set of
// counters that every write of the records keeps in its own batch, but that a store
// written by an earlier release lacks, and that a member of an earlier release, still
// running in a rolling upgrade, would leave wrong. Such data is trusted only while a
// marker key exists, and the marker is written only by the member that leads the
// data's job, after it built the data from the records, once every live member keeps
// it; it is dropped while one does not. Readers that find it untrusted read the
// records instead (a scan), which is slower and always right.
package derived

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/persistence"
)

// Deps are what a derived data's keeping needs.
type Deps struct {
	Runtime *kit.Runtime
	// Job is the name of the cluster-wide job that builds the data (kit.Runtime.Leads)
	// and of the data in the log.
	Job string
	// Marker is the key that exists once the data was built from the records.
	Marker []byte
	// Check is how often the job's leader looks whether the data must be built.
	Check time.Duration
	// Keeping, in a cluster, reports whether every live member keeps the data (the
	// cluster's Maintained of the data's feature), and how many members that do not
	// this member has seen join; nil on a single node, which keeps it.
	Keeping func() (all bool, without uint64)
	// Build makes the data exact from the records and says, for the log, what it
	// did. It may run again after a crash and on data that is exact already.
	Build func(ctx context.Context) (zap.Field, error)
}

// Data is one member's keeping of one derived data: its readers' Trusted and the job.
type Data struct {
	d       Deps
	store   persistence.Store
	log     *zap.Logger
	marker  markerCache
	settled atomic.Uint64
	loop    *kit.Loop
}

// Start starts keeping the data: its job runs from now until Stop.
func Start(d Deps) *Data {
	x := &Data{d: d, store: d.Runtime.Store, log: d.Runtime.Log.With(zap.String("derived", d.Job))}
	x.store.Watch(d.Marker, func([]byte) { x.marker.forget() })
	x.loop = kit.Every(d.Runtime.Clock, x.log, d.Job, d.Check, true, func(ctx context.Context, _ time.Time) {
		_, lacking := x.everyone()
		x.settle(ctx, lacking)
		if !d.Runtime.Leads(ctx, d.Job) {
			return
		}
		if err := x.Check(ctx); err != nil && ctx.Err() == nil {
			x.log.Warn(d.Job+": cannot check or build them; readers use the records meanwhile", zap.Error(err))
		}
	})
	return x
}

// Stop ends the job.
func (x *Data) Stop() { x.loop.Stop() }

// everyone reports whether every member keeps the data, and how many members that do
// not this member has seen join (a single node: true, 0).
func (x *Data) everyone() (bool, uint64) {
	if x.d.Keeping == nil {
		return true, 0
	}
	return x.d.Keeping()
}

// Trusted reports whether readers may use the data on this member: it was built from
// the records (the marker exists), every member keeps it, and this member has dropped
// the marker since the last member that does not keep it arrived (settle): such a
// member may have come and gone between two runs of the leader's job, its writes
// leaving the data wrong under a marker written before.
func (x *Data) Trusted(ctx context.Context) (bool, error) {
	all, lacking := x.everyone()
	if !all || !x.settle(ctx, lacking) {
		return false, nil
	}
	return x.marker.read(ctx, x.store, x.d.Marker)
}

// settle drops the marker once for each count of arrivals of members that do not
// keep the data (everyone), and reports whether that is done for lacking. A drop that
// fails is tried again at the next read or run of the job; meanwhile readers scan.
func (x *Data) settle(ctx context.Context, lacking uint64) bool {
	if x.settled.Load() == lacking {
		return true
	}
	if err := x.store.Commit(ctx, new(persistence.Batch).Del(x.d.Marker)); err != nil {
		x.log.Warn(x.d.Job+": cannot drop their marker after a member that does not keep them joined; readers use the records meanwhile", zap.Error(err))
		return false
	}
	x.log.Info(x.d.Job + ": a member that does not keep them joined; readers use the records until they are built again")
	x.settled.Store(lacking)
	return true
}

// Check is the leader's part of the job, which the job runs every Deps.Check on the
// member that leads it: it builds the data and writes the marker once every member
// keeps it, and drops the marker while one does not.
func (x *Data) Check(ctx context.Context) error {
	all, lacking := x.everyone()
	if !x.settle(ctx, lacking) {
		return nil
	}
	present, err := x.marker.read(ctx, x.store, x.d.Marker)
	switch {
	case err != nil:
		return err
	case !all && present:
		return x.store.Commit(ctx, new(persistence.Batch).Del(x.d.Marker))
	case !all || present:
		return nil
	}
	what, err := x.d.Build(ctx)
	if err != nil {
		return err
	}
	// A member that does not keep the data may have come and gone while it was built.
	if all, now := x.everyone(); !all || now != lacking {
		return nil
	}
	err = x.store.Commit(ctx, new(persistence.Batch).Put(x.d.Marker, []byte("1")).Require(persistence.IfAbsent(x.d.Marker)))
	if err == nil {
		x.log.Info(x.d.Job+" built: readers use them", what)
	}
	if persistence.IsConditionFailed(err) {
		return nil
	}
	return err
}

// markerCache remembers whether the marker exists, forgotten at each write of it (the
// store's Watch), so that a read of the data costs no second read.
type markerCache struct {
	mu      sync.Mutex
	gen     uint64
	known   bool
	present bool
}

// forget makes the next read read the marker.
func (c *markerCache) forget() {
	c.mu.Lock()
	c.gen++
	c.known = false
	c.mu.Unlock()
}

// read reports whether the marker exists, reading it when not known.
func (c *markerCache) read(ctx context.Context, s persistence.Store, key []byte) (bool, error) {
	c.mu.Lock()
	if c.known {
		defer c.mu.Unlock()
		return c.present, nil
	}
	gen := c.gen
	c.mu.Unlock()
	_, err := s.Get(ctx, key)
	if err != nil && !errors.Is(err, persistence.ErrNotFound) {
		return false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.known, c.present = true, err == nil
	}
	return err == nil, nil
}

// CommitTried commits what fill puts into a batch, filled again from fresh reads while
// one of its conditions refuses it (a record changed meanwhile, and its own write kept
// what is derived from it), at most tries times; it answers how many writes landed. A
// Build uses it to write what it derives on the condition that the records are as read.
func CommitTried(ctx context.Context, store persistence.Store, tries int, fill func(b *persistence.Batch) error) (int, error) {
	for try := 1; ; try++ {
		b := new(persistence.Batch)
		if err := fill(b); err != nil || len(b.Ops) == 0 {
			return 0, err
		}
		err := store.Commit(ctx, b)
		if err == nil {
			return len(b.Ops), nil
		}
		if !persistence.IsConditionFailed(err) || try == tries {
			return 0, err
		}
	}
}

// Records is how a Build reads the records it derives from, by id; E is what it
// derives of one record.
type Records[E any] struct {
	// IDs calls fn with every record's id, in id order.
	IDs func(ctx context.Context, fn func(id string) error) error
	// Get reads what is derived of one record, and the record's stored value;
	// persistence.ErrNotFound when there is none.
	Get func(ctx context.Context, id string) (E, []byte, error)
	// Key is the key of a record: a build's writes require it unchanged.
	Key func(id string) []byte
}
