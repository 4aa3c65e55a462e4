package persistence

// The etcd store: the Store of a clustered deployment, where several vmplane members
// share their durable state through one etcd cluster (v3 API).
//
// Mapping of the Store contract onto etcd:
//
//   - Every key is Prefix+key, so installations can share one etcd.
//   - Get is a linearizable range read: it sees every write acknowledged by any member.
//   - Scan reads pages of etcdScanPage keys; every page after the first is read at the
//     revision of the first (WithRev), so one Scan is one consistent snapshot.
//   - Commit writes each Batch as ONE etcd transaction: If (its conditions, and the
//     member's fence) Then (its puts and deletes). etcd acknowledges a transaction once
//     a majority of its members have it in their fsynced log, which is this store's
//     "durable". Unlike Badger there is no group commit: etcd batches concurrent
//     transactions itself (one raft round, one fsync for several proposals).
//   - etcd refuses a transaction of more than --max-txn-ops operations (default 128)
//     and of more than --max-request-bytes (default 1.5 MiB). Such a batch fails alone
//     with apierr.ErrPayloadTooLarge naming the flag. vmplane's largest batches are
//     sync's adoption of unknown machines (2 puts per machine, 256 machines: 512 ops)
//     and the simulator's flushes (256 ops): run etcd with --max-txn-ops=1024 or more.
//   - A TTL op puts its key with a lease. Leases are shared per second of expiry, so a
//     hot path does not grant one lease per write: a key lives up to one second longer
//     than asked, and at least etcd's minimum lease TTL (about 2 s with etcd's default
//     election timeout); etcd also renews every lease when a new leader is elected.
//   - Enqueue hands batches to one writer goroutine that applies them one after
//     another, so batches enqueued one after another land in that order; consecutive
//     ones without conditions share a transaction (writeQueued). A Commit made
//     while nothing is queued runs at once in its caller's goroutine, concurrently with
//     other such Commits (etcd orders them); while anything is queued it queues too, so
//     it lands after what its caller enqueued before.
//   - With read leases (SetReaders, etcd_readers.go) a write is acknowledged only once
//     the members holding one have seen it; queued writes are answered in queue order
//     after that wait while the writer sends the next group.
//   - Watch hears of this process's own writes synchronously, before their Commit
//     returns, and of every member's writes (its own again: harmless) from an etcd
//     watch on the prefix, resumed from the last revision seen after a disconnect.
//   - While etcd does not answer (a connection failed, or the probe timed out twice in a
//     row), writes fail at once with apierr.ErrUnavailable "etcd unreachable: ..." and
//     Health says so; the probe reads from etcd every second, so both heal by themselves
//     when it returns. One request that timed out fails alone: a slow disk under etcd
//     is not an outage.
//   - A write whose outcome is unknown fails with apierr.ErrUnavailable (etcd
//     unreachable) or apierr.ErrTimeout (the request timed out after it was sent); it
//     may have been applied, whole or not at all (one transaction): callers retry with
//     the same operation id. Watchers hear of its keys either way.

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vmplane/vmplane/apierr"
)

// Defaults of EtcdOptions.
const (
	DefaultEtcdPrefix         = "/vmplane/"
	DefaultEtcdRequestTimeout = 3 * time.Second
)

const (
	// etcdScanPage is the number of keys a Scan reads per range request.
	etcdScanPage = 500
	// etcdProbeEvery is how often the health probe reads from etcd, so that Health
	// turns unavailable, and heals, without traffic.
	etcdProbeEvery = time.Second
	// etcdProbeTimeout bounds one probe: with etcdProbeEvery, Health turns unavailable
	// at the next probe after etcd refuses connections, and within about 6 s (two
	// probes timed out in a row) after it stops answering them.
	etcdProbeTimeout = 2 * time.Second
	// etcdProbeKey is read (never written) by the probe: a linearizable read needs a
	// quorum, which is what writes need too.
	etcdProbeKey = "\x00health-probe"
	// etcdWatchRetry is the pause before a failed etcd watch is opened again.
	etcdWatchRetry = 200 * time.Millisecond
)

// ErrFenced is the error of every write after the member's fence failed (SetFence):
// its cluster lease expired, so another member may own what it owns. errors.Is matches
// it as it matches every unavailable error; IsFenced tells it apart exactly.
var ErrFenced = apierr.New(apierr.ErrUnavailable, "this member lost its cluster lease")

// IsFenced reports whether err is (or wraps) ErrFenced itself.
func IsFenced(err error) bool {
	var e *apierr.Error
	return errors.As(err, &e) && e == ErrFenced
}

