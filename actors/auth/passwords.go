package auth

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/crypto/bcrypt"

	"github.com/vmplane/vmplane/apierr"
)

// passwordHasher runs every bcrypt of the users service on a few dedicated workers.
//
// Why: one bcrypt at the default cost is tens of milliseconds of pure CPU. Run on the
// request goroutines, a burst of logins (the few an attacker's storm gets past the rate
// limiter) hashes on every core at once, and every other API request waits behind it.
// Here the hashing is bounded to a fixed number of workers, so a burst of logins
// queues behind itself; the login rate limit bounds how many callers can be waiting,
// and a caller whose context ends stops waiting at once.
//
// With a command (AuthOptions.HashCommand; serve passes `vmplane hash-worker`), each
// worker hashes in a child process of its own that runs at the lowest OS priority
// (hashproc.go), so the kernel gives the core to the API whenever it wants it. Not in
// this process: a thread here that the kernel keeps waiting would hold one of the Go
// scheduler's processors, and every garbage collection stops the world until each of
// them reaches a safe point; with other programs busy on the host, a nice-19 thread
// stalled this process's collections for 280 ms (SCHED_IDLE: 430 ms). Without a
// command, or when a child cannot be started, a worker hashes here at normal priority.
type passwordHasher struct {
	// jobs is unbuffered: a job is either still with its caller, who can give up, or
	// taken by a worker, which always answers. None is ever stranded in a buffer.
	jobs    chan *hashJob
	done    chan struct{}
	wg      sync.WaitGroup
	stop    sync.Once
	log     *zap.Logger
	warn    sync.Once
	command []string
	// localFor is hashLocalFor, shorter in tests; patience is hashPatience, longer in
	// the tests that want a hash computed in a child even on a loaded machine.
	localFor, patience time.Duration
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
	// pid is the hashing process's, 0 when hashed in this process.
	pid int
}

// startPasswordHasher starts workers hashing goroutines (1 when workers < 1), each with
// a child process of its own when command is set. around is a test hook, nil in
// production.
func startPasswordHasher(workers int, log *zap.Logger, around func(run func()), command []string) *passwordHasher {
	if workers < 1 {
		workers = 1
	}
	if log == nil {
		log = zap.NewNop()
	}
	h := &passwordHasher{jobs: make(chan *hashJob), done: make(chan struct{}), log: log, around: around, command: command, localFor: hashLocalFor, patience: hashPatience}
	h.wg.Add(workers)
	for range workers {
		go h.work()
	}
	return h
}

// work is one worker, counted in wg.
func (h *passwordHasher) work() {
	defer h.wg.Done()
	var (
		proc  *hashProcess
		local time.Time // until then, hash here: the last child failed or starved
	)
	defer func() { proc.close() }()
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
			run := func() { j.reply <- h.runJob(&proc, &local, j) }
			if h.around != nil {
				h.around(run)
			} else {
				run()
			}
		}
	}
}

// runJob hashes in the worker's child process, started on first use and again after
// it died, or here when there is no command or no child can be had. After a child
// failed, or was starved of CPU by other programs, the worker hashes here for
// hashLocalFor: a busy machine stays busy a while, and each login would otherwise
// wait hashPatience first.
func (h *passwordHasher) runJob(proc **hashProcess, local *time.Time, j *hashJob) hashResult {
	if len(h.command) == 0 || time.Now().Before(*local) {
		return j.run()
	}
	if *proc == nil {
		p, err := startHashProcess(h.command)
		if err != nil {
			h.warnOnce("cannot start a password hashing process; hashing in this process at normal priority", err)
			return j.run()
		}
		*proc = p
	}
	r, err := (*proc).do(j, h.patience)
	if err != nil {
		// The child died, broke the protocol or is starved of CPU (hashPatience):
		// the next job starts another.
		(*proc).kill()
		*proc = nil
		*local = time.Now().Add(h.localFor)
		h.warnOnce("a password hashing process failed; this hash is computed in this process", err)
		return j.run()
	}
	return r
}

// hashLocalFor is how long a worker hashes in this process after its child failed.
const hashLocalFor = 30 * time.Second

func (h *passwordHasher) warnOnce(msg string, err error) {
	h.warn.Do(func() { h.log.Warn(msg, zap.Error(err)) })
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
