package persistence

// The group-commit writer.
//
// A synced Badger transaction costs about the same whatever it holds (about 0.5 ms on
// the target machines), so one fsync per request caps durable writes near 2,000/s. Commit therefore hands its batch to a single
// writer goroutine; the writer takes everything queued (up to MaxBatch commits), writes
// it as one Badger transaction, makes it durable with one sync and then answers every
// caller. While it syncs, the next group queues up: no timer, no added latency when the
// store is idle.
//
// Why SyncWrites=false plus an explicit db.Sync (read in Badger v4.9.6):
//
//   - With SyncWrites=false, txn.Commit returns once the entries are in the mmap of the
//     active memtable's write-ahead log (writeRequests → writeToLSM → memTable.Put), that
//     is in the page cache and not yet on disk. db.Sync then msyncs (MS_SYNC) that WAL
//     and the current value-log file and returns both errors. Only after it returns nil
//     do we acknowledge: acknowledged = fsynced.
//   - With SyncWrites=true Badger would sync inside each txn.Commit instead, also once per
//     transaction, but the value log's sync error there is only logged (the deferred
//     curlf.Sync in valueLog.write), never returned, so a failed sync could be
//     acknowledged. The explicit call surfaces every sync error.
//   - db.Sync syncs only the active memtable's WAL. Badger switches memtables before
//     writing a request (ensureRoomForWrite) without syncing the old WAL; one transaction
//     never spans two memtables, and this writer is Badger's only writer, so "commit one
//     txn, then Sync" always covers that txn. A group split into several transactions
//     (ErrTxnTooBig) could straddle a switch, so each transaction is synced before the
//     next is written. A group that fits one transaction, the normal case, costs one sync.
//   - MaxValueSize keeps every value below the value threshold, so the value log stays
//     empty and the WAL alone holds the data. (Were it used: a value-log rotation syncs
//     the old file in logFile.Truncate, and db.Sync syncs the new one.)
//
// After a failed commit or sync the store refuses further writes until it is reopened
// (health.go): which of the written pages reached the disk is unknown, and retrying
// fsync after a failure can report success for lost data.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/vmplane/vmplane/apierr"
)

// Request states. A caller whose context ends may withdraw its request only while it
// is still queued; once the writer has taken it, the caller waits for the result so a
// write is never reported as failed after it was made durable (or the reverse).
const (
	stateQueued int32 = iota
	stateTaken
	stateCancelled
)

type request struct {
	batch *Batch
	state atomic.Int32
	err   error         // written by the writer before done is closed
	done  chan struct{} // closed when the result is known
	then  func(error)   // called once with the result, after done is closed; may be nil
	after *request      // the earlier request this one builds on (Batch.After); may be nil
	// failed is set by the writer when it knows the request fails, which may be
	// before the request is answered (writeGroup answers in queue order).
	failed atomic.Bool
}

func newRequest(b *Batch, then func(error)) *request {
	r := &request{batch: b, done: make(chan struct{}), then: then}
	if b.After != nil {
		r.after = b.After.r
	}
	return r
}

// afterFailed is the error of a request whose predecessor failed. The predecessor was
// queued first, so by the time the writer looks at r it has either finished or it is
// ahead of r in the same group, where it has failed (marked failed) or commits with r.
func (r *request) afterFailed() error {
	if r.after == nil {
		return nil
	}
	// A withdrawn predecessor is marked before its result is set: look at both.
	if r.after.state.Load() == stateCancelled || r.after.failed.Load() {
		return errAfterFailed
	}
	select {
	case <-r.after.done:
		if r.after.err != nil {
			return errAfterFailed
		}
	default:
	}
	return nil
}

var errAfterFailed = apierr.New(apierr.ErrUnavailable, "an earlier write this one depends on failed; nothing was written")

// writer is the single goroutine that writes queued requests in order. It knows
// nothing of the store: write is given each group taken, in queue order, and answers
// every request of it (finishRequest), in queue order: before it returns, or, on the
// etcd store, once the group's wait for the read leases ended (answerInOrder).
type writer struct {
	maxBatch    int
	beforeGroup func()
	pending     *atomic.Int64 // the store's count of queued requests (Stats.PendingWrites)
	write       func(group []*request)
	// idle, when set, is called before the writer waits for requests: when it returns
	// a positive duration, write is called with an empty group after that long
	// without requests (Badger's recovery of a failed store uses that tick).
	idle func() time.Duration

	mu       sync.Mutex
	queue    []*request
	stopping bool

	wake   chan struct{} // capacity 1: "the queue may be non-empty"
	exited chan struct{}
}

func newWriter(maxBatch int, pending *atomic.Int64, write func([]*request)) *writer {
	return &writer{
		maxBatch: maxBatch,
		pending:  pending,
		write:    write,
		wake:     make(chan struct{}, 1),
		exited:   make(chan struct{}),
	}
}

// enqueue queues r: requests are written in the order they were queued.
func (w *writer) enqueue(r *request) {
	w.mu.Lock()
	w.queue = append(w.queue, r)
	w.pending.Add(1) // under the lock, so the writer never counts it out first
	w.mu.Unlock()
	w.signal()
}

