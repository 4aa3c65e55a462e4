package auth

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// failsafe bounds every wait of these tests, so that a bug fails them instead of
// hanging them; nothing asserts on how long anything took.
const failsafe = 10 * time.Second

// generated has h hash "correct horse" at the minimum cost and checks that bcrypt
// accepts the hash.
func generated(t *testing.T, h *passwordHasher) []byte {
	t.Helper()
	hash, err := h.generate(context.Background(), "correct horse", bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	if err := bcrypt.CompareHashAndPassword(hash, []byte("correct horse")); err != nil {
		t.Fatalf("bcrypt refuses the generated hash: %v", err)
	}
	return hash
}

func TestPasswordHasherCompareAndGenerate(t *testing.T) {
	h := startPasswordHasher(1, nil, nil, nil)
	defer h.close()
	ctx := context.Background()

	hash := generated(t, h)
	if cost, err := bcrypt.Cost(hash); err != nil || cost != bcrypt.MinCost {
		t.Fatalf("got cost %d, %v; want %d", cost, err, bcrypt.MinCost)
	}
	if ok, err := h.compare(ctx, hash, "correct horse"); err != nil || !ok {
		t.Fatalf("right password: got %v, %v; want a match", ok, err)
	}
	if ok, err := h.compare(ctx, hash, "battery staple"); err != nil || ok {
		t.Fatalf("wrong password: got %v, %v; want no match and no error", ok, err)
	}
	if ok, err := h.compare(ctx, []byte("not a bcrypt hash"), "correct horse"); err != nil || ok {
		t.Fatalf("malformed hash: got %v, %v; want no match and no error", ok, err)
	}
	// bcrypt's own errors come back as they are.
	if _, err := h.generate(ctx, strings.Repeat("x", 73), bcrypt.MinCost); !errors.Is(err, bcrypt.ErrPasswordTooLong) {
		t.Fatalf("got %v; want bcrypt.ErrPasswordTooLong", err)
	}
}

// gauge counts the jobs that ran through the hook and the most that ran at once.
type gauge struct {
	cur, max, ran atomic.Int64
}

func (g *gauge) around(run func()) {
	// Counted before run answers the caller, so a caller that has its answer sees it.
	g.ran.Add(1)
	n := g.cur.Add(1)
	for m := g.max.Load(); n > m && !g.max.CompareAndSwap(m, n); m = g.max.Load() {
	}
	// Widens the window in which an overlapping job would be seen: the pause is what
	// makes an overlap observable, not a wait for something.
	time.Sleep(time.Millisecond)
	run()
	g.cur.Add(-1)
}

func TestPasswordHasherOneWorkerSerialises(t *testing.T) {
	var g gauge
	h := startPasswordHasher(1, nil, g.around, nil)
	defer h.close()
	hash := testHash(t)

	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			pw := "correct horse"
			if i%2 == 1 {
				pw = "wrong"
			}
			ok, err := h.compare(context.Background(), hash, pw)
			if err == nil && ok != (i%2 == 0) {
				err = errors.New("wrong answer for " + pw)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	// Every compare ran on the worker (none on its caller's goroutine), one at a time.
	if got := g.ran.Load(); got != n {
		t.Fatalf("%d jobs ran on the worker; want %d", got, n)
	}
	if got := g.max.Load(); got != 1 {
		t.Fatalf("%d jobs ran at once; want 1", got)
	}
}

func TestPasswordHasherWorkersRunInParallel(t *testing.T) {
	const workers = 2
	var inside atomic.Int64
	arrived := make(chan struct{}, 2*workers)
	release := make(chan struct{})
	h := startPasswordHasher(workers, nil, func(run func()) {
		if inside.Add(1) > workers {
			t.Error("more jobs at once than workers")
		}
		arrived <- struct{}{}
		<-release
		run()
		inside.Add(-1)
	}, nil)
	defer h.close()

	var wg sync.WaitGroup
	for range 2 * workers {
		wg.Go(func() {
			if _, err := h.generate(context.Background(), "correct horse", bcrypt.MinCost); err != nil {
				t.Error(err)
			}
		})
	}
	// Both workers take a job before either finishes: with fewer workers this waits
	// out the failsafe.
	for range workers {
		select {
		case <-arrived:
		case <-time.After(failsafe):
			t.Fatal("fewer jobs started at once than there are workers")
		}
	}
	close(release)
	wg.Wait()
}

func TestPasswordHasherCancelledCaller(t *testing.T) {
	var g gauge
	h := startPasswordHasher(1, nil, g.around, nil)
	defer h.close()
	hash := testHash(t)

	// A context that has already ended is answered at once, and never hashed.
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.compare(cancelled, hash, "correct horse"); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("cancelled: got %v; want unavailable", err)
	}
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if _, err := h.generate(expired, "correct horse", bcrypt.MinCost); !errors.Is(err, apierr.ErrTimeout) {
		t.Fatalf("expired: got %v; want timeout", err)
	}
	if got := g.ran.Load(); got != 0 {
		t.Fatalf("%d jobs ran for callers that had gone; want 0", got)
	}
	// The hasher works for the next caller.
	if ok, err := h.compare(context.Background(), hash, "correct horse"); err != nil || !ok {
		t.Fatalf("after the cancelled callers: got %v, %v; want a match", ok, err)
	}
}

func TestPasswordHasherCallerGivesUpWhileWorkerBusy(t *testing.T) {
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	var blocked atomic.Bool
	blocked.Store(true)
	h := startPasswordHasher(1, nil, func(run func()) {
		if blocked.Load() {
			started <- struct{}{}
			<-release
		}
		run()
	}, nil)
	defer h.close()
	hash := testHash(t)

	// The first caller's job holds the worker; that caller gives up mid-job.
	first, cancelFirst := context.WithCancel(context.Background())
	firstErr := make(chan error, 1)
	go func() {
		_, err := h.compare(first, hash, "correct horse")
		firstErr <- err
	}()
	select {
	case <-started:
	case <-time.After(failsafe):
		t.Fatal("the worker never took the job")
	}
	cancelFirst()
	select {
	case err := <-firstErr:
		if !errors.Is(err, apierr.ErrUnavailable) {
			t.Fatalf("in progress: got %v; want unavailable", err)
		}
	case <-time.After(failsafe):
		t.Fatal("a caller whose context ended waited for the busy worker")
	}

	// A second caller queues behind the busy worker and its deadline passes there.
	second, cancelSecond := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelSecond()
	secondErr := make(chan error, 1)
	go func() {
		_, err := h.compare(second, hash, "correct horse")
		secondErr <- err
	}()
	select {
	case err := <-secondErr:
		if !errors.Is(err, apierr.ErrTimeout) {
			t.Fatalf("queued: got %v; want timeout", err)
		}
	case <-time.After(failsafe):
		t.Fatal("a queued caller whose deadline passed kept waiting")
	}

	// The abandoned job finishes in the background and the hasher serves the next one.
	blocked.Store(false)
	close(release)
	if ok, err := h.compare(context.Background(), hash, "correct horse"); err != nil || !ok {
		t.Fatalf("after the abandoned job: got %v, %v; want a match", ok, err)
	}
}

// hasherWorkers counts the goroutines running a hasher's worker loop.
func hasherWorkers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "(*passwordHasher).work(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// eventually polls cond until it holds or the failsafe passes.
func eventually(cond func() bool) bool { return testwait.Poll(failsafe, cond) }

func TestPasswordHasherCloseEndsWorkers(t *testing.T) {
	// Workers of systems stopped by earlier tests are gone or going.
	if !eventually(func() bool { return hasherWorkers() == 0 }) {
		t.Fatalf("%d hasher workers alive before the test", hasherWorkers())
	}
	before := runtime.NumGoroutine()
	h := startPasswordHasher(3, nil, nil, nil)
	defer h.close()
	if !eventually(func() bool { return hasherWorkers() == 3 }) {
		t.Fatalf("%d workers running; want 3", hasherWorkers())
	}
	if _, err := h.generate(context.Background(), "correct horse", bcrypt.MinCost); err != nil {
		t.Fatal(err)
	}
	h.close()
	// close waited for the workers; their goroutines are exiting.
	if !eventually(func() bool { return hasherWorkers() == 0 }) {
		t.Fatalf("%d workers left after close; want 0", hasherWorkers())
	}
	if !eventually(func() bool { return runtime.NumGoroutine() <= before }) {
		t.Fatalf("%d goroutines after close; want at most %d", runtime.NumGoroutine(), before)
	}
	// A stopped hasher answers unavailable, and closing again is harmless.
	if _, err := h.compare(context.Background(), []byte("x"), "y"); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("after close: got %v; want unavailable", err)
	}
	h.close()
}

