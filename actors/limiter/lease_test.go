package limiter

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/vmplane/vmplane/actors/kit"
)

// startLeased is a limiter with a global burst of 40 (leases of 5 tokens) refilling at
// one token a second, and an auth burst of 10 (no lease), on a fake clock.
func startLeased(t *testing.T) (*Limiter, *clockwork.FakeClock) {
	t.Helper()
	clock := clockwork.NewFakeClockAt(time.Unix(1_700_000_000, 0))
	rt := kit.New(nil, nil, kit.EntityOptions{}, kit.WithClock(clock))
	l := Start(rt, LimitOptions{
		Global: Limit{Rate: 1, Per: time.Second, Burst: 40},
		Auth:   Limit{Rate: 30, Per: time.Minute, Burst: 10},
	})
	t.Cleanup(func() { l.Stop(); rt.Shutdown() })
	if n := l.opts.leaseSize([]string{BucketGlobal}); n != 5 {
		t.Fatalf("got a global lease of %d; want 5", n)
	}
	return l, clock
}

// TestLeasedLimitHolds: with leases, a client is refused after exactly its burst, as
// without them, and every answer counts down its remaining tokens one by one.
func TestLeasedLimitHolds(t *testing.T) {
	l, _ := startLeased(t)
	ctx := context.Background()
	for i := 0; i < 40; i++ {
		d, err := l.Take(ctx, "10.0.0.1", BucketGlobal)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Allowed || d.Remaining != 39-i || d.Limit != 40 || d.Bucket != BucketGlobal {
			t.Fatalf("request %d: got %+v; want allowed with %d remaining of 40", i, d, 39-i)
		}
	}
	d, err := l.Take(ctx, "10.0.0.1", BucketGlobal)
	if err != nil || d.Allowed || d.RetryAfterS < 1 {
		t.Fatalf("request 41: got %+v, %v; want refused with a retry", d, err)
	}
	// Another address has its own bucket and lease.
	if d, _ := l.Take(ctx, "10.0.0.2", BucketGlobal); !d.Allowed || d.Remaining != 39 {
		t.Fatalf("another address: got %+v; want allowed with 39 remaining", d)
	}
}

// TestLeaseTakesFromTheShard: the tokens of a lease leave the shard's bucket when the
// lease is taken, so a request that bypasses it (another member's) sees them gone.
func TestLeaseTakesFromTheShard(t *testing.T) {
	l, _ := startLeased(t)
	ctx := context.Background()
	if _, err := l.Take(ctx, "10.0.0.1", BucketGlobal); err != nil {
		t.Fatal(err)
	}
	d, err := kit.AskRef[Decision](ctx, l.rt, l.shardOf("10.0.0.1"), &take{Key: "10.0.0.1", Buckets: []string{BucketGlobal}})
	if err != nil || !d.Allowed || d.Remaining != 34 {
		t.Fatalf("got %+v, %v from the shard; want 34 remaining (40 - a lease of 5 - this one)", d, err)
	}
}

// TestLeaseExpires: a lease unused for leaseTTL is dropped (never spent on top of a
// refilled bucket) and its tokens go back to the bucket; the next request takes a new
// one.
func TestLeaseExpires(t *testing.T) {
	l, clock := startLeased(t)
	ctx := context.Background()
	for i := 0; i < 40; i++ {
		if d, _ := l.Take(ctx, "10.0.0.1", BucketGlobal); !d.Allowed {
			t.Fatalf("request %d refused", i)
		}
	}
	clock.Advance(2 * time.Second) // two tokens back; no lease left to spend
	for i := 0; i < 2; i++ {
		if d, _ := l.Take(ctx, "10.0.0.1", BucketGlobal); !d.Allowed {
			t.Fatalf("after the refill, request %d: got %+v; want allowed", i, d)
		}
	}
	if d, _ := l.Take(ctx, "10.0.0.1", BucketGlobal); d.Allowed {
		t.Fatalf("third request after a refill of two: got %+v; want refused", d)
	}

	// A lease taken, then left for longer than leaseTTL, is not spent.
	clock.Advance(time.Hour)
	if d, _ := l.Take(ctx, "10.0.0.3", BucketGlobal); !d.Allowed || d.Remaining != 39 {
		t.Fatalf("got %+v; want allowed with 39 remaining", d)
	}
	clock.Advance(leaseTTL)
	if d, _ := l.Take(ctx, "10.0.0.3", BucketGlobal); !d.Allowed || d.Remaining != 39 {
		// As without leases: 40, less the first request's token, plus the second's
		// refill of one (the burst again), less this request's token. The expired
		// lease's four unspent tokens went back, capped at the burst.
		t.Fatalf("after the lease expired: got %+v; want 39 remaining", d)
	}
}

