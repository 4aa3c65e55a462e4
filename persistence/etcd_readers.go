package persistence

import (
	"context"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/vmplane/vmplane/apierr"
)

// A read lease lets a cluster member answer a cache's read without a catch-up round
// (WatchBarrier): the writers wait for it instead. Every transaction of a member also
// reads the records of the members (Readers.Prefix, read in the same transaction, so
// at the write's own revision), and the write is answered only once every member that
// holds a read lease has confirmed that its watch reached the write's revision, or no
// longer holds one (Readers.Settle). A member holding a lease (Readers.Holding) then
// knows that every write acknowledged before a read began has been told to its
// watchers, which is what CaughtUp promises, without asking etcd.

// Readers is what a cluster gives its store to hold read leases: SetReaders.
type Readers interface {
	// Prefix is where the members' records are (under the store's prefix): each
	// transaction reads them.
	Prefix() string
	// Settle returns once every member whose record is among recs (read at rev, in
	// the transaction that wrote rev) and holds a read lease has seen rev or let its
	// lease go. It fails when ctx ends first.
	Settle(ctx context.Context, rev int64, recs [][]byte) error
	// Holding reports whether this member may answer a read that begins now from what
	// its watch told the watchers, without a catch-up round.
	Holding() bool
}

// seenByItself is how long Seen waits for the watch to bring a revision before it asks
// etcd for a progress notification.
const seenByItself = 50 * time.Millisecond

// settleWait bounds a write's wait for the members holding read leases: one that stops
// answering is waited for until its acks are withdrawn (about 2.5 s) or its cluster
// lease expires; past settleWait etcd itself does not answer the withdrawal.
const settleWait = 10 * time.Second

// SetReaders makes every later transaction wait for the members holding read leases,
// and CaughtUp answer at once while this member holds one. Call it before the store
// is written to by the member's actors.
func (s *Etcd) SetReaders(r Readers) { s.readers.Store(&r) }

// readersOf is the store's Readers, nil when there are none.
func (s *Etcd) readersOf() Readers {
	if p := s.readers.Load(); p != nil {
		return *p
	}
	return nil
}

// readersOp is the read the transaction adds for r.
func (s *Etcd) readersOp(r Readers) clientv3.Op {
	return clientv3.OpGet(s.prefix+r.Prefix(), clientv3.WithPrefix())
}

// settle waits, after a transaction that wrote, for the members holding read leases
// (resp's last response is readersOp's).
func (s *Etcd) settle(r Readers, resp *clientv3.TxnResponse) error {
	var recs [][]byte
	if n := len(resp.Responses); n > 0 {
		if rr := resp.Responses[n-1].GetResponseRange(); rr != nil {
			for _, kv := range rr.Kvs {
				recs = append(recs, kv.Value)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), settleWait)
	defer cancel()
	if err := r.Settle(ctx, resp.Header.Revision, recs); err != nil {
		// Written, and not yet seen by a member that may answer reads without asking
		// etcd: the caller must not take it as acknowledged, nor as not made.
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrTimeout,
			"the write was made, but a member serving reads did not confirm it in time"), err)
	}
	return nil
}

// settling answers the queued writes whose transactions wait for the readers, in
// queue order, so that the writer sends the next group to etcd meanwhile: the wait is
// one round trip between members, about as long as a transaction.
type settling struct {
	mu      sync.Mutex
	queue   []settlingRun
	running bool
	done    sync.WaitGroup
}

// settlingRun is one transaction's requests, its wait (nil: none) and its error.
type settlingRun struct {
	run    []*request
	settle func() error
	err    error
}

// answerInOrder answers run (one transaction's requests) once settle returned, after
// every run handed over before it. A failed run is marked at once, so that a write
// queued after it that depends on it fails too (afterFailed).
func (s *Etcd) answerInOrder(run []*request, settle func() error, err error) {
	if err != nil {
		for _, r := range run {
			r.failed.Store(true)
		}
	}
	q := &s.settling
	q.mu.Lock()
	if settle == nil && !q.running {
		q.mu.Unlock()
		s.answer(run, err)
		return
	}
	q.queue = append(q.queue, settlingRun{run: run, settle: settle, err: err})
	if !q.running {
		q.running = true
		q.done.Add(1)
		go s.settleQueued()
	}
	q.mu.Unlock()
}

// settleQueued answers the handed-over runs until none is left.
func (s *Etcd) settleQueued() {
	q := &s.settling
	defer q.done.Done()
	for {
		q.mu.Lock()
		if len(q.queue) == 0 {
			q.running = false
			q.mu.Unlock()
			return
		}
		next := q.queue[0]
		q.queue[0] = settlingRun{}
		q.queue = q.queue[1:]
		q.mu.Unlock()
		err := next.err
		if next.settle != nil {
			err = next.settle()
		}
		s.answer(next.run, err)
	}
}

// wait returns once every handed-over run was answered.
func (q *settling) wait() { q.done.Wait() }

// Seen returns once the watch has told the watchers of every write up to rev, and fails
// when ctx ends first: what a member holding a read lease answers a writer with.
func (s *Etcd) Seen(ctx context.Context, rev int64) error {
	// The write at rev is under the prefix: the watch brings it by itself, most often
	// within a moment, without a progress request (an etcd request per write). A
	// transaction that changed nothing leaves the revision where another write put
	// it, maybe outside the prefix: then only a progress request moves the watch.
	wait := time.NewTimer(seenByItself)
	defer wait.Stop()
	for s.watchRev.Load() < rev {
		ch := *s.revSeen.Load()
		if s.watchRev.Load() >= rev {
			return nil
		}
		select {
		case <-ch:
			continue
		case <-ctx.Done():
			return ctx.Err()
		case <-wait.C:
		}
		break
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The progress request must carry the watch's metadata to reach its stream.
	wctx, wcancel := context.WithCancel(s.watchCtx)
	defer wcancel()
	stop := context.AfterFunc(ctx, wcancel)
	defer stop()
	return s.watchedTo(wctx, rev)
}

// holding reports whether CaughtUp may answer at once: see Readers.Holding.
func (s *Etcd) holding() bool {
	r := s.readersOf()
	return r != nil && r.Holding()
}

// CatchUp returns after one catch-up round that began after it was called, lease or
// not: a member takes a read lease only after one, so that it has seen the writes
// made before its lease was known to the writers.
func (s *Etcd) CatchUp(ctx context.Context) error {
	_, err := s.caughtUp(ctx)
	return err
}