func TestSystemStopEndsHasherWorkers(t *testing.T) {
	if !eventually(func() bool { return hasherWorkers() == 0 }) {
		t.Fatalf("%d hasher workers alive before the test", hasherWorkers())
	}
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s, err := startTestSystem(t, store, AuthOptions{BcryptCost: bcrypt.MinCost, AdminPassword: "initial-password", HashWorkers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !eventually(func() bool { return hasherWorkers() == 2 }) {
		s.Stop()
		t.Fatalf("%d workers running; want 2", hasherWorkers())
	}
	s.Stop()
	if !eventually(func() bool { return hasherWorkers() == 0 }) {
		t.Fatalf("%d workers left after System.Stop; want 0", hasherWorkers())
	}
}

func TestUsersHashOnTheHasher(t *testing.T) {
	s := newTestSystem(t)
	// The system's hasher swapped for one that counts its jobs; System.Stop closes it.
	var g gauge
	s.Users.hasher.close()
	s.Users.hasher = startPasswordHasher(1, nil, g.around, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	jobs := func(want int64) {
		t.Helper()
		if got := g.ran.Load(); got != want {
			t.Fatalf("%d hash jobs so far; want %d", got, want)
		}
	}

	if sess, err := s.Users.Login(ctx, "Admin@Localhost", "initial-password", Client{}); err != nil || sess.RefreshToken == "" {
		t.Fatalf("admin login: got %+v, %v", sess, err)
	}
	jobs(1)
	if _, err := s.Users.Login(ctx, "admin@localhost", "wrong-password", Client{}); !errors.Is(err, apierr.ErrInvalidCredentials) {
		t.Fatalf("wrong password: got %v; want invalid credentials", err)
	}
	jobs(2)
	// An unknown e-mail pays one compare as well, against the dummy hash.
	if _, err := s.Users.Login(ctx, "nobody@localhost", "initial-password", Client{}); !errors.Is(err, apierr.ErrInvalidCredentials) {
		t.Fatalf("unknown e-mail: got %v; want invalid credentials", err)
	}
	jobs(3)

	usr, err := s.Users.Create(ctx, " User@Example.Test ", "User", RoleAdmin, "user-password-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if usr.Email != "user@example.test" {
		t.Fatalf("got e-mail %q; want it normalised", usr.Email)
	}
	jobs(4)
	// Refused before hashing: a taken e-mail, a short password.
	if _, err := s.Users.Create(ctx, "user@example.test", "Again", RoleAdmin, "user-password-2", nil); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("taken e-mail: got %v; want conflict", err)
	}
	if _, err := s.Users.Create(ctx, "other@example.test", "Other", RoleAdmin, "short", nil); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Fatalf("short password: got %v; want invalid", err)
	}
	jobs(4)
	if _, err := s.Users.Login(ctx, "user@example.test", "user-password-1", Client{}); err != nil {
		t.Fatalf("new user's login: %v", err)
	}
	jobs(5)

	pw := "user-password-2"
	if _, err := s.Users.Update(ctx, usr.ID, UserChange{Password: &pw}); err != nil {
		t.Fatal(err)
	}
	jobs(6)
	if _, err := s.Users.Login(ctx, "user@example.test", "user-password-1", Client{}); !errors.Is(err, apierr.ErrInvalidCredentials) {
		t.Fatalf("old password: got %v; want invalid credentials", err)
	}
	if _, err := s.Users.Login(ctx, "user@example.test", pw, Client{}); err != nil {
		t.Fatalf("new password: %v", err)
	}
	jobs(8)
	if g.max.Load() != 1 {
		t.Fatalf("%d hashes at once on one worker", g.max.Load())
	}

	// A caller that has gone gets a context error, not an answer about the password.
	gone, cancelGone := context.WithCancel(context.Background())
	cancelGone()
	if _, err := s.Users.Login(gone, "nobody@localhost", "initial-password", Client{}); !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("cancelled login: got %v; want unavailable", err)
	}
}

