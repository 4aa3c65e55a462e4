package httpedge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/crypto/bcrypt"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/token"
	"github.com/vmplane/vmplane/persistence"
)

// pending is the number of contexts on the timer.
func (d *deadlines) pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.waiting)
}

// TestReqCtxCancel: the request's end ends its context the way WithTimeout's cancel
// did: Done closed (whether it was asked for before or after), Err Canceled, the
// AfterFuncs run, a context derived from it ended, and nothing left on the timer.
func TestReqCtxCancel(t *testing.T) {
	var dl deadlines
	c := newReqCtx(&dl, time.Now().Add(time.Hour))
	if d, ok := c.Deadline(); !ok || d != c.deadline {
		t.Fatalf("Deadline() = %v, %v; want %v, true", d, ok, c.deadline)
	}
	if err := c.Err(); err != nil {
		t.Fatalf("Err() before the end = %v; want nil", err)
	}
	done := c.Done()
	if dl.pending() != 1 {
		t.Fatalf("%d contexts on the timer after Done; want 1", dl.pending())
	}
	child, cancelChild := context.WithTimeout(kitValue(c), time.Hour)
	defer cancelChild()
	ran := make(chan struct{})
	c.AfterFunc(func() { close(ran) })
	stopped := c.AfterFunc(func() { t.Error("a stopped AfterFunc ran") })
	if !stopped() {
		t.Fatal("stop of a registered AfterFunc = false; want true")
	}

	c.cancel()
	<-done
	<-ran
	<-child.Done()
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err() after cancel = %v; want context.Canceled", err)
	}
	if err := child.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("the derived context's Err() = %v; want context.Canceled", err)
	}
	if dl.pending() != 0 {
		t.Fatalf("%d contexts on the timer after the end; want 0", dl.pending())
	}
	c.cancel() // a second end changes nothing
	if err := c.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err() after a second cancel = %v; want context.Canceled", err)
	}

	// Ended before anyone waited: Done is closed at once, and nothing went on the timer.
	c = newReqCtx(&dl, time.Now().Add(time.Hour))
	c.cancel()
	<-c.Done()
	if dl.pending() != 0 {
		t.Fatalf("%d contexts on the timer; want 0", dl.pending())
	}
	ran = make(chan struct{})
	c.AfterFunc(func() { close(ran) })
	<-ran
}

// kitValue wraps c the way the handlers do (an audit entry on top of the request's
// context), so that deriving from it goes through context's own types.
func kitValue(c context.Context) context.Context {
	type key struct{}
	return context.WithValue(c, key{}, 1)
}

// TestReqCtxDeadline: the deadline ends a context that is waited on (the timer), in the
// order of the deadlines, whichever was waited on first; one that nobody waits on is
// ended by Err once it is due.
func TestReqCtxDeadline(t *testing.T) {
	var dl deadlines
	now := time.Now()
	late := newReqCtx(&dl, now.Add(time.Hour))
	soon := newReqCtx(&dl, now.Add(20*time.Millisecond))
	sooner := newReqCtx(&dl, now.Add(10*time.Millisecond))
	lateDone := late.Done() // the timer is set for the hour first
	soonDone, soonerDone := soon.Done(), sooner.Done()
	<-soonerDone
	<-soonDone
	for _, c := range []*reqCtx{soon, sooner} {
		if err := c.Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Err() after the deadline = %v; want context.DeadlineExceeded", err)
		}
	}
	select {
	case <-lateDone:
		t.Fatal("the context due in an hour ended")
	default:
	}
	if dl.pending() != 1 {
		t.Fatalf("%d contexts on the timer; want 1 (the hour's)", dl.pending())
	}
	late.cancel()
	if dl.pending() != 0 {
		t.Fatalf("%d contexts on the timer; want 0", dl.pending())
	}

	// Due, never waited on: Err ends it, and a later Done agrees.
	past := newReqCtx(&dl, time.Now().Add(-time.Millisecond))
	if err := past.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Err() past the deadline = %v; want context.DeadlineExceeded", err)
	}
	<-past.Done()
	if dl.pending() != 0 {
		t.Fatalf("%d contexts on the timer; want 0", dl.pending())
	}
}

// blockingStore holds every Get of key until release is closed, whatever the
// context: the entity that loads it answers nothing meanwhile, as a stuck actor would.
type blockingStore struct {
	persistence.Store
	key     []byte
	release chan struct{}
}

func (s *blockingStore) Get(ctx context.Context, key []byte) ([]byte, error) {
	if bytes.Equal(key, s.key) {
		<-s.release
	}
	return s.Store.Get(ctx, key)
}

