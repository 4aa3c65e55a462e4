package monitoring

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// On a shared store (a cluster's etcd) a check's entity runs on one member and the
// others read the store: so every probe's result is written, and reads are the
// store's, the same on every member, with no per-member overlay. Here the stored
// record keeps up with every probe; on a single node it would hold only the first
// result (a status change) for a minute.
func TestSharedStoreHoldsEveryResult(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := etcdtest.Start(t)
	store, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: srv.Endpoints(), Prefix: "/hc/"})
	if err != nil {
		t.Fatal(err)
	}
	s := startTestSystem(t, store, testOptions{})
	t.Cleanup(func() {
		s.Stop()
		store.Close()
	})
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer target.Close()
	hc, err := s.HealthChecks.Create(ctx, HealthCheckSpec{Name: "web", Type: CheckHTTP, Target: target.URL, IntervalS: 1, TimeoutMS: 500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stored := func() HealthCheck {
		rec, err := persistence.Load[HealthCheck](context.Background(), store, hcKey(hc.ID))
		if err != nil {
			t.Fatal(err)
		}
		return *rec
	}
	testwait.Eventually(t, "three probes' results in the store", func() bool {
		rec := stored()
		return len(rec.Results) >= 3 && rec.Last.Status == CheckPassing
	})
	// A read answers at least what the store held before it.
	rec := stored()
	got, err := s.HealthChecks.Get(ctx, hc.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Last.CheckedAt.Before(*rec.Last.CheckedAt) {
		t.Fatalf("read the result of %v; the store had one of %v before", got.Last.CheckedAt, rec.Last.CheckedAt)
	}
	last := rec.Results[len(rec.Results)-1]
	if !rec.Last.CheckedAt.Equal(last.CheckedAt) {
		t.Fatalf("stored latest result at %v; the last stored probe was at %v", rec.Last.CheckedAt, last.CheckedAt)
	}
	n := 0
	s.HealthChecks.live.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Fatalf("%d checks overlaid in memory on a shared store; want none", n)
	}
}
