package persistence

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
)

// Appliance-sized defaults, used when the matching Options field is zero. Badger's own
// defaults (64 MiB memtables ×5, 256 MiB block cache, 1 GiB value-log files) suit a
// database server, not a control plane that shares a small machine with its VMs.
const (
	DefaultMemTableSize   = 16 << 20
	DefaultBlockCacheSize = 32 << 20
	DefaultIndexCacheSize = 16 << 20
	DefaultMaxBatch       = 1024

	// MinMemTableSize is the smallest memtable Open accepts (smaller values are raised to
	// it): Badger refuses a transaction larger than 15% of a memtable, and one value of
	// MaxValueSize must still fit in a transaction.
	MinMemTableSize = 8 << 20
)

// Limits that Commit enforces per batch; a batch over them fails alone.
const (
	// MaxKeySize is Badger's own key limit (txn.go), checked before Badger sees the key.
	MaxKeySize = 65000
	// MaxValueSize keeps every value below Badger's value threshold, so values live in
	// the LSM tree and its write-ahead log and never in the value log. That makes one
	// WAL sync cover a whole write (see groupcommit.go) and means the value log never
	// needs garbage collection.
	MaxValueSize = valueThreshold - 1

	valueThreshold   = 1 << 20 // Badger's maximum ValueThreshold
	valueLogFileSize = 64 << 20
	numMemtables     = 2
)

// Options configures Open. Zero values pick appliance-sized defaults.
type Options struct {
	// Dir is the data directory, created if missing. One process at a time may use it.
	Dir string
	// Logger receives Badger's warnings and errors; its info lines go out at debug
	// level. Nil means no logging.
	Logger *zap.Logger
	// MemTableSize is the size of one memtable (0 → DefaultMemTableSize; at least
	// MinMemTableSize). Badger keeps up to three in memory.
	MemTableSize int64
	// BlockCacheSize is Badger's block cache (0 → DefaultBlockCacheSize).
	BlockCacheSize int64
	// IndexCacheSize is Badger's table-index cache (0 → DefaultIndexCacheSize).
	IndexCacheSize int64
	// MaxBatch caps the commits gathered into one synced transaction (0 →
	// DefaultMaxBatch).
	MaxBatch int
	// NoGroupCommit makes every Commit its own transaction, synced by Badger itself
	// (SyncWrites=true). It is the baseline the benchmarks compare group commit with;
	// production code leaves it false.
	NoGroupCommit bool

	// MinFreeBytes is the free space on the data directory's filesystem below which
	// writes are refused with apierr.ErrInsufficientStorage (0 → DefaultMinFree;
	// negative: no check). See health.go for why Badger needs it.
	MinFreeBytes int64
	// RecoverEvery is how often a store whose writes failed tries to reopen
	// (0 → DefaultRecoverEvery).
	RecoverEvery time.Duration
	// FreeSpace, when set, replaces the query of the free space on Dir's filesystem
	// (tests use it to fill a disk).
	FreeSpace func() (uint64, error)

	// beforeGroup, when set (by tests only), runs in the writer before each group.
	beforeGroup func()
	// Fault injection, by tests only: syncHook runs before each sync of a group and
	// its error counts as the sync's; probeHook fails the recovery's write probe.
	syncHook  func() error
	probeHook func() error
}

// Badger is the Store backed by a Badger database in one local directory.
type Badger struct {
	// db is nil only after a reopen failed (see maybeRecover); it changes only while
	// the gate is paused, on the writer goroutine.
	db   *badger.DB
	opts badger.Options
	log  *zap.Logger
	dir  string
	lock *dirLock // held from Open to Close

	dirID        fileID      // the data directory at Open (checkDir)
	dirKnown     bool        // dirID could be read at Open
	gone         atomic.Bool // the data directory was removed or replaced
	minFree      int64
	recoverEvery time.Duration
	lastRecover  time.Time // writer goroutine only
	// pendingClose ends when a Close of the failed store that closeDB gave up waiting
	// for returns; until then it holds the directory lock, and a reopen cannot work.
	pendingClose <-chan error
	syncHook     func() error
	freeHook     func() (uint64, error)
	probeHook    func() error
	stateLog

	// explicitSync: Badger runs with SyncWrites=false and the writer calls db.Sync
	// after each transaction (group-commit mode). False in NoGroupCommit mode, where
	// Badger syncs inside every txn.Commit.
	explicitSync bool
	w            *writer // nil in NoGroupCommit mode
	// condMu, in NoGroupCommit mode, keeps every other write out while a batch with
	// conditions is checked and written.
	condMu sync.RWMutex

	gate gate

	watchers watchList

	commits      atomic.Uint64
	groups       atomic.Uint64
	commitErrors atomic.Uint64
	pending      atomic.Int64
	// failed holds the error that disabled writes after a write or sync failed.
	failed atomic.Pointer[apierr.Error]

	closeOnce sync.Once
	closeErr  error
}

