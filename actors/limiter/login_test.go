package limiter

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
)

const victim = "victim@example.test"

// loginShardTest is a shard on a hand-driven clock whose waiting attempts' answers are
// collected.
type loginShardTest struct {
	t       *testing.T
	sh      *limiterShard
	now     time.Time
	nextID  uint64
	answers map[uint64]LoginDecision // by attempt id
}

func newLoginShardTest(t *testing.T, opts LimitOptions) *loginShardTest {
	st := &loginShardTest{t: t, now: time.Unix(1_700_000_000, 0), answers: map[uint64]LoginDecision{}}
	st.sh = newShard(opts, func() time.Time { return st.now })
	return st
}

// attempt is one login attempt: answered at once, or waiting.
type attempt struct {
	m    *loginTake
	d    LoginDecision
	wait bool
}

// try starts an attempt of victim from addr, as the shard's Receive would.
func (st *loginShardTest) try(addr string) *attempt {
	st.nextID++
	a := &attempt{m: &loginTake{ID: st.nextID, Email: victim, Addr: addr}}
	a.d, a.wait = st.sh.loginTake(a.m, 0)
	if a.wait {
		st.sh.waiting[victim] = append(st.sh.waiting[victim], &waiter{m: a.m, since: st.now})
	}
	return a
}

// end ends an admitted attempt (or withdraws a waiting one) and wakes the waiters.
func (st *loginShardTest) end(a *attempt, o LoginOutcome) {
	st.sh.loginDone(&loginDone{ID: a.m.ID, Email: a.m.Email, Addr: a.m.Addr, Outcome: o})
	st.sh.wake(victim, func(w *waiter, d LoginDecision) { st.answers[w.m.ID] = d })
}

// answer is the decision of a waiting attempt, once the shard gave it.
func (st *loginShardTest) answer(a *attempt) (LoginDecision, bool) {
	if !a.wait {
		return a.d, true
	}
	d, ok := st.answers[a.m.ID]
	return d, ok
}

// fail is an attempt that is admitted (after delay) and fails.
func (st *loginShardTest) fail(addr string, delay time.Duration) {
	st.t.Helper()
	a := st.try(addr)
	if a.wait || !a.d.Allowed || a.d.Delay != delay {
		st.t.Fatalf("%s: got %+v (waiting %v); want admitted after %v", addr, a.d, a.wait, delay)
	}
	st.end(a, LoginFailed)
}

// refused is an attempt refused at once by bucket for why.
func (st *loginShardTest) refused(addr, bucket string, why LoginRefusal) LoginDecision {
	st.t.Helper()
	a := st.try(addr)
	if a.wait || a.d.Allowed || a.d.Bucket != bucket || a.d.Refusal != why || a.d.RetryAfterS < 1 || a.d.Remaining != 0 || a.d.Limit < 1 {
		st.t.Fatalf("%s: got %+v (waiting %v); want refused by %s (%d) with a Retry-After", addr, a.d, a.wait, bucket, why)
	}
	return a.d
}