// TestPausedClientKeepsItsBurst: a client of a slowly refilling bucket that sends a
// request now and then, each after its lease expired, spends one token a request, as
// without leases, and still has the rest of its burst when it needs it. Before the
// expired leases' tokens went back, each such request cost a whole lease (5), and
// the burst below was refused after a few requests.
func TestPausedClientKeepsItsBurst(t *testing.T) {
	clock := clockwork.NewFakeClockAt(time.Unix(1_700_000_000, 0))
	rt := kit.New(nil, nil, kit.EntityOptions{}, kit.WithClock(clock))
	l := Start(rt, LimitOptions{Global: Limit{Rate: 1, Per: time.Hour, Burst: 40}})
	t.Cleanup(func() { l.Stop(); rt.Shutdown() })
	ctx := context.Background()
	for i := 0; i < 20; i++ {
		if d, _ := l.Take(ctx, "10.0.0.1", BucketGlobal); !d.Allowed || d.Remaining != 39-i {
			t.Fatalf("paced request %d: got %+v; want allowed with %d remaining", i, d, 39-i)
		}
		clock.Advance(2 * leaseTTL)
	}
	for i := 0; i < 20; i++ {
		if d, _ := l.Take(ctx, "10.0.0.1", BucketGlobal); !d.Allowed {
			t.Fatalf("request %d of the burst: got %+v; want allowed (20 of the 40 left)", i, d)
		}
	}
	if d, _ := l.Take(ctx, "10.0.0.1", BucketGlobal); d.Allowed {
		t.Fatalf("request 41 within the hour: got %+v; want refused", d)
	}
}

// TestLeaseSweepGivesBack: the periodic sweep hands each expired lease's unspent
// tokens on, and leaves live leases alone.
func TestLeaseSweepGivesBack(t *testing.T) {
	tab := newLeaseTable()
	now := time.Unix(1_700_000_000, 0)
	old, live := leaseOf("10.0.0.1", []string{BucketGlobal, BucketKeyOwner}), leaseOf("10.0.0.2", []string{BucketGlobal})
	tab.add(old, Decision{}, 4, 1, now)
	tab.add(live, Decision{}, 3, 1, now.Add(leaseTTL))
	got := map[leaseID]int{}
	tab.sweep(now.Add(leaseTTL), func(id leaseID, n int) { got[id] += n })
	if len(got) != 1 || got[old] != 4 {
		t.Fatalf("swept %v; want the expired lease's 4 tokens only", got)
	}
	if _, ok, _, _ := tab.spend(live, now.Add(leaseTTL)); !ok {
		t.Fatal("the live lease was swept")
	}
}

// TestAuthBucketIsNotLeased: the auth bucket's burst is too small for a lease; its
// limit answers as before, at exactly its burst.
func TestAuthBucketIsNotLeased(t *testing.T) {
	l, _ := startLeased(t)
	ctx := context.Background()
	both := []string{BucketGlobal, BucketAuth}
	if n := l.opts.leaseSize(both); n != 1 {
		t.Fatalf("got a lease of %d for global and auth; want 1 (none)", n)
	}
	for i := 0; i < 10; i++ {
		if d, _ := l.Take(ctx, "10.0.0.1", both...); !d.Allowed || d.Remaining != 9-i || d.Bucket != BucketAuth {
			t.Fatalf("request %d: got %+v; want allowed with %d auth remaining", i, d, 9-i)
		}
	}
	if d, _ := l.Take(ctx, "10.0.0.1", both...); d.Allowed || d.Bucket != BucketAuth {
		t.Fatalf("request 11: got %+v; want refused by the auth bucket", d)
	}
}

// TestConcurrentRequestsShareOneLease: a key's requests that arrive together wait for
// one lease rather than each taking one, so that none is refused while the bucket's
// tokens sit in leases: fifty at once against a burst of 40 are answered exactly 40
// times (before, the first eight asks took the bucket in leases of five, and requests
// asking then were refused with tokens left in the lease).
func TestConcurrentRequestsShareOneLease(t *testing.T) {
	l, _ := startLeased(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	var allowed atomic.Int32
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := l.Take(ctx, "10.0.0.1", BucketGlobal)
			if err != nil {
				t.Error(err)
			}
			if d.Allowed {
				allowed.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := allowed.Load(); n != 40 {
		t.Fatalf("allowed %d of 50 requests at once; want 40 (the burst)", n)
	}
}
