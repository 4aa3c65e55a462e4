package actors

import (
	"context"
	"runtime"
	"sync"

	"go.uber.org/zap"
	"golang.org/x/crypto/bcrypt"

	"github.com/vmplane/vmplane/apierr"
)

// passwordHasher runs every bcrypt of the users service on a few dedicated worker
// goroutines at background priority.
//
// Why: one bcrypt at the default cost is tens of milliseconds of pure CPU. Run on the
// request goroutines, a burst of logins (the few an attacker's storm gets past the rate
// limiter) hashes on every core at once, and every other API request waits behind it.
// Here the hashing is bounded to a fixed number of workers, each on its own OS thread
// lowered to nice 19: a burst of logins queues behind itself, and when the API needs
// the CPU the hashing yields it. The login rate limit bounds how many callers can be
// waiting; a caller whose context ends stops waiting at once.
//
// Each worker locks its goroutine to its thread for good and never unlocks: the thread
// keeps the lowered priority, no other goroutine ever runs on it, and it exits with the
// worker. The runtime also never clones a locked thread: new threads are started from
// its template thread, so they do not inherit the lowered priority either. The one
// thread a worker does not keep is the process's main thread (see work).
type passwordHasher struct {
	// jobs is unbuffered: a job is either still with its caller, who can give up, or
	// taken by a worker, which always answers. None is ever stranded in a buffer.
	jobs chan *hashJob
	done chan struct{}
	wg   sync.WaitGroup
	stop sync.Once
	log  *zap.Logger
	warn sync.Once
	// around, when set (tests only), wraps each job's work on the worker's goroutine.
	around func(run func())
}

// hashJob is one bcrypt: a compare of hash and password, or, with generate, a new hash
// of password at cost.
type hashJob struct {
	ctx      context.Context
	generate bool
	hash     []byte
	password []byte
	cost     int
	// reply has room for the answer, so a worker never waits for a caller that left.
	reply chan hashResult
}

type hashResult struct {
	hash []byte
	err  error
	// skipped: the caller's context had ended when a worker took the job.
	skipped bool
}

// startPasswordHasher starts workers hashing goroutines (1 when workers < 1). around
// is a test hook, nil in production.
func startPasswordHasher(workers int, log *zap.Logger, around func(run func())) *passwordHasher {
	if workers < 1 {
		workers = 1
	}
	if log == nil {
		log = zap.NewNop()
	}
	h := &passwordHasher{jobs: make(chan *hashJob), done: make(chan struct{}), log: log, around: around}
	h.wg.Add(workers)
	for range workers {
		go h.work(nil)
	}
	return h
}

// work is one worker, counted in wg. When moved is not nil, it is closed once the
// worker holds its thread.
func (h *passwordHasher) work(moved chan<- struct{}) {
	defer h.wg.Done()
	// Never unlocked: the goroutine ends locked, so the thread, with its lowered
	// priority, ends with it instead of going back to the runtime's pool.
	runtime.LockOSThread()
	if onMainThread() {
		// The runtime never ends the main thread: a goroutine that exits locked to it
		// leaves it parked for good, here at nice 19, which is also the nice that
		// tools show for the whole process. So the worker moves: while this goroutine
		// holds the main thread, its replacement cannot be scheduled there.
		h.wg.Add(1)
		next := make(chan struct{})
		go h.work(next)
		<-next
		runtime.UnlockOSThread()
		return
	}
	if moved != nil {
		close(moved)
	}
	if err := lowerThreadPriority(); err != nil {
		h.warn.Do(func() {
			h.log.Warn("could not lower the priority of the password hashing thread; hashing runs at normal priority",
				zap.Error(err))
		})
	}
	for {
		select {
		case <-h.done:
			return
		case j := <-h.jobs:
			if j.ctx.Err() != nil {
				// Its caller has gone while it waited: nobody wants the answer.
				j.reply <- hashResult{skipped: true}
				continue
			}
			if h.around != nil {
				h.around(func() { j.reply <- j.run() })
			} else {
				j.reply <- j.run()
			}
		}
	}
}

func (j *hashJob) run() hashResult {
	if j.generate {
		hash, err := bcrypt.GenerateFromPassword(j.password, j.cost)
		return hashResult{hash: hash, err: err}
	}
	return hashResult{err: bcrypt.CompareHashAndPassword(j.hash, j.password)}
}

// do hands a job to a worker and waits for its answer, for ctx to end or for the
// hasher to stop. A job given up on may still run; its answer is dropped.
func (h *passwordHasher) do(ctx context.Context, j *hashJob) (hashResult, error) {
	if err := ctx.Err(); err != nil {
		return hashResult{}, ctxError(err)
	}
	select {
	case <-h.done:
		return hashResult{}, errHasherStopped
	default:
	}
	j.ctx, j.reply = ctx, make(chan hashResult, 1)
	select {
	case h.jobs <- j:
	case <-ctx.Done():
		return hashResult{}, ctxError(ctx.Err())
	case <-h.done:
		return hashResult{}, errHasherStopped
	}
	select {
	case r := <-j.reply:
		if r.skipped {
			return hashResult{}, ctxError(ctx.Err())
		}
		return r, nil
	case <-ctx.Done():
		return hashResult{}, ctxError(ctx.Err())
	}
}

// compare reports whether password matches hash. The error is only ever ctx's end or
// the hasher's stop; a malformed hash is a mismatch.
func (h *passwordHasher) compare(ctx context.Context, hash []byte, password string) (bool, error) {
	r, err := h.do(ctx, &hashJob{hash: hash, password: []byte(password)})
	if err != nil {
		return false, err
	}
	return r.err == nil, nil
}

// generate hashes password at cost.
func (h *passwordHasher) generate(ctx context.Context, password string, cost int) ([]byte, error) {
	r, err := h.do(ctx, &hashJob{generate: true, password: []byte(password), cost: cost})
	if err != nil {
		return nil, err
	}
	return r.hash, r.err
}

// close stops the workers and waits for them; a job in progress finishes first.
// Callers after that are answered unavailable. Safe to call more than once.
func (h *passwordHasher) close() {
	h.stop.Do(func() { close(h.done) })
	h.wg.Wait()
}

var errHasherStopped = apierr.New(apierr.ErrUnavailable, "the service is not available")

// ctxError maps the end of a caller's context as ask does: a deadline is a timeout,
// a cancellation makes the service unavailable to that caller.
func ctxError(err error) error {
	return apierr.From(err)
}