var _ Store = (*Badger)(nil)

// Open opens (creating if needed) the store in opts.Dir. It fails with an *InUseError
// (an apierr.ErrUnavailable error naming the holder's pid) when another process, or
// another Open in this one, holds the directory.
func Open(opts Options) (*Badger, error) {
	if opts.Dir == "" {
		return nil, apierr.New(apierr.ErrInternal, "persistence: no data directory configured")
	}
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	memTable := orDefault(opts.MemTableSize, DefaultMemTableSize)
	memTable = max(memTable, MinMemTableSize)
	maxBatch := opts.MaxBatch
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatch
	}

	bo := badger.DefaultOptions(opts.Dir).
		WithLogger(badgerLogger{s: log.Named("badger").Sugar(), t: &repeats{}}).
		// See groupcommit.go for why group commit runs with SyncWrites=false.
		WithSyncWrites(opts.NoGroupCommit).
		WithMemTableSize(memTable).
		WithNumMemtables(numMemtables).
		WithBlockCacheSize(orDefault(opts.BlockCacheSize, DefaultBlockCacheSize)).
		WithIndexCacheSize(orDefault(opts.IndexCacheSize, DefaultIndexCacheSize)).
		WithValueLogFileSize(valueLogFileSize).
		WithValueThreshold(valueThreshold).
		// Two cores: Badger's minimum of two compactors is plenty.
		WithNumCompactors(2).
		// The only writer never reads inside its transactions: nothing to detect.
		WithDetectConflicts(false)

	// Our lock first: it names the holder, which Badger's own lock cannot.
	lock, err := lockDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	db, err := badger.Open(bo)
	if err != nil {
		lock.unlock()
		if isDirLocked(err) {
			return nil, fmt.Errorf("%w (%w)", apierr.New(apierr.ErrUnavailable,
				"data directory %s is in use by another vmplane process", opts.Dir), err)
		}
		return nil, fmt.Errorf("%w: %w", apierr.New(apierr.ErrUnavailable,
			"cannot open data directory %s", opts.Dir), err)
	}

	s := &Badger{db: db, opts: bo, log: log, dir: opts.Dir, lock: lock, explicitSync: !opts.NoGroupCommit,
		minFree: opts.MinFreeBytes, recoverEvery: opts.RecoverEvery,
		syncHook: opts.syncHook, freeHook: opts.FreeSpace, probeHook: opts.probeHook}
	if s.minFree == 0 {
		s.minFree = DefaultMinFree(memTable)
	}
	if s.recoverEvery <= 0 {
		s.recoverEvery = DefaultRecoverEvery
	}
	if id, err := dirID(opts.Dir); err == nil {
		s.dirID, s.dirKnown = id, true
	}
	s.gate.init()
	if !opts.NoGroupCommit {
		s.w = newWriter(maxBatch, &s.pending, func(group []*request) {
			s.maybeRecover()
			if len(group) > 0 {
				s.writeGroup(group)
			}
		})
		s.w.beforeGroup = opts.beforeGroup
		// While writes have failed, an idle store tries to recover too.
		s.w.idle = func() time.Duration {
			if s.failed.Load() != nil {
				return s.recoverEvery
			}
			return 0
		}
		go s.w.run()
	}
	return s, nil
}

func orDefault(v, def int64) int64 {
	if v <= 0 {
		return def
	}
	return v
}

