package persistence

import (
	"context"
	"fmt"
	"testing"

	"github.com/vmplane/vmplane/internal/etcdtest"
)

// readKeys is how many records the read benchmarks' stores hold: a tenant's list of
// machines is a scan of a page of them, a machine's GET a read of one.
const readKeys = 1000

// BenchmarkRead measures the store's two reads on both stores: Get of one record and a
// Scan of a 50-key page, the shapes of a machine's GET and of a list page. It is the
// baseline for the reads' own cost (a context check, a transaction, the copy out).
//
//	go test -run '^$' -bench Read -benchmem ./persistence/
func BenchmarkRead(b *testing.B) {
	b.Run("badger", func(b *testing.B) {
		benchReads(b, openStore(b, Options{}))
	})
	b.Run("etcd", func(b *testing.B) {
		srv := etcdtest.Start(b)
		s, err := OpenEtcd(EtcdOptions{Endpoints: srv.Endpoints()})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchReads(b, s)
	})
}

// benchReads fills s with readKeys records and runs the Get and Scan sub-benchmarks.
func benchReads(b *testing.B, s Store) {
	value := []byte(`{"id":"01JABCDEFGHJKMNPQRSTVWXYZ0","state":"running","cpu_cores":2}`)
	batch := new(Batch)
	for i := range readKeys {
		batch.Put(Key(KindVM, fmt.Sprintf("%012d", i)), value)
	}
	if err := s.Commit(context.Background(), batch); err != nil {
		b.Fatal(err)
	}
	b.Run("get", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if _, err := s.Get(context.Background(), Key(KindVM, fmt.Sprintf("%012d", i%readKeys))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("scan-50", func(b *testing.B) {
		prefix := Key(KindVM, "")
		for b.Loop() {
			n := 0
			if err := s.Scan(context.Background(), prefix, nil, 50, func(_, _ []byte) error { n++; return nil }); err != nil || n != 50 {
				b.Fatalf("scan: %d keys, %v", n, err)
			}
		}
	})
}