// EtcdOptions configures OpenEtcd.
type EtcdOptions struct {
	// Endpoints are etcd's client URLs (http://host:2379, https://... with TLS).
	Endpoints []string
	// Prefix is put before every key ("" → DefaultEtcdPrefix).
	Prefix string
	// TLS, when set, is the client's TLS configuration (CA, client certificate).
	TLS *tls.Config
	// Logger receives the store's state changes and the etcd client's errors. Nil
	// means no logging.
	Logger *zap.Logger
	// RequestTimeout bounds every request to etcd (0 → DefaultEtcdRequestTimeout): a
	// write while etcd is unreachable fails after it.
	RequestTimeout time.Duration

	// beforeGroup, when set (by tests only), runs in the writer before each group.
	beforeGroup func()
	// watchDelay, when set (by tests only), holds each of the watch's answers that
	// long before the watchers hear of it: a member whose watch lags.
	watchDelay time.Duration
}

// Etcd is the Store backed by an etcd cluster, shared by every member of a vmplane
// cluster.
type Etcd struct {
	c       *clientv3.Client
	prefix  string
	timeout time.Duration
	log     *zap.Logger
	// watchDelay is EtcdOptions.watchDelay.
	watchDelay time.Duration

	gate     gate
	w        *writer
	watchers watchList
	leases   leaseBuckets
	fence    atomic.Pointer[fence]
	// readers, when set, are the members holding read leases (etcd_readers.go).
	readers atomic.Pointer[Readers]
	// settling answers the writer's groups that wait for the readers.
	settling settling
	// unreachable is the error writes fail with while etcd does not answer.
	unreachable atomic.Pointer[apierr.Error]
	healthMu    sync.Mutex // orders the logging of health changes

	metrics etcdMetrics

	commits      atomic.Uint64
	commitErrors atomic.Uint64
	txns         atomic.Uint64 // transactions committed
	pending      atomic.Int64  // queued for the writer
	queued       atomic.Int64  // enqueued and not yet answered (taken ones included)
	direct       atomic.Int64  // Commits running in their caller's goroutine

	// The watch's progress, for WatchedThrough (etcd_fresh.go).
	watchRev atomic.Int64
	revSeen  atomic.Pointer[chan struct{}] // closed (and replaced) when watchRev moves
	fresh    atomic.Pointer[time.Time]
	resets   atomic.Uint64
	// The rounds of CaughtUp (etcd_fresh.go), and the watch's context they ask
	// etcd's progress through.
	caught   caughtRounds
	watchCtx context.Context

	stop      context.CancelFunc
	bg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

var _ Store = (*Etcd)(nil)

// OpenEtcd connects to etcd and starts the store's watch and health probe. It fails
// with apierr.ErrUnavailable when etcd does not answer within the request timeout.
func OpenEtcd(opts EtcdOptions) (*Etcd, error) {
	if len(opts.Endpoints) == 0 {
		return nil, apierr.New(apierr.ErrInternal, "persistence: no etcd endpoints configured")
	}
	s := &Etcd{prefix: opts.Prefix, timeout: opts.RequestTimeout, log: opts.Logger, metrics: newEtcdMetrics(),
		watchDelay: opts.watchDelay}
	if s.prefix == "" {
		s.prefix = DefaultEtcdPrefix
	}
	if s.timeout <= 0 {
		s.timeout = DefaultEtcdRequestTimeout
	}
	if s.log == nil {
		s.log = zap.NewNop()
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   opts.Endpoints,
		TLS:         opts.TLS,
		DialTimeout: s.timeout,
		// Notice a peer that vanished without closing the connection.
		DialKeepAliveTime:    2 * time.Second,
		DialKeepAliveTimeout: 2 * time.Second,
		// The client logs every retry of a request at warning level: during an outage
		// that is a flood, and the store logs the outage once itself.
		Logger: s.log.Named("etcdclient").WithOptions(zap.IncreaseLevel(zap.ErrorLevel)),
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", apierr.New(apierr.ErrUnavailable, "etcd unreachable: %v", err), err)
	}
	s.c = c
	// The revision the watch starts after: everything before it is in etcd already.
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	resp, err := c.Get(ctx, s.prefix+etcdProbeKey, clientv3.WithCountOnly())
	cancel()
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("%w: %w", apierr.New(apierr.ErrUnavailable, "etcd unreachable: %v", err), err)
	}

	s.gate.init()
	s.w = newWriter(etcdMergeOps, &s.pending, s.writeQueued)
	s.w.beforeGroup = opts.beforeGroup
	bg, stop := context.WithCancel(context.Background())
	s.stop = stop
	// The watch and the freshness rounds' progress requests share the stream that
	// this metadata names (the client keys its watch streams by it).
	wbg := clientv3.WithRequireLeader(bg)
	seen := make(chan struct{})
	s.revSeen.Store(&seen)
	s.watchCtx = wbg
	s.watchRev.Store(resp.Header.Revision)
	s.bg.Add(4)
	go func() { defer s.bg.Done(); s.w.run() }()
	go func() { defer s.bg.Done(); s.watch(wbg, resp.Header.Revision) }()
	go func() { defer s.bg.Done(); s.probe(bg) }()
	go func() { defer s.bg.Done(); s.followFreshness(wbg) }()
	return s, nil
}