// isDirLocked recognises Badger's failure to flock the directory. Badger flattens the
// cause into text (y.Wrap without debug mode), so errors.Is on the errno only works if
// a later Badger keeps the chain; the message test covers v4.9.6. TestSecondOpenFails pins it.
func isDirLocked(err error) bool {
	return errors.Is(err, syscall.EWOULDBLOCK) ||
		strings.Contains(err.Error(), "Cannot acquire directory lock")
}

// Get returns a copy of the value stored under key, or ErrNotFound.
func (s *Badger) Get(ctx context.Context, key []byte) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err)
	}
	if !s.gate.enter() {
		return nil, errClosed()
	}
	defer s.gate.leave()
	if len(key) == 0 {
		return nil, ErrNotFound // no record can have an empty key
	}
	if s.db == nil {
		return nil, errNoDB
	}
	var out []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		out, err = item.ValueCopy(nil)
		return err
	})
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, badger.ErrKeyNotFound):
		return nil, ErrNotFound
	default:
		return nil, internal("read failed", err)
	}
}

// Scan implements Store.Scan on one Badger read transaction, so it sees a consistent
// snapshot.
func (s *Badger) Scan(ctx context.Context, prefix, after []byte, limit int, fn func(key, value []byte) error) error {
	if err := ctx.Err(); err != nil {
		return ctxError(err)
	}
	if !s.gate.enter() {
		return errClosed()
	}
	defer s.gate.leave()
	if s.db == nil {
		return errNoDB
	}

	// A receive that does not block is how each key checks ctx: no lock, no syscall.
	done := ctx.Done()
	var fnErr, ctxErr error
	err := s.db.View(func(txn *badger.Txn) error {
		itOpts := badger.DefaultIteratorOptions
		itOpts.Prefix = prefix
		// Values sit in the LSM tree (MaxValueSize), so reading them is cheap:
		// prefetching would only copy them.
		itOpts.PrefetchValues = false
		it := txn.NewIterator(itOpts)
		defer it.Close()

		start := prefix
		if bytes.Compare(after, prefix) > 0 {
			start = after
		}
		n := 0
		for it.Seek(start); it.ValidForPrefix(prefix); it.Next() {
			select {
			case <-done:
				ctxErr = ctxError(ctx.Err())
				return ctxErr
			default:
			}
			item := it.Item()
			key := item.Key()
			if len(after) > 0 && bytes.Equal(key, after) {
				continue
			}
			if err := item.Value(func(v []byte) error {
				fnErr = fn(key, v)
				return fnErr
			}); err != nil {
				return err
			}
			n++
			if limit > 0 && n >= limit {
				break
			}
		}
		return nil
	})
	switch {
	case err == nil:
		return nil
	case fnErr != nil:
		return fnErr // the callback's own error, unwrapped, as the contract says
	case ctxErr != nil:
		return ctxErr
	default:
		return internal("scan failed", err)
	}
}

// Commit implements Store.Commit. The batch, its keys and its values must not be
// modified until Commit returns. An empty batch returns nil at once.
func (s *Badger) Commit(ctx context.Context, b *Batch) error {
	if err := ctx.Err(); err != nil {
		return ctxError(err)
	}
	return s.Enqueue(b, nil).Wait(ctx)
}

// Enqueue implements Store.Enqueue. The batch must not be modified until the result
// is known.
func (s *Badger) Enqueue(b *Batch, then func(error)) *Pending {
	known := func(err error) *Pending {
		if then != nil {
			then(err)
		}
		return &Pending{err: err}
	}
	if !s.gate.enter() {
		return known(errClosed())
	}
	defer s.gate.leave()
	if e := s.failed.Load(); e != nil {
		s.commitErrors.Add(1)
		return known(e)
	}
	if b.empty() {
		return known(nil)
	}
	if b.After != nil && b.After.r == nil && b.After.err != nil {
		return known(errAfterFailed)
	}
	r := newRequest(b, then)
	if s.w == nil {
		// Baseline: this caller writes its own synced transaction, now. Transactions
		// run concurrently and Badger does not detect conflicts, so a batch with
		// conditions runs alone: nothing may write between its check and its commit.
		if len(b.Conds) > 0 {
			s.condMu.Lock()
			defer s.condMu.Unlock()
		} else {
			s.condMu.RLock()
			defer s.condMu.RUnlock()
		}
		r.state.Store(stateTaken)
		s.writeGroup([]*request{r})
		return &Pending{err: r.err}
	}
	s.w.enqueue(r)
	return &Pending{w: s.w, r: r}
}

