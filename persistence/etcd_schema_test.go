package persistence_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// TestEtcdUpgradeRunsOnceAcrossMembers: three members starting at once on an etcd
// store at schema version 1 run the migration once between them. The migration waits
// until all three are queued on the upgrade lock, so without the lock the others would
// run it too; its write is not idempotent (a counter), so a second run would show.
func TestEtcdUpgradeRunsOnceAcrossMembers(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	const prefix = "/upgrade/"
	ms := []*persistence.Etcd{openEtcd(t, srv, prefix), openEtcd(t, srv, prefix), openEtcd(t, srv, prefix)}
	ctx := context.Background()
	schemaKey := persistence.Key(persistence.KindMeta, "schema-version")
	counter := persistence.Key(persistence.KindMeta, "migrated")
	if err := ms[0].Commit(ctx, new(persistence.Batch).Put(schemaKey, []byte("1")).Put(persistence.Key("user", "u1"), []byte("{}"))); err != nil {
		t.Fatal(err)
	}
	waiters := func() int {
		r, err := ms[0].Client().Get(ctx, prefix+"locks/schema-upgrade/", clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil {
			return -1
		}
		return int(r.Count)
	}
	var mu sync.Mutex
	runs := 0
	chain := make([]persistence.Migration, 0, persistence.SchemaVersion-1)
	for v := 1; v < persistence.SchemaVersion; v++ {
		chain = append(chain, persistence.Migration{From: v, Name: "count", Apply: func(ctx context.Context, s persistence.Store, b *persistence.Batch) error {
			mu.Lock()
			runs++
			mu.Unlock()
			if v == 1 && !testwait.Poll(30*time.Second, func() bool { return waiters() == len(ms) }) {
				return errors.New("the other members never queued on the upgrade lock")
			}
			n := 0
			if old, err := s.Get(context.Background(), counter); err == nil {
				n, _ = strconv.Atoi(string(old))
			}
			return s.Commit(ctx, new(persistence.Batch).Put(counter, []byte(strconv.Itoa(n+1))))
		}})
	}
	froms := make([]int, len(ms))
	errs := make([]error, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			froms[i], errs[i] = persistence.Upgrade(ctx, m, nil, chain)
		}()
	}
	wg.Wait()
	migrated := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("member %d: %v", i, err)
		}
		switch froms[i] {
		case 1:
			migrated++
		case persistence.SchemaVersion:
		default:
			t.Errorf("member %d found version %d", i, froms[i])
		}
	}
	if migrated != 1 || runs != persistence.SchemaVersion-1 {
		t.Errorf("%d members migrated, %d migrations ran; want 1 and %d", migrated, runs, persistence.SchemaVersion-1)
	}
	if v, err := ms[2].Get(context.Background(), counter); err != nil || string(v) != strconv.Itoa(persistence.SchemaVersion-1) {
		t.Errorf("the migrations' counter is %q, %v", v, err)
	}
	if v, err := persistence.StoredSchema(context.Background(), ms[1]); err != nil || v != persistence.SchemaVersion {
		t.Errorf("schema version %d, %v; want %d", v, err, persistence.SchemaVersion)
	}
	if n := waiters(); n != 0 {
		t.Errorf("%d keys left under the upgrade lock", n)
	}
}