// Client is the store's etcd client, for the cluster's own keys (membership, leases).
func (s *Etcd) Client() *clientv3.Client { return s.c }

// Prefix is what the store puts before every key.
func (s *Etcd) Prefix() string { return s.prefix }

// Shared implements Store.Shared: every member of the cluster writes to this state.
func (s *Etcd) Shared() bool { return true }

// Get implements Store.Get with a linearizable read, bounded by ctx and by the
// request timeout, whichever ends first.
func (s *Etcd) Get(ctx context.Context, key []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err)
	}
	if !s.gate.enter() {
		return nil, errClosed()
	}
	defer s.gate.leave()
	if len(key) == 0 {
		return nil, ErrNotFound
	}
	rctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	start := time.Now()
	resp, err := s.c.Get(rctx, s.prefix+string(key))
	s.metrics.observe("get", start, err)
	if err != nil {
		return nil, s.readError(ctx, "read failed", err)
	}
	s.healthy()
	if len(resp.Kvs) == 0 {
		return nil, ErrNotFound
	}
	return resp.Kvs[0].Value, nil
}

var _ MultiGetter = (*Etcd)(nil)

// GetMany implements MultiGetter: one read-only transaction of gets (linearizable, as
// Get is, and at one revision) per etcdMergeOps keys, so that a transaction never has
// more operations than etcd's default --max-txn-ops allows.
func (s *Etcd) GetMany(ctx context.Context, keys [][]byte) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err)
	}
	if !s.gate.enter() {
		return nil, errClosed()
	}
	defer s.gate.leave()
	out := make([][]byte, len(keys))
	for from := 0; from < len(keys); from += etcdMergeOps {
		chunk := keys[from:min(from+etcdMergeOps, len(keys))]
		ops := make([]clientv3.Op, 0, len(chunk))
		for _, k := range chunk {
			ops = append(ops, clientv3.OpGet(s.prefix+string(k)))
		}
		rctx, cancel := context.WithTimeout(ctx, s.timeout)
		start := time.Now()
		resp, err := s.c.Txn(rctx).Then(ops...).Commit()
		cancel()
		s.metrics.observe("get", start, err)
		if err != nil {
			return nil, s.readError(ctx, "read failed", err)
		}
		s.healthy()
		for i, r := range resp.Responses {
			rr := r.GetResponseRange()
			if rr == nil || len(rr.Kvs) == 0 || len(chunk[i]) == 0 {
				continue
			}
			v := rr.Kvs[0].Value
			if v == nil {
				v = []byte{}
			}
			out[from+i] = v
		}
	}
	return out, nil
}