// Pending is a batch handed to the store by Enqueue.
type Pending struct {
	w   waiter
	r   *request
	err error // the result when known at Enqueue
}

// waiter is the queue a pending request waits in: Badger's group-commit writer or the
// etcd store's ordered writer.
type waiter interface {
	wait(ctx context.Context, r *request) error
}

// Done reports whether the result is known: Wait would return at once.
func (p *Pending) Done() bool {
	if p.r == nil {
		return true
	}
	select {
	case <-p.r.done:
		return true
	default:
		return false
	}
}

// Wait returns what Commit would have: nil once the batch is durable. A ctx that ends
// while the batch is still queued withdraws it; once the writer has taken it, Wait
// waits for the result, so a durable write is never reported as failed.
func (p *Pending) Wait(ctx context.Context) error {
	if p.r == nil {
		return p.err
	}
	return p.w.wait(ctx, p.r)
}

// Stats implements Store.Stats. The sizes are Badger's own figures, which it refreshes
// about once a minute; they are zero after Close.
func (s *Badger) Stats() Stats {
	st := Stats{
		Commits:       s.commits.Load(),
		Groups:        s.groups.Load(),
		CommitErrors:  s.commitErrors.Load(),
		PendingWrites: s.pending.Load(),
	}
	if s.gate.enter() {
		if s.db != nil {
			st.LSMBytes, st.VLogBytes = s.db.Size()
			for _, l := range s.db.Levels() {
				st.CompactionScore = max(st.CompactionScore, l.Score)
			}
		}
		s.gate.leave()
	}
	return st
}

// Shared implements Store.Shared: a Badger directory belongs to one process.
func (s *Badger) Shared() bool { return false }

// Close stops accepting calls (they fail with apierr.ErrUnavailable), waits for the
// calls already under way (so every queued commit is written and acknowledged), stops
// the writer and closes Badger. It is idempotent; every call returns the first result.
// It must not be called from a Scan callback.
func (s *Badger) Close() error {
	s.closeOnce.Do(func() {
		s.gate.close()
		if s.w != nil {
			s.w.stop()
		}
		defer s.lock.unlock()
		if s.db == nil {
			return
		}
		if err := s.closeDB(); err != nil {
			s.closeErr = internal("closing the store failed", err)
		}
	})
	return s.closeErr
}

func errClosed() error {
	return apierr.New(apierr.ErrUnavailable, "the store is closed")
}

// internal wraps a storage failure: callers and the HTTP edge see a generic 500, logs
// and tests still reach the cause.
func internal(what string, cause error) error {
	return fmt.Errorf("%w: %w", apierr.New(apierr.ErrInternal, "storage: %s", what), cause)
}

// ctxError keeps the context error reachable (errors.Is(err, context.Canceled)) while
// giving it the API kind apierr.From would choose.
func ctxError(err error) error {
	kind := apierr.New(apierr.ErrUnavailable, "the request was cancelled")
	if errors.Is(err, context.DeadlineExceeded) {
		kind = apierr.New(apierr.ErrTimeout, "the request did not finish in time")
	}
	return fmt.Errorf("%w: %w", kind, err)
}

// gate counts the calls inside the store so that Close can refuse new ones and wait
// for the rest. Unlike a sync.RWMutex it lets a Scan callback call Get (re-entry) while
// Close is waiting.
type gate struct {
	mu     sync.Mutex
	idle   *sync.Cond // signalled when n drops to 0 and when a pause ends
	n      int
	closed bool
	// paused holds new calls back while the store is reopened (pause, resume).
	paused, timedOut bool
}

func (g *gate) init() { g.idle = sync.NewCond(&g.mu) }

