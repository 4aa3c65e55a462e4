package kit

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
)

// BenchmarkEntityRoundTrip is one request to an entity through its kind's supervisor
// and back, the path every edge request takes.
func BenchmarkEntityRoundTrip(b *testing.B) {
	s := newTestSystem(b)
	k := s.StartKind("bench", 0, func(id string) Entity { return &counter{rt: s, id: id} }, nil)
	ctx := context.Background()
	var n atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		id := "e" + strconv.FormatInt(n.Add(1)%64, 10)
		for pb.Next() {
			if _, err := Ask[state](ctx, k, id, &get{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
