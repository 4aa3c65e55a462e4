package limiter

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
)

// BenchmarkLimiterTake is one rate-limit decision through the sharded limiter actors,
// from many goroutines, as the edge makes one per request.
func BenchmarkLimiterTake(b *testing.B) {
	rt := kit.New(nil, nil, kit.EntityOptions{})
	l := Start(rt, LimitOptions{Global: Limit{Rate: 1e9, Per: time.Second, Burst: 1e9}})
	b.Cleanup(func() { l.Stop(); rt.Shutdown() })
	var n atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		key := "10.0.0." + strconv.FormatInt(n.Add(1), 10)
		for pb.Next() {
			if _, err := l.Take(context.Background(), key, BucketGlobal); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkBucketDecision is the bucket arithmetic alone, without the actor hop.
func BenchmarkBucketDecision(b *testing.B) {
	sh := &limiterShard{opts: LimitOptions{Global: Limit{Rate: 1e9, Per: time.Second, Burst: 1e9}},
		buckets: map[string]*bucket{}, now: time.Now}
	m := &take{Key: "10.0.0.1", Buckets: []string{BucketGlobal}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sh.take(m)
	}
}
