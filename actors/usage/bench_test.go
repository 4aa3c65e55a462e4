package usage

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/persistence"
)

// BenchmarkHourOf10kTenants closes an hour of 10,000 tenants (a machine each) on
// Badger and prunes it, each op a new hour, and reports the close's and the prune's
// milliseconds apart, with what the previous release's prune scanned besides (one
// scan of each tenant's parts, 10,000 an hour) measured on the same data as
// scan-ms/op.
func BenchmarkHourOf10kTenants(b *testing.B) {
	store, err := persistence.Open(persistence.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	benchHour(b, store)
}

// BenchmarkHourOf10kTenantsOnEtcd is the same on a cluster's store (an embedded etcd
// on loopback: a round trip each batch and each scan).
func BenchmarkHourOf10kTenantsOnEtcd(b *testing.B) {
	srv := etcdtest.Start(b, func(c *embed.Config) { c.MaxTxnOps = 128 })
	store, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: srv.Endpoints(), Prefix: "/usage/"})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	benchHour(b, store)
}

func benchHour(b *testing.B, store persistence.Store) {
	const tenants = 10_000
	rt := kit.New(store, nil, kit.EntityOptions{})
	defer rt.Shutdown()
	w := &world{}
	d := w.deps(rt)
	d.Retention = time.Hour
	u := New(d)
	ids := make([]string, tenants)
	ms := make([]Machine, tenants)
	for i := range ms {
		ids[i] = persistence.NewID()
		ms[i] = vm(fmt.Sprintf("m%05d", i), &ids[i], &plan1, 1, 1024, 10)
	}
	w.set(ms...)
	ctx := context.Background()
	var closing, pruning, scanning time.Duration
	b.ResetTimer()
	for i := range b.N {
		h := day.Add(time.Duration(i) * time.Hour)
		start := time.Now()
		if err := u.closeHour(ctx, h, false); err != nil {
			b.Fatal(err)
		}
		closing += time.Since(start)
		start = time.Now()
		for _, t := range ids {
			if err := store.Scan(ctx, partsPrefix(t, h), nil, 0, func(_, _ []byte) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
		scanning += time.Since(start)
		start = time.Now()
		if err := u.Prune(ctx, h.Add(3*time.Hour)); err != nil {
			b.Fatal(err)
		}
		pruning += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(closing.Milliseconds())/n, "close-ms/op")
	b.ReportMetric(float64(pruning.Milliseconds())/n, "prune-ms/op")
	b.ReportMetric(float64(scanning.Milliseconds())/n, "scan-ms/op")
}
