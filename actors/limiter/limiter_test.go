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
