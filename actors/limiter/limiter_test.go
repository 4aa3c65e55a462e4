package limiter

import (
	"testing"
	"time"
)

func TestBucketMath(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	sh := &limiterShard{
		opts:    LimitOptions{Global: Limit{Rate: 2, Per: time.Second, Burst: 4}, Auth: Limit{Rate: 6, Per: time.Minute, Burst: 2}},
		buckets: map[string]*bucket{},
		now:     func() time.Time { return now },
	}
	f := func(buckets []string, allowed bool, remaining, retry int) {
		t.Helper()
		d := sh.take(&take{Key: "10.0.0.1", Buckets: buckets})
		if d.Allowed != allowed || d.Remaining != remaining || d.RetryAfterS != retry {
			t.Fatalf("got %+v; want allowed %v, remaining %d, retry %d", d, allowed, remaining, retry)
		}
	}
	g := []string{BucketGlobal}
	f(g, true, 3, 0)
	f(g, true, 2, 0)
	f(g, true, 1, 0)
	f(g, true, 0, 1)
	f(g, false, 0, 1)
	now = now.Add(500 * time.Millisecond) // one token back at 2/s
	f(g, true, 0, 1)
	now = now.Add(10 * time.Second) // refilled, capped at the burst
	f(g, true, 3, 0)

	// Several buckets are taken all or none: the auth bucket refuses, so the global
	// bucket keeps its token.
	both := []string{BucketGlobal, BucketAuth}
	f(both, true, 1, 0)
	f(both, true, 0, 10)
	before := sh.buckets["global|10.0.0.1"].tokens
	f(both, false, 0, 10)
	if after := sh.buckets["global|10.0.0.1"].tokens; after != before {
		t.Fatalf("got global tokens %v after a refused request; want %v", after, before)
	}
	// Another key has its own buckets.
	if d := sh.take(&take{Key: "10.0.0.2", Buckets: both}); !d.Allowed {
		t.Fatalf("got %+v for another address; want allowed", d)
	}
}

func TestSweepDropsFullBuckets(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	sh := &limiterShard{opts: LimitOptions{Global: Limit{Rate: 1, Per: time.Second, Burst: 2}},
		buckets: map[string]*bucket{}, now: func() time.Time { return now }}
	sh.take(&take{Key: "a", Buckets: []string{BucketGlobal}})
	sh.sweep()
	if len(sh.buckets) != 1 {
		t.Fatalf("got %d buckets; want the partly spent one kept", len(sh.buckets))
	}
	now = now.Add(5 * time.Second)
	sh.sweep()
	if len(sh.buckets) != 0 {
		t.Fatalf("got %d buckets; want the refilled one dropped", len(sh.buckets))
	}
}

// TestLoginBudgets: failed logins are refused per e-mail and address once that
// budget is spent; once the e-mail's budget over all addresses is spent, an address
// that failed is refused and one that did not waits its turn, each longer than the
// last, up to the longest delay; a successful login gives back what it took.
func TestLoginBudgets(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	sh := &limiterShard{
		opts: LimitOptions{
			Login:         Limit{Rate: 6, Per: time.Minute, Burst: 3}, // a token per 10 s
			LoginAddr:     Limit{Rate: 2, Per: time.Minute, Burst: 2},
			LoginMaxDelay: 25 * time.Second,
		},
		buckets: map[string]*bucket{}, now: func() time.Time { return now },
	}
	const victim = "victim@example.test"
	try := func(addr string, allowed bool, delay time.Duration) LoginDecision {
		t.Helper()
		d := sh.loginTake(&loginTake{Email: victim, Addr: addr})
		if d.Allowed != allowed || d.Delay != delay || (!allowed && (d.RetryAfterS < 1 || d.Bucket != BucketLogin)) {
			t.Fatalf("%s: got %+v; want allowed %v after %v (and a Retry-After when refused)", addr, d, allowed, delay)
		}
		return d
	}
	// Per e-mail and address: two failures, then refused.
	try("10.0.0.1", true, 0)
	try("10.0.0.1", true, 0)
	try("10.0.0.1", false, 0)
	// The e-mail's last token goes to another address.
	try("10.0.0.2", true, 0)
	// Spent: the addresses that failed are refused, though 10.0.0.2 has one left.
	try("10.0.0.2", false, 0)
	// Clean addresses wait in turn: 10 s, then 20 s, then the next would wait 30 s.
	try("10.0.0.3", true, 10*time.Second)
	try("10.0.0.3", false, 0) // let through the queue, it spent its budget
	try("10.0.0.4", true, 20*time.Second)
	if d := try("10.0.0.5", false, 0); d.RetryAfterS != 5 {
		t.Fatalf("got Retry-After %d; want 5 s, when the wait is back within the longest delay", d.RetryAfterS)
	}
	// Another e-mail is another budget.
	if d := sh.loginTake(&loginTake{Email: "other@example.test", Addr: "10.0.0.1"}); !d.Allowed || d.Delay != 0 {
		t.Fatalf("got %+v for another e-mail; want allowed at once", d)
	}
	// 10.0.0.4's login was the owner's: its token comes back, its address is clean.
	sh.loginSucceeded(&loginSucceeded{Email: victim, Addr: "10.0.0.4"})
	try("10.0.0.5", true, 20*time.Second)
	if _, ok := sh.buckets[BucketLoginAddr+"|"+victim+"|10.0.0.4"]; ok {
		t.Fatal("the address of a successful login keeps its failures; want them forgotten")
	}
	// Time heals: a minute later the budgets have refilled.
	now = now.Add(time.Minute)
	try("10.0.0.1", true, 0)
}