// wait waits for r's result, or for ctx while r is still queued.
func (w *writer) wait(ctx context.Context, r *request) error {
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		if r.state.CompareAndSwap(stateQueued, stateCancelled) {
			w.pending.Add(-1)
			// The writer skips a withdrawn request: its result is set here, so that
			// other waiters and later requests that build on it see it failed.
			r.err = ctxError(ctx.Err())
			then := r.then
			r.after, r.batch, r.then = nil, nil, nil // as finish does
			close(r.done)
			if then != nil {
				then(r.err)
			}
			return r.err
		}
		<-r.done
		return r.err
	}
}

func (w *writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default: // a wake-up is already pending
	}
}

func (w *writer) run() {
	defer close(w.exited)
	for {
		group := w.take()
		if group == nil {
			return
		}
		if len(group) > 0 && w.beforeGroup != nil {
			w.beforeGroup()
		}
		w.write(group)
	}
}

// take blocks until requests are queued and returns up to maxBatch of them that were
// not withdrawn, or nil once the writer is stopping and the queue is empty. It also
// returns an empty group after the idle tick, when there is one.
func (w *writer) take() []*request {
	for {
		w.mu.Lock()
		for len(w.queue) == 0 {
			if w.stopping {
				w.mu.Unlock()
				return nil
			}
			w.mu.Unlock()
			var tick time.Duration
			if w.idle != nil {
				tick = w.idle()
			}
			if tick <= 0 {
				<-w.wake
			} else {
				t := time.NewTimer(tick)
				select {
				case <-w.wake:
					t.Stop()
				case <-t.C:
					return []*request{}
				}
			}
			w.mu.Lock()
		}
		var group []*request
		if len(w.queue) <= w.maxBatch {
			group, w.queue = w.queue, nil
		} else {
			group = make([]*request, w.maxBatch)
			copy(group, w.queue)
			rest := copy(w.queue, w.queue[w.maxBatch:])
			clear(w.queue[rest:])
			w.queue = w.queue[:rest]
		}
		w.mu.Unlock()

		taken := group[:0]
		for _, r := range group {
			if r.state.CompareAndSwap(stateQueued, stateTaken) {
				taken = append(taken, r)
			}
		}
		w.pending.Add(-int64(len(taken))) // withdrawn ones were counted out by their caller
		if len(taken) > 0 {
			return taken
		}
	}
}

// stop makes the writer exit once the queue is empty, and waits for it. Close calls it
// after the gate has drained, so only withdrawn requests can still be queued.
func (w *writer) stop() {
	w.mu.Lock()
	w.stopping = true
	w.mu.Unlock()
	w.signal()
	<-w.exited
}

// writeGroup writes the taken requests in arrival order, in as few synced transactions
// as Badger allows, and then answers each of them, in arrival order too: when a
// request is answered, every request queued before it has been, whatever its result.
// (An owner that pipelines its writes relies on that: its last answer means nothing
// of its own is still in flight.) A request whose batch is invalid, or too big for a
// transaction even alone, fails by itself. In NoGroupCommit mode callers run it
// concurrently, each with a group of one.
func (s *Badger) writeGroup(reqs []*request) {
	group := slices.Clone(reqs) // the arrival order, for the answers
	fail := func(r *request, err error) {
		r.err = err
		r.failed.Store(true)
	}
	valid := reqs[:0] // filtered in place
	for _, r := range reqs {
		if err := validate(r.batch); err != nil {
			fail(r, err)
			continue
		}
		valid = append(valid, r)
	}
	reqs = valid

	for len(reqs) > 0 {
		// A request whose predecessor failed (above, or in an earlier round of this
		// loop) fails unwritten.
		kept := reqs[:0]
		for _, r := range reqs {
			if err := r.afterFailed(); err != nil {
				fail(r, err)
				continue
			}
			kept = append(kept, r)
		}
		if reqs = kept; len(reqs) == 0 {
			break
		}
		if e := s.writable(); e != nil {
			s.observe(e)
			for _, r := range reqs {
				fail(r, e)
			}
			break
		}
		txn, n, skipped, err := s.fill(reqs)
		if err != nil {
			fail(reqs[0], batchError(err))
			reqs = reqs[1:]
			continue
		}
		err = s.commitTxn(txn)
		written := reqs[:n]
		if len(skipped) > 0 {
			written = slices.DeleteFunc(slices.Clone(written), func(r *request) bool { return skipped[r] != nil })
		}
		// Even when the sync failed, the commit may have made the writes visible:
		// watchers hear of them either way.
		s.notifyWatchers(written)
		if err != nil {
			for _, r := range reqs[:n] {
				fail(r, err)
			}
			s.noteSuspect(written)
		} else {
			for r, e := range skipped {
				fail(r, e)
			}
		}
		reqs = reqs[n:]
	}
	for _, r := range group {
		s.finish(r, r.err)
	}
}