// Scan implements Store.Scan: pages of range reads, all at the first page's revision,
// each bounded by ctx and by the request timeout, whichever ends first.
func (s *Etcd) Scan(ctx context.Context, prefix, after []byte, limit int, fn func(key, value []byte) error) error {
	if err := ctx.Err(); err != nil {
		return ctxError(err)
	}
	if !s.gate.enter() {
		return errClosed()
	}
	defer s.gate.leave()
	from := s.prefix + string(prefix)
	end := clientv3.GetPrefixRangeEnd(from)
	if bytes.Compare(after, prefix) >= 0 && len(after) > 0 {
		from = s.prefix + string(after) + "\x00" // strictly after
	}
	if from >= end {
		return nil
	}
	var rev int64
	n := 0
	done := ctx.Done()
	for {
		page := etcdScanPage
		if limit > 0 {
			page = min(page, limit-n)
		}
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithLimit(int64(page))}
		if rev > 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		rctx, cancel := context.WithTimeout(ctx, s.timeout)
		start := time.Now()
		resp, err := s.c.Get(rctx, from, opts...)
		cancel()
		s.metrics.observe("scan", start, err)
		if err != nil {
			return s.readError(ctx, "scan failed", err)
		}
		s.healthy()
		if rev == 0 {
			rev = resp.Header.Revision
		}
		for _, kv := range resp.Kvs {
			select {
			case <-done: // as Badger's Scan does: fn is not called once ctx ended
				return ctxError(ctx.Err())
			default:
			}
			if err := fn(kv.Key[len(s.prefix):], kv.Value); err != nil {
				return err
			}
			n++
		}
		if !resp.More || len(resp.Kvs) == 0 || limit > 0 && n >= limit {
			return nil
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// Commit implements Store.Commit: one etcd transaction. The batch must not be
// modified until Commit returns. Once sent, a transaction is waited for up to the
// request timeout even when ctx ends first, so that a write is not reported failed
// while it is being applied.
func (s *Etcd) Commit(ctx context.Context, b *Batch) error {
	if err := ctx.Err(); err != nil {
		return ctxError(err)
	}
	if !s.gate.enter() {
		return errClosed()
	}
	defer s.gate.leave()
	if b.empty() {
		return nil
	}
	// Nothing queued: no earlier write of this caller can still be on its way, so this
	// one may go now, concurrently with other callers' (see the file comment).
	if s.queued.Load() == 0 && (b.After == nil || b.After.Done()) {
		s.direct.Add(1)
		defer s.direct.Add(-1)
		err := errAfterFailedOf(b.After)
		if err == nil {
			err = s.applySettled(context.WithoutCancel(ctx), b)
		}
		if err == nil {
			s.commits.Add(1)
		} else {
			s.commitErrors.Add(1)
		}
		return err
	}
	return s.enqueue(b, nil).Wait(ctx)
}

// errAfterFailedOf is errAfterFailed when the write p names failed (p is done).
func errAfterFailedOf(p *Pending) error {
	if p == nil {
		return nil
	}
	if p.r == nil {
		if p.err != nil {
			return errAfterFailed
		}
		return nil
	}
	<-p.r.done // done: Commit checked
	if p.r.err != nil {
		return errAfterFailed
	}
	return nil
}

// Enqueue implements Store.Enqueue. The batch must not be modified until the result
// is known.
func (s *Etcd) Enqueue(b *Batch, then func(error)) *Pending {
	if !s.gate.enter() {
		err := errClosed()
		if then != nil {
			then(err)
		}
		return &Pending{err: err}
	}
	defer s.gate.leave()
	return s.enqueue(b, then)
}

func (s *Etcd) enqueue(b *Batch, then func(error)) *Pending {
	if b.empty() {
		if then != nil {
			then(nil)
		}
		return &Pending{}
	}
	s.queued.Add(1)
	r := newRequest(b, func(err error) {
		s.queued.Add(-1) // answered or withdrawn: called once either way
		if then != nil {
			then(err)
		}
	})
	if b.After != nil && b.After.r == nil && b.After.err != nil {
		r.after = &request{done: closedDone, err: b.After.err}
	}
	s.w.enqueue(r)
	return &Pending{w: s.w, r: r}
}

var closedDone = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// writeQueued is the writer's: it applies the queued requests in queue order and
// answers each. Consecutive batches without conditions share one transaction, up to
// etcdMergeOps operations in all: applied in order, the last write of a key wins, so
// the result is that of applying them one after another, and a pipelining owner does
// not pay one etcd round per write. A batch with conditions has a transaction of its
// own, so that a false condition fails that batch alone.
func (s *Etcd) writeQueued(group []*request) {
	for i := 0; i < len(group); {
		r := group[i]
		err := r.afterFailed()
		if err == nil {
			err = validateEtcd(r.batch)
		}
		if err != nil {
			s.answer([]*request{r}, err)
			i++
			continue
		}
		run := group[i : i+1]
		if mergeable(r.batch, 0) {
			ops := len(r.batch.Ops)
			for _, q := range group[i+1:] {
				if !mergeable(q.batch, ops) || q.afterFailed() != nil || validateEtcd(q.batch) != nil {
					break // answered by itself, in the next round
				}
				ops += len(q.batch.Ops)
				run = group[i : i+len(run)+1]
			}
		}
		b := r.batch
		if len(run) > 1 {
			b = &Batch{}
			for _, q := range run {
				b.Ops = append(b.Ops, q.batch.Ops...)
			}
		}
		settle, err := s.apply(context.Background(), b)
		s.answerInOrder(run, settle, err)
		i += len(run)
	}
}

// etcdMergeOps bounds the operations of the transaction writeQueued makes of several
// batches: etcd's default --max-txn-ops, so that merging never makes a transaction
// that the batches alone would not.
const etcdMergeOps = 128

// mergeable reports whether b may join a transaction already holding ops operations.
func mergeable(b *Batch, ops int) bool {
	// One operation is left for the read of the members' records that a store with
	// read leases adds to each transaction (etcd_readers.go).
	return len(b.Conds) == 0 && ops+len(b.Ops) <= etcdMergeOps-1
}

// answer gives the requests of one transaction its result, in queue order.
func (s *Etcd) answer(run []*request, err error) {
	for _, r := range run {
		if err != nil {
			r.failed.Store(true)
		}
	}
	for _, r := range run {
		finishRequest(r, err, &s.commits, &s.commitErrors)
	}
}

// apply writes b as one transaction and tells the watchers of its keys. settle, when
// not nil, is what must be waited for before the write is acknowledged (txn).
func (s *Etcd) apply(ctx context.Context, b *Batch) (settle func() error, err error) {
	if err := validateEtcd(b); err != nil {
		return nil, err
	}
	if f := s.fence.Load(); f != nil && f.lost.Load() {
		return nil, ErrFenced
	}
	// While etcd is known not to answer, fail at once rather than after a request
	// timeout each: a queue of writes would otherwise take one timeout per write to
	// fail. The probe notices within a second that etcd is back.
	if e := s.unreachable.Load(); e != nil {
		return nil, e
	}
	ops := lastPerKey(b.Ops)
	settle, err = s.txn(ctx, b.Conds, ops)
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		// A bucket's lease expired or was lost (etcd restored from a backup): forget
		// the leases and try once more with fresh ones.
		s.leases.forget()
		settle, err = s.txn(ctx, b.Conds, ops)
	}
	if err == nil || isUnknownOutcome(err) && !IsFenced(err) {
		for _, op := range ops {
			s.watchers.notify(op.Key)
		}
	}
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return nil, internal("a TTL write's lease was lost twice", err)
	}
	return settle, err
}