// TestLoginBudgets: failed logins are refused per e-mail and address once failures
// spent that budget; once failures spent the e-mail's budget over all addresses, an
// address that failed is refused and one that did not waits its turn, each longer
// than the last, up to the longest delay; a successful login gives back what it held.
func TestLoginBudgets(t *testing.T) {
	st := newLoginShardTest(t, LimitOptions{
		Login:         Limit{Rate: 6, Per: time.Minute, Burst: 3}, // a token per 10 s
		LoginAddr:     Limit{Rate: 2, Per: time.Minute, Burst: 2},
		LoginMaxDelay: 25 * time.Second,
	})
	// Per e-mail and address: two failures, then refused.
	st.fail("10.0.0.1", 0)
	st.fail("10.0.0.1", 0)
	if d := st.refused("10.0.0.1", BucketLoginAddr, RefusedAddrFailures); d.Limit != 2 || d.RetryAfterS != 30 {
		t.Fatalf("got %+v; want the figures of the per-address bucket: limit 2, retry in 30 s", d)
	}
	// The e-mail's last token goes to another address.
	st.fail("10.0.0.2", 0)
	// Spent: the addresses that failed are refused, though 10.0.0.2 has one left.
	if d := st.refused("10.0.0.2", BucketLogin, RefusedEmailFailures); d.Limit != 3 || d.RetryAfterS != 10 {
		t.Fatalf("got %+v; want the figures of the e-mail's bucket: limit 3, retry in 10 s", d)
	}
	// Clean addresses wait in turn: 10 s, then 20 s, then the next would wait 30 s.
	first := st.try("10.0.0.3")
	if first.wait || !first.d.Allowed || first.d.Delay != 10*time.Second {
		t.Fatalf("got %+v; want admitted after 10 s", first.d)
	}
	st.refused("10.0.0.3", BucketLogin, RefusedEmailFailures) // let through the queue, it spent its budget
	owner := st.try("10.0.0.4")
	if owner.wait || !owner.d.Allowed || owner.d.Delay != 20*time.Second {
		t.Fatalf("got %+v; want admitted after 20 s", owner.d)
	}
	if d := st.refused("10.0.0.5", BucketLogin, RefusedQueueFull); d.RetryAfterS != 5 {
		t.Fatalf("got Retry-After %d; want 5 s, when the wait is back within the longest delay", d.RetryAfterS)
	}
	// Another e-mail is another budget.
	if d, wait := st.sh.loginTake(&loginTake{ID: 1000, Email: "other@example.test", Addr: "10.0.0.1"}, 0); wait || !d.Allowed || d.Delay != 0 {
		t.Fatalf("got %+v for another e-mail; want admitted at once", d)
	}
	// 10.0.0.4's login was the owner's: its reservation comes back, its address is clean.
	st.end(owner, LoginSucceeded)
	st.fail("10.0.0.5", 20*time.Second)
	if b := st.sh.buckets[BucketLoginAddr+"|"+victim+"|10.0.0.4"]; b.tokens != 2 || b.reserved != 0 {
		t.Fatalf("the address of a successful login has %+v; want its failures forgotten", b)
	}
	st.end(first, LoginFailed)
	// Time heals: a minute later the budgets have refilled.
	st.now = st.now.Add(time.Minute)
	st.fail("10.0.0.1", 0)
}

// TestConcurrentSuccessesSpendNoBudget: fifty logins of one e-mail from one address at
// once, all correct. Those beyond the budgets wait for the ones being checked, are
// admitted as they succeed, at once and none refused, and the budgets end full.
func TestConcurrentSuccessesSpendNoBudget(t *testing.T) {
	st := newLoginShardTest(t, LimitOptions{
		Login:         Limit{Rate: 10, Per: time.Minute, Burst: 5},
		LoginAddr:     Limit{Rate: 1, Per: time.Minute, Burst: 5},
		LoginMaxDelay: 10 * time.Second,
	})
	var all []*attempt
	for range 50 {
		all = append(all, st.try("10.0.0.1"))
	}
	for i, a := range all {
		if a.wait != (i >= 5) {
			t.Fatalf("attempt %d: waiting %v; want the first 5 admitted and the others waiting", i, a.wait)
		}
	}
	for i, a := range all {
		d, ok := st.answer(a)
		if !ok || !d.Allowed || d.Delay != 0 {
			t.Fatalf("attempt %d: got %+v (answered %v); want admitted at once", i, d, ok)
		}
		st.end(a, LoginSucceeded)
	}
	for _, k := range []string{BucketLogin + "|" + victim, BucketLoginAddr + "|" + victim + "|10.0.0.1"} {
		if b := st.sh.buckets[k]; b.tokens != 5 || b.reserved != 0 {
			t.Fatalf("%s: got %+v; want 5 tokens and no reservation", k, b)
		}
	}
	if len(st.sh.admitted) != 0 || len(st.sh.waiting) != 0 {
		t.Fatalf("got %d admitted, %d e-mails waiting; want none", len(st.sh.admitted), len(st.sh.waiting))
	}
}