// fill returns a write transaction holding reqs[:n] whole, with n as large as fits and
// at least 1, or the error that reqs[0] gets even alone. When a request fails part-way
// (Badger checks each op as it is added), the transaction is rebuilt without it, so no
// batch is ever written in part; the request that did not fit heads the next one.
//
// skipped holds the requests of reqs[:n] the transaction leaves out: those whose
// conditions do not hold given the requests before them in it (ErrConditionFailed),
// and those that build on a request left out (errAfterFailed). They fail by themselves
// once the transaction commits; the others in it are unaffected.
func (s *Badger) fill(reqs []*request) (*badger.Txn, int, map[*request]error, error) {
	limit := len(reqs)
	for {
		txn := s.db.NewTransaction(true)
		n := 0
		var (
			skipped map[*request]error
			err     error
		)
		skip := func(r *request, e error) {
			if skipped == nil {
				skipped = map[*request]error{}
			}
			skipped[r] = e
		}
		for ; n < limit; n++ {
			r := reqs[n]
			if r.after != nil && skipped[r.after] != nil {
				skip(r, errAfterFailed)
				continue
			}
			var ok bool
			if ok, err = condsHold(txn, r.batch.Conds); err != nil {
				break
			}
			if !ok {
				skip(r, ErrConditionFailed)
				continue
			}
			if err = addBatch(txn, r.batch); err != nil {
				break
			}
		}
		if err == nil {
			return txn, n, skipped, nil
		}
		txn.Discard()
		if n == 0 {
			return nil, 0, nil, err
		}
		limit = n
	}
}

// condsHold reports whether every condition holds in txn, which sees the writes
// already added to it.
func condsHold(txn *badger.Txn, conds []Cond) (bool, error) {
	for _, c := range conds {
		item, err := txn.Get(c.Key)
		switch {
		case errors.Is(err, badger.ErrKeyNotFound):
			if !c.Absent {
				return false, nil
			}
			continue
		case err != nil:
			return false, err
		case c.Absent:
			return false, nil
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return false, err
		}
		if !bytes.Equal(v, c.Value) {
			return false, nil
		}
	}
	return true, nil
}

func addBatch(txn *badger.Txn, b *Batch) error {
	for _, op := range b.Ops {
		var err error
		switch {
		case op.Delete:
			err = txn.Delete(op.Key)
		case op.TTL > 0:
			err = txn.SetEntry(badger.NewEntry(op.Key, op.Value).WithTTL(op.TTL))
		default:
			err = txn.Set(op.Key, op.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// commitTxn commits txn and, in group-commit mode, syncs it (see the file comment).
// A failure disables writes: see failWrites.
func (s *Badger) commitTxn(txn *badger.Txn) error {
	err := txn.Commit()
	if err == nil && s.syncHook != nil {
		err = s.syncHook()
	}
	if err == nil && s.explicitSync {
		err = s.db.Sync()
	}
	if err != nil {
		return s.failWrites(err)
	}
	s.groups.Add(1)
	return nil
}

func (s *Badger) finish(r *request, err error) {
	finishRequest(r, err, &s.commits, &s.commitErrors)
}

// finishRequest answers r and counts it in commits or errs.
func finishRequest(r *request, err error, commits, errs *atomic.Uint64) {
	r.err = err
	if err == nil {
		commits.Add(1)
	} else {
		errs.Add(1)
	}
	// A finished request holds nothing more: owners keep their last one (Batch.After),
	// and it must not keep the chain of every request before it.
	then := r.then
	r.after, r.batch, r.then = nil, nil, nil
	close(r.done)
	if then != nil {
		then(err)
	}
}

// validate checks a batch before it reaches a transaction, so that the common
// mistakes fail one caller cheaply and with a clear message.
func validate(b *Batch) error {
	for i, c := range b.Conds {
		if len(c.Key) == 0 {
			return apierr.New(apierr.ErrInternal, "storage: condition %d of the batch has an empty key", i)
		}
	}
	for i, op := range b.Ops {
		switch {
		case len(op.Key) == 0:
			return apierr.New(apierr.ErrInternal, "storage: op %d of the batch has an empty key", i)
		case bytes.HasPrefix(op.Key, badgerReserved):
			return apierr.New(apierr.ErrInternal, "storage: key %q uses Badger's reserved prefix", op.Key)
		case len(op.Key) > MaxKeySize:
			return apierr.New(apierr.ErrPayloadTooLarge,
				"storage: key of %d bytes exceeds %d", len(op.Key), MaxKeySize)
		case !op.Delete && len(op.Value) > MaxValueSize:
			return apierr.New(apierr.ErrPayloadTooLarge,
				"storage: value of %d bytes exceeds %d", len(op.Value), MaxValueSize)
		}
	}
	return nil
}

var badgerReserved = []byte("!badger!")

// batchError is the answer for a batch Badger refused even in a transaction of its own.
func batchError(err error) error {
	if errors.Is(err, badger.ErrTxnTooBig) {
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrPayloadTooLarge,
			"storage: the batch is too big for one transaction"), err)
	}
	return internal("invalid batch", err)
}