// applySettled is apply with its settle waited for.
func (s *Etcd) applySettled(ctx context.Context, b *Batch) error {
	settle, err := s.apply(ctx, b)
	if err == nil && settle != nil {
		err = settle()
	}
	return err
}

// txn runs one transaction. The error is an *apierr.Error, or rpctypes.ErrLeaseNotFound
// for apply to retry. When the transaction wrote and the store has readers, settle is
// the wait for them (etcd_readers.go), which the write's acknowledgement must follow.
func (s *Etcd) txn(ctx context.Context, conds []Cond, ops []Op) (settle func() error, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	cmps := make([]clientv3.Cmp, 0, len(conds)+1)
	for _, c := range conds {
		k := s.prefix + string(c.Key)
		if c.Absent {
			cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(k), "=", 0))
		} else {
			cmps = append(cmps, clientv3.Compare(clientv3.Value(k), "=", string(c.Value)))
		}
	}
	var orElse []clientv3.Op
	f := s.fence.Load()
	if f != nil {
		cmps = append(cmps, clientv3.Compare(clientv3.LeaseValue(f.key), "=", f.lease))
		// When the transaction fails, this read tells a lost fence from a condition.
		orElse = append(orElse, clientv3.OpGet(f.key))
	}
	then := make([]clientv3.Op, 0, len(ops)+1)
	for _, op := range ops {
		k := s.prefix + string(op.Key)
		switch {
		case op.Delete:
			then = append(then, clientv3.OpDelete(k))
		case op.TTL > 0:
			lease, err := s.leases.get(ctx, s, op.TTL)
			if err != nil {
				return nil, s.requestError("granting a lease failed", err, 0)
			}
			then = append(then, clientv3.OpPut(k, string(op.Value), clientv3.WithLease(lease)))
		default:
			then = append(then, clientv3.OpPut(k, string(op.Value)))
		}
	}
	readers := s.readersOf()
	if readers != nil {
		then = append(then, s.readersOp(readers)) // last: settle reads it there
	}
	start := time.Now()
	resp, err := s.c.Txn(ctx).If(cmps...).Then(then...).Else(orElse...).Commit()
	s.metrics.observe("txn", start, err)
	if err != nil {
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			return nil, rpctypes.ErrLeaseNotFound
		}
		return nil, s.requestError("write failed", err, len(then))
	}
	s.healthy()
	s.txns.Add(1)
	if resp.Succeeded {
		if readers != nil {
			return func() error { return s.settle(readers, resp) }, nil
		}
		return nil, nil
	}
	if f != nil && fenceLost(resp, f) {
		f.fire(s.log)
		return nil, ErrFenced
	}
	return nil, ErrConditionFailed
}

// fenceLost reports whether a failed transaction failed on the fence: the Else
// branch's read of the fence key shows it gone or held under another lease.
func fenceLost(resp *clientv3.TxnResponse, f *fence) bool {
	if len(resp.Responses) == 0 {
		return false
	}
	r := resp.Responses[0].GetResponseRange()
	return r == nil || len(r.Kvs) == 0 || clientv3.LeaseID(r.Kvs[0].Lease) != f.lease
}

// validateEtcd checks a batch before it is sent, as validate does for Badger.
func validateEtcd(b *Batch) error {
	for i, c := range b.Conds {
		if len(c.Key) == 0 {
			return apierr.New(apierr.ErrInternal, "storage: condition %d of the batch has an empty key", i)
		}
	}
	for i, op := range b.Ops {
		if len(op.Key) == 0 {
			return apierr.New(apierr.ErrInternal, "storage: op %d of the batch has an empty key", i)
		}
	}
	return nil
}

// lastPerKey keeps the last op of each key, in order: etcd refuses a transaction that
// writes one key twice, and in a batch the last write of a key wins.
func lastPerKey(ops []Op) []Op {
	last := make(map[string]int, len(ops))
	for i, op := range ops {
		last[string(op.Key)] = i
	}
	if len(last) == len(ops) {
		return ops
	}
	out := make([]Op, 0, len(last))
	for i, op := range ops {
		if last[string(op.Key)] == i {
			out = append(out, op)
		}
	}
	return out
}