// testHash is a cheap bcrypt hash of "correct horse".
func testHash(t *testing.T) []byte {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte("correct horse"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return hash
}

// TestStoredEmailsNormalisedByMigration: a user stored with an e-mail spelled otherwise
// than NormalizeEmail spells it is given that spelling by MigrateEmails, index too, so
// that every spelling logs in; one whose normalised e-mail another user has is left
// alone. A start alone no longer rewrites anything: that is the migration's job, once.
func TestStoredEmailsNormalisedByMigration(t *testing.T) {
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	storeAdmins(t, store, []string{"u1", "u2", "u3"}, []string{" Mixed@Example.TEST\t", "taken@example.test", "TAKEN@example.test"})
	if err := MigrateEmails(context.Background(), store, nil); err != nil {
		t.Fatal(err)
	}
	s, err := startTestSystem(t, store, AuthOptions{BcryptCost: bcrypt.MinCost, AdminPassword: "initial-password"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	ctx := context.Background()
	for _, spelling := range []string{"mixed@example.test", "MIXED@example.test ", " Mixed@Example.TEST\t"} {
		sess, err := s.Users.Login(ctx, spelling, "stored-password", Client{})
		if err != nil || sess.User.ID != "u1" || sess.User.Email != "mixed@example.test" {
			t.Fatalf("login as %q: got %+v, %v; want u1 with its normalised e-mail", spelling, sess.User, err)
		}
	}
	if _, err := store.Get(context.Background(), persistence.Key("user-email", " Mixed@Example.TEST\t")); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("got %v for the old index entry; want it gone", err)
	}
	if u3, err := s.Users.Get(ctx, "u3"); err != nil || u3.Email != "TAKEN@example.test" {
		t.Fatalf("got %+v, %v; want u3 left as it was", u3, err)
	}
}