// TestRequestTimeout: a request whose actor does not answer ends with the 504 "timeout"
// problem once the request's time is up, and many such requests and many answered ones
// leave no goroutine, timer entry or context behind.
func TestRequestTimeout(t *testing.T) {
	st, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const stuckID = "01JSTUCKUSER00000000000000"
	bs := &blockingStore{Store: st, key: persistence.Key("user", stuckID), release: make(chan struct{})}
	const email, password = "admin@example.test", "correct horse battery"
	sys, err := actors.Start(actors.Options{Store: bs,
		Auth: auth.AuthOptions{AdminEmail: email, AdminPassword: password, BcryptCost: bcrypt.MinCost}})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Stop()
	defer close(bs.release) // before Stop: the stuck entity must load to stop
	tokens, err := token.New(bytes.Repeat([]byte("k"), 32), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Version: "test", Store: bs, Tokens: tokens, Services: api.Services{
		Users: sys.Users, Limiter: sys.Limiter, Idempotency: sys.Idempotency, System: sys}})
	s.timeout = 300 * time.Millisecond
	serve := inMemory(t, s)
	login := loginThrough(t, serve, email, password)

	stuck := func() {
		res := serve("GET", "/api/resources/users/"+stuckID, login.Token, "")
		var p struct{ Code string }
		_ = json.Unmarshal(res.Body(), &p)
		if res.StatusCode() != fasthttp.StatusGatewayTimeout || p.Code != "timeout" {
			t.Errorf("GET of a user whose entity does not answer: %d %s; want 504 with code \"timeout\"", res.StatusCode(), res.Body())
		}
	}
	answered := func() {
		if res := serve("GET", "/api/resources/users", login.Token, ""); res.StatusCode() != fasthttp.StatusOK {
			t.Errorf("GET /api/resources/users: %d %s; want 200", res.StatusCode(), res.Body())
		}
	}
	stuck()
	answered()
	runtime.GC()
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stuck()
			for j := 0; j < 50; j++ {
				answered()
			}
		}()
	}
	wg.Wait()
	if n := s.deadlines.pending(); n != 0 {
		t.Fatalf("%d request contexts left on the deadline timer; want 0", n)
	}
	// A goroutine that was on its way out when counted goes before the next count:
	// allow the count a few rounds to come back down, never to stay up.
	after := runtime.NumGoroutine()
	for i := 0; i < 100 && after > before; i++ {
		time.Sleep(10 * time.Millisecond)
		after = runtime.NumGoroutine()
	}
	if after > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after 8 timed-out and 400 answered requests; want at most the %d before\n%s",
			after, before, buf[:runtime.Stack(buf, true)])
	}
}

// newReqCtx is a context whose deadline is d, timed by dl, as handle makes one (in its
// request struct).
func newReqCtx(dl *deadlines, d time.Time) *reqCtx { return &reqCtx{deadline: d, dl: dl} }

// TestReqCtxCatchUp: a request's context carries its own persistence.CatchUp, through
// the contexts the handlers derive from it, and no other request's: a catch-up shared
// by two requests would let the later one be served from a cache that has not heard of
// a write acknowledged before it began.
func TestReqCtxCatchUp(t *testing.T) {
	var dl deadlines
	a, b := newReqCtx(&dl, time.Now().Add(time.Hour)), newReqCtx(&dl, time.Now().Add(time.Hour))
	ca, _ := kitValue(a).Value(persistence.CatchUpKey).(*persistence.CatchUp)
	cb, _ := b.Value(persistence.CatchUpKey).(*persistence.CatchUp)
	if ca == nil || cb == nil {
		t.Fatalf("a request's context holds no CatchUp: %v, %v", ca, cb)
	}
	if ca == cb {
		t.Fatal("two requests share one CatchUp")
	}
	if ca != a.Value(persistence.CatchUpKey) {
		t.Fatal("a request's CatchUp changes between calls")
	}
}

// TestReqCtxCarriesTheAuditEntry: the entry the edge stores in a request's context is
// what kit.AuditOf finds, through the contexts derived from it; none before it is
// stored, and another request's context does not see it.
func TestReqCtxCarriesTheAuditEntry(t *testing.T) {
	var dl deadlines
	a, b := newReqCtx(&dl, time.Now().Add(time.Hour)), newReqCtx(&dl, time.Now().Add(time.Hour))
	if e := kit.AuditOf(a); e != nil {
		t.Fatalf("an entry before one was stored: %+v", e)
	}
	entry := &kit.AuditEntry{Action: "POST /api/client/firewall/rules"}
	a.audit.Store(entry)
	derived, cancel := context.WithCancel(context.WithoutCancel(a))
	defer cancel()
	if kit.AuditOf(a) != entry || kit.AuditOf(derived) != entry {
		t.Fatal("the stored entry is not what AuditOf finds")
	}
	if kit.AuditOf(b) != nil {
		t.Fatal("another request's context sees the entry")
	}
	other := &kit.AuditEntry{Action: "DELETE /x"}
	if kit.AuditOf(kit.WithAudit(a, other)) != other {
		t.Fatal("WithAudit on top of a request's context does not win")
	}
}