// readError is requestError for a read made under the caller's ctx: when the read
// ended because ctx did, the caller gave up, etcd did not fail, so the error is ctx's
// and Health stays as it is. A read the store's own timeout ended stays etcd's fault,
// even when ctx ended meanwhile.
func (s *Etcd) readError(ctx context.Context, what string, err error) error {
	ctxErr := ctx.Err()
	switch {
	case ctxErr == nil:
	case errors.Is(err, ctxErr),
		ctxErr == context.Canceled && status.Code(err) == codes.Canceled,
		ctxErr == context.DeadlineExceeded && status.Code(err) == codes.DeadlineExceeded:
		return ctxError(ctxErr)
	}
	return s.requestError(what, err, 0)
}

// requestError turns a failed etcd request into the store's error; nOps is the size
// of a transaction (0 for reads). An unreachable etcd also turns Health unavailable.
func (s *Etcd) requestError(what string, err error, nOps int) error {
	switch {
	case errors.Is(err, rpctypes.ErrTooManyOps):
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrPayloadTooLarge,
			"storage: a transaction of %d operations is more than etcd's --max-txn-ops allows; "+
				"run every etcd member with --max-txn-ops=1024 or more", nOps), err)
	case errors.Is(err, rpctypes.ErrRequestTooLarge):
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrPayloadTooLarge,
			"storage: the write is larger than etcd's --max-request-bytes allows"), err)
	case errors.Is(err, rpctypes.ErrNoSpace):
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrInsufficientStorage,
			"etcd's database is full (its --quota-backend-bytes): compact and defragment it"), err)
	case timedOut(err) && nOps > 0:
		// A transaction sent that got no answer may still be applied: a 504 says so
		// (an idempotent request's key then stays claimed), where a 503 would tell the
		// client that nothing changed. One slow answer is a busy disk as often as a
		// hung etcd, and while etcd is taken for unreachable every write fails at
		// once: the probe decides that (two timeouts in a row), not one request.
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrTimeout, "etcd did not answer within %s; the write may have been applied", s.timeout), err)
	case timedOut(err):
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrUnavailable, "etcd did not answer within %s", s.timeout), err)
	case isUnreachable(err):
		return fmt.Errorf("%w: %w", s.unhealthy(err), err)
	case errors.Is(err, rpctypes.ErrTooManyRequests) || status.Code(err) == codes.ResourceExhausted:
		// etcd's apply lags under a write burst: this request is refused, etcd is not
		// down, so Health stays as it is.
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrUnavailable, "etcd is overloaded (too many requests); retry shortly"), err)
	default:
		return internal(what, err)
	}
}

// timedOut reports an etcd request that got no answer within its deadline.
func timedOut(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded
}

// isUnreachable recognises the errors of an etcd that does not answer, or has no
// leader: the request timed out, the connection failed, the cluster lost its quorum.
func isUnreachable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	code := status.Code(err)
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		code = ee.Code()
	}
	return code == codes.Unavailable || code == codes.DeadlineExceeded || code == codes.Canceled
}

// isUnknownOutcome reports whether a failed write may nevertheless have been applied.
// Both the 503 of an unreachable etcd and the 504 of a transaction that got no answer
// in time may have been applied.
func isUnknownOutcome(err error) bool {
	return errors.Is(err, apierr.ErrUnavailable) || errors.Is(err, apierr.ErrTimeout)
}

// unhealthy records that etcd does not answer and returns the error writes fail with.
func (s *Etcd) unhealthy(cause error) *apierr.Error {
	e := apierr.New(apierr.ErrUnavailable, "etcd unreachable: %v", cause)
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	if s.unreachable.Swap(e) == nil {
		s.log.Error("persistence: etcd unreachable; writes fail until it answers again", zap.Error(cause))
	}
	return e
}

// healthy records that etcd answered.
func (s *Etcd) healthy() {
	if s.unreachable.Load() == nil {
		return
	}
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	if s.unreachable.Swap(nil) != nil {
		s.log.Info("persistence: etcd answers again")
	}
}

// Health implements Store.Health: nil while etcd answers (the background probe reads
// from it every second), ErrFenced once the member's fence failed. It never waits on
// etcd: it reports what the probe and the last requests found, so that a health check
// is answered at once even while etcd hangs.
func (s *Etcd) Health() error {
	if !s.gate.enter() {
		return errClosed()
	}
	s.gate.leave()
	if f := s.fence.Load(); f != nil && f.lost.Load() {
		return ErrFenced
	}
	if e := s.unreachable.Load(); e != nil {
		return e
	}
	return nil
}