func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.paused && !g.closed {
		g.idle.Wait()
	}
	if g.closed {
		return false
	}
	g.n++
	return true
}

func (g *gate) leave() {
	g.mu.Lock()
	g.n--
	if g.n == 0 && (g.closed || g.paused) {
		g.idle.Broadcast()
	}
	g.mu.Unlock()
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	for g.n > 0 {
		g.idle.Wait()
	}
	g.mu.Unlock()
}

// badgerLogger routes Badger's log lines into zap. Badger logs routine events
// (tables opened, memtables flushed) at info: those become debug so that the default
// production level shows only its warnings and errors. Its debug lines (one per write)
// are dropped.
//
// Badger retries a failed flush or compaction every second and logs each try: a line
// of the same format is logged at most once per badgerRepeatEvery, with the count of
// the ones held back, so a failing disk does not flood the log.
type badgerLogger struct {
	s *zap.SugaredLogger
	t *repeats
}

const badgerRepeatEvery = time.Minute

// repeats remembers when each log format was last let through.
type repeats struct {
	mu   sync.Mutex
	last map[string]time.Time
	held map[string]int
}

// allow reports whether a line of format f may be logged now, and how many were
// held back since the last one.
func (r *repeats) allow(f string) (bool, int) {
	if r == nil {
		return true, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last == nil {
		r.last, r.held = map[string]time.Time{}, map[string]int{}
	}
	now := time.Now()
	if t, ok := r.last[f]; ok && now.Sub(t) < badgerRepeatEvery {
		r.held[f]++
		return false, 0
	}
	n := r.held[f]
	r.last[f], r.held[f] = now, 0
	return true, n
}

func (l badgerLogger) Errorf(f string, a ...any) {
	if ok, n := l.t.allow(f); ok {
		l.s.Errorw(trim(f, a), repeatedField(n)...)
	}
}

func (l badgerLogger) Warningf(f string, a ...any) {
	if ok, n := l.t.allow(f); ok {
		l.s.Warnw(trim(f, a), repeatedField(n)...)
	}
}

func repeatedField(n int) []any {
	if n == 0 {
		return nil
	}
	return []any{"repeated_since_last", n}
}
func (l badgerLogger) Infof(f string, a ...any) {
	if l.s.Level().Enabled(zap.DebugLevel) {
		l.s.Debug(trim(f, a))
	}
}
func (l badgerLogger) Debugf(string, ...any) {}

func trim(f string, a []any) string { return strings.TrimSpace(fmt.Sprintf(f, a...)) }

// Watch implements Store.Watch.
func (s *Badger) Watch(prefix []byte, fn func(key []byte)) { s.watchers.add(prefix, fn) }

// notifyWatchers tells the watchers about the keys of committed requests. It runs
// after the transaction commit made them visible and before the requests are answered.
func (s *Badger) notifyWatchers(reqs []*request) {
	for _, r := range reqs {
		for _, op := range r.batch.Ops {
			s.watchers.notify(op.Key)
		}
	}
}

// watcher is one Watch registration.
type watcher struct {
	prefix []byte
	fn     func(key []byte)
}

// watchList holds the Watch registrations of a store, copied on write: writers read
// them without a lock on every commit.
type watchList struct {
	mu   sync.Mutex
	list atomic.Pointer[[]watcher]
}

func (l *watchList) add(prefix []byte, fn func(key []byte)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ws []watcher
	if old := l.list.Load(); old != nil {
		ws = append(ws, *old...)
	}
	ws = append(ws, watcher{prefix: bytes.Clone(prefix), fn: fn})
	l.list.Store(&ws)
}

// notify calls every watcher whose prefix key has.
func (l *watchList) notify(key []byte) {
	ws := l.list.Load()
	if ws == nil {
		return
	}
	for _, w := range *ws {
		if bytes.HasPrefix(key, w.prefix) {
			w.fn(key)
		}
	}
}

// prefixes are the watched prefixes.
func (l *watchList) prefixes() [][]byte {
	ws := l.list.Load()
	if ws == nil {
		return nil
	}
	out := make([][]byte, len(*ws))
	for i, w := range *ws {
		out[i] = w.prefix
	}
	return out
}