// TestFailuresInFlightDecideTheWaiters: with one failure left in the e-mail's budget,
// the attempt being checked holds it and the others wait. Its failure spends the budget
// for real: then the waiting address that had failed is refused and the clean one is
// delayed, as the documented limits say; a success instead lets the next one in.
func TestFailuresInFlightDecideTheWaiters(t *testing.T) {
	st := newLoginShardTest(t, LimitOptions{
		Login:         Limit{Rate: 6, Per: time.Minute, Burst: 3},
		LoginAddr:     Limit{Rate: 1, Per: time.Minute, Burst: 5},
		LoginMaxDelay: 10 * time.Second,
	})
	st.fail("10.0.0.1", 0)
	st.fail("10.0.0.2", 0)
	owner := st.try("10.0.0.9")
	guess := st.try("10.0.0.1")
	owner2 := st.try("10.0.0.9")
	if owner.wait || !guess.wait || !owner2.wait {
		t.Fatalf("waiting %v, %v, %v; want the first admitted and the others waiting", owner.wait, guess.wait, owner2.wait)
	}
	// A success gives the budget back: the next in line goes on at once.
	st.end(owner, LoginSucceeded)
	if d, ok := st.answer(guess); !ok || !d.Allowed || d.Delay != 0 {
		t.Fatalf("got %+v (answered %v); want the next admitted at once", d, ok)
	}
	if _, ok := st.answer(owner2); ok {
		t.Fatal("the third attempt was answered while the second holds the last token; want it waiting")
	}
	// The guess fails: failures spent the budget. The owner's address has not failed:
	// it waits its turn (a token per 10 s) instead of being refused.
	st.end(guess, LoginFailed)
	if d, ok := st.answer(owner2); !ok || !d.Allowed || d.Delay != 10*time.Second {
		t.Fatalf("got %+v (answered %v); want admitted after 10 s", d, ok)
	}
	// And the address that failed is refused, by the e-mail's failures.
	st.refused("10.0.0.1", BucketLogin, RefusedEmailFailures)
}

// TestWaitingAttemptWithdrawn: an attempt that stops waiting (its request ended) is
// withdrawn and holds nothing; one admitted and abandoned gives its reservation back.
func TestWaitingAttemptWithdrawn(t *testing.T) {
	st := newLoginShardTest(t, LimitOptions{Login: Limit{Rate: 6, Per: time.Minute, Burst: 1}})
	held := st.try("10.0.0.1")
	gone := st.try("10.0.0.2")
	if held.wait || !gone.wait {
		t.Fatalf("waiting %v, %v; want the first admitted, the second waiting", held.wait, gone.wait)
	}
	st.end(gone, LoginAbandoned)
	st.end(held, LoginAbandoned)
	if _, ok := st.answer(gone); ok || len(st.sh.waiting) != 0 || len(st.sh.admitted) != 0 {
		t.Fatalf("got %d waiting, %d admitted; want the withdrawn attempt gone and nothing held", len(st.sh.waiting), len(st.sh.admitted))
	}
	if b := st.sh.buckets[BucketLogin+"|"+victim]; b.tokens != 1 || b.reserved != 0 {
		t.Fatalf("got %+v; want the budget whole", b)
	}
	st.sh.sweep()
	if len(st.sh.buckets) != 0 {
		t.Fatalf("got %d buckets after a sweep; want the full ones dropped", len(st.sh.buckets))
	}
}

// TestLoginAttemptThroughActors: the same through the limiter's actors, from many
// goroutines at once: every correct login is admitted; an attempt that waits longer
// than the longest wait is refused as busy, not for failures, and holds nothing after.
func TestLoginAttemptThroughActors(t *testing.T) {
	rt := kit.New(nil, nil, kit.EntityOptions{})
	l := Start(rt, LimitOptions{
		Login:     Limit{Rate: 10, Per: time.Minute, Burst: 5},
		LoginAddr: Limit{Rate: 1, Per: time.Minute, Burst: 5},
	})
	t.Cleanup(func() { l.Stop(); rt.Shutdown() })
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := l.LoginAttempt(ctx, victim, "10.0.0.1")
			if err == nil && !d.Allowed {
				err = errors.New("refused")
			}
			if err != nil {
				errs <- err
				return
			}
			l.LoginDone(d.Ticket, LoginSucceeded)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a correct login: %v; want every one admitted", err)
	}

	l.waitMax = 50 * time.Millisecond
	var held []LoginTicket
	for range 5 {
		d, err := l.LoginAttempt(ctx, victim, "10.0.0.1")
		if err != nil || !d.Allowed {
			t.Fatalf("got %+v, %v; want admitted", d, err)
		}
		held = append(held, d.Ticket)
	}
	d, err := l.LoginAttempt(ctx, victim, "10.0.0.2")
	if err != nil || d.Allowed || d.Refusal != RefusedBusy || d.RetryAfterS < 1 || d.Bucket != BucketLogin {
		t.Fatalf("got %+v, %v; want refused as busy by the e-mail's bucket", d, err)
	}
	for _, tk := range held {
		l.LoginDone(tk, LoginSucceeded)
	}
	l.waitMax = LoginWaitMax
	d, err = l.LoginAttempt(ctx, victim, "10.0.0.2")
	if err != nil || !d.Allowed || d.Delay != 0 {
		t.Fatalf("got %+v, %v; want admitted at once: the busy attempt held nothing", d, err)
	}
	l.LoginDone(d.Ticket, LoginFailed)
}