// probe reads from etcd every etcdProbeEvery until ctx ends, so that Health follows
// etcd's state without traffic.
func (s *Etcd) probe(ctx context.Context) {
	t := time.NewTicker(etcdProbeEvery)
	defer t.Stop()
	slow := false // the previous probe timed out
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, min(s.timeout, etcdProbeTimeout))
		start := time.Now()
		_, err := s.c.Get(pctx, s.prefix+etcdProbeKey, clientv3.WithCountOnly())
		cancel()
		if ctx.Err() != nil {
			return // closing: not an outage
		}
		s.metrics.observe("get", start, err)
		late := timedOut(err)
		switch {
		case err == nil:
			s.healthy()
		case late && !slow:
			// One slow answer is a busy machine as often as a hung etcd, and while
			// etcd is taken for unreachable every write fails at once: a second
			// timeout in a row decides. A refused connection decides at once.
		case isUnreachable(err):
			s.unhealthy(err)
		}
		slow = late
	}
}

// Watch implements Store.Watch.
func (s *Etcd) Watch(prefix []byte, fn func(key []byte)) { s.watchers.add(prefix, fn) }

// watch follows every write under the prefix, from every member, from the revision
// after rev, and tells the watchers. A watch that fails is opened again from the last
// revision seen, so no write is missed; one whose revisions were compacted away
// (etcd's history no longer has them) tells the watchers of every key there is.
func (s *Etcd) watch(ctx context.Context, rev int64) {
	for ctx.Err() == nil {
		wctx, cancel := context.WithCancel(ctx) // ctx requires a leader (OpenEtcd)
		ch := s.c.Watch(wctx, s.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1), clientv3.WithProgressNotify())
		for resp := range ch {
			if resp.CompactRevision > 0 {
				s.log.Warn("persistence: etcd compacted history the watch had not read; telling the watchers of every key",
					zap.Int64("from_revision", rev+1), zap.Int64("compact_revision", resp.CompactRevision))
				rev = resp.CompactRevision - 1
				// Before the watch's revision passes the writes it missed: a cache
				// that sees WatchedThrough move past them sees the reset too.
				s.resets.Add(1)
				s.notifyAll(ctx)
				break
			}
			if resp.Err() != nil {
				break
			}
			if s.watchDelay > 0 {
				time.Sleep(s.watchDelay)
			}
			for _, ev := range resp.Events {
				s.watchers.notify(ev.Kv.Key[len(s.prefix):])
				rev = max(rev, ev.Kv.ModRevision)
			}
			if resp.IsProgressNotify() {
				rev = max(rev, resp.Header.Revision)
			}
			s.seen(rev)
		}
		cancel()
		select {
		case <-ctx.Done():
		case <-time.After(etcdWatchRetry):
		}
	}
}

// notifyAll tells the watchers of every key under their prefixes. Keys deleted in
// the revisions the watch missed are not named: caches built on Watch are off on a
// shared store (Store.Shared) for this reason among others.
func (s *Etcd) notifyAll(ctx context.Context) {
	for _, p := range s.watchers.prefixes() {
		err := s.Scan(ctx, p, nil, 0, func(key, _ []byte) error {
			s.watchers.notify(bytes.Clone(key))
			return nil
		})
		if err != nil {
			s.log.Warn("persistence: listing keys after a compaction failed", zap.Error(err))
		}
	}
}

// Stats implements Store.Stats. Groups counts the transactions written (queued
// batches without conditions share them).
func (s *Etcd) Stats() Stats {
	return Stats{
		Commits:       s.commits.Load(),
		Groups:        s.txns.Load(),
		CommitErrors:  s.commitErrors.Load(),
		PendingWrites: s.queued.Load() + s.direct.Load(),
	}
}

// Collectors are the store's Prometheus metrics: vmplane_etcd_request_seconds and
// vmplane_etcd_request_errors_total, labelled by op (get, scan, txn).
func (s *Etcd) Collectors() []prometheus.Collector {
	return []prometheus.Collector{s.metrics.seconds, s.metrics.errors}
}

// SetFence makes every later transaction also require that Prefix+key is held under
// lease (the member's cluster lease). When it no longer is (the lease expired: the
// member was paused or cut off from etcd), the write fails with ErrFenced, so does
// every write after it without asking etcd, and lost is called once, on the writing
// goroutine. lost is called by a write: the loss of an idle member's lease is for
// its own keepalive to notice. A later SetFence replaces the fence (a member that
// rejoins with a new lease); a nil key removes it.
func (s *Etcd) SetFence(key []byte, lease clientv3.LeaseID, lost func()) {
	if key == nil {
		s.fence.Store(nil)
		return
	}
	s.fence.Store(&fence{key: s.prefix + string(key), lease: lease, lostFn: lost})
}

// fence is the condition every transaction of a member carries.
type fence struct {
	key    string // with the prefix
	lease  clientv3.LeaseID
	lostFn func()
	lost   atomic.Bool
}

