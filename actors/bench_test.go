package actors

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkLimiterTake is one rate-limit decision through the sharded limiter actors,
// from many goroutines, as the edge makes one per request.
func BenchmarkLimiterTake(b *testing.B) {
	s := newTestSystem(b, func(o *Options) {
		o.Limits = LimitOptions{Global: Limit{Rate: 1e9, Per: time.Second, Burst: 1e9}}
	})
	l := s.Limiter
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