func (f *fence) fire(log *zap.Logger) {
	if f.lost.CompareAndSwap(false, true) {
		log.Error("persistence: this member lost its cluster lease; its writes are refused",
			zap.String("fence_key", f.key), zap.Int64("lease", int64(f.lease)))
		if f.lostFn != nil {
			f.lostFn()
		}
	}
}

// Close stops accepting calls, waits for those under way and for the queued writes,
// stops the watch and the probe and closes the client. Later calls fail with
// apierr.ErrUnavailable. It is idempotent.
func (s *Etcd) Close() error {
	s.closeOnce.Do(func() {
		s.gate.close()
		s.w.stop()
		s.settling.wait()
		s.stop()
		s.bg.Wait()
		if err := s.c.Close(); err != nil && !errors.Is(err, context.Canceled) {
			s.closeErr = internal("closing the etcd client failed", err)
		}
	})
	return s.closeErr
}

// leaseBuckets shares one lease among the TTL writes that expire in the same second.
type leaseBuckets struct {
	mu sync.Mutex
	m  map[int64]*leaseGrant // by the Unix second the lease expires at
}

type leaseGrant struct {
	done chan struct{}
	id   clientv3.LeaseID
	err  error
}

// get returns a lease that expires at the end of the second in which now+ttl falls,
// granting it when no write asked for that second yet.
func (l *leaseBuckets) get(ctx context.Context, s *Etcd, ttl time.Duration) (clientv3.LeaseID, error) {
	now := time.Now()
	expiry := now.Add(ttl)
	sec := expiry.Unix()
	if expiry.Nanosecond() > 0 {
		sec++
	}
	l.mu.Lock()
	if l.m == nil {
		l.m = map[int64]*leaseGrant{}
	}
	g, ok := l.m[sec]
	if !ok {
		for k := range l.m { // expired buckets
			if k < now.Unix() {
				delete(l.m, k)
			}
		}
		g = &leaseGrant{done: make(chan struct{})}
		l.m[sec] = g
	}
	l.mu.Unlock()
	if !ok {
		secs := int64(math.Ceil(time.Unix(sec, 0).Sub(now).Seconds()))
		start := time.Now()
		resp, err := s.c.Grant(ctx, max(secs, 1))
		s.metrics.observe("txn", start, err)
		if err != nil {
			g.err = err
			l.mu.Lock()
			if l.m[sec] == g {
				delete(l.m, sec) // the next write asks again
			}
			l.mu.Unlock()
		} else {
			g.id = resp.ID
		}
		close(g.done)
	}
	select {
	case <-g.done:
		return g.id, g.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// forget drops every lease, so that the next TTL writes grant new ones.
func (l *leaseBuckets) forget() {
	l.mu.Lock()
	l.m = nil
	l.mu.Unlock()
}

// etcdMetrics are the request figures of one store.
type etcdMetrics struct {
	seconds *prometheus.HistogramVec
	errors  *prometheus.CounterVec
}

func newEtcdMetrics() etcdMetrics {
	return etcdMetrics{
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "vmplane_etcd_request_seconds",
			Help:    "Latency of the etcd store's requests, by op (get, scan, txn, caught-up: a revision read of CaughtUp's rounds).",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14), // 0.5 ms to 4 s
		}, []string{"op"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vmplane_etcd_request_errors_total",
			Help: "Failed requests of the etcd store, by op (get, scan, txn).",
		}, []string{"op"}),
	}
}

func (m etcdMetrics) observe(op string, start time.Time, err error) {
	m.seconds.WithLabelValues(op).Observe(time.Since(start).Seconds())
	if err != nil {
		m.errors.WithLabelValues(op).Inc()
	}
}

// upgradeLockTTL bounds how long the upgrade lock outlives a member that died holding
// it: its session's lease expires and the next member takes the lock.
const upgradeLockTTL = 10 // seconds

// lockUpgrade takes the cluster-wide lock that Upgrade holds (an etcd mutex under
// Prefix+"locks/schema-upgrade", on a session of its own, so that releasing it never
// touches the member's lease). It waits while another member holds it, as long as ctx.
func (s *Etcd) lockUpgrade(ctx context.Context) (func(), error) {
	sess, err := concurrency.NewSession(s.c, concurrency.WithTTL(upgradeLockTTL), concurrency.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", apierr.New(apierr.ErrUnavailable, "etcd: the schema upgrade lock: %v", err), err)
	}
	m := concurrency.NewMutex(sess, s.prefix+"locks/schema-upgrade")
	if err := m.Lock(ctx); err != nil {
		_ = sess.Close()
		return nil, fmt.Errorf("%w: %w", apierr.New(apierr.ErrUnavailable, "etcd: the schema upgrade lock: %v", err), err)
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		defer cancel()
		if err := m.Unlock(ctx); err != nil {
			s.log.Warn("could not release the schema upgrade lock; it expires with its session", zap.Error(err))
		}
		_ = sess.Close() // revokes the session's lease
	}, nil
}
