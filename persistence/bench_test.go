package persistence

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/vmplane/vmplane/internal/etcdtest"
)

// BenchmarkCommit compares durable writes with and without group commit: 64 concurrent
// writers, one small key per Commit, every Commit acknowledged only once synced.
//
//	go test -run '^$' -bench Commit -benchtime 2000x ./persistence/
func BenchmarkCommit(b *testing.B) {
	const writers = 64
	for _, mode := range []struct {
		name string
		opts Options
	}{
		{"group-commit", Options{}},
		{"per-write-sync", Options{NoGroupCommit: true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			s := openStore(b, mode.opts)
			commitInParallel(b, s, writers)
			st := s.Stats()
			b.ReportMetric(float64(st.Commits)/float64(max(st.Groups, 1)), "commits/sync")
		})
	}
}

// BenchmarkEtcdCommit is BenchmarkCommit's load on the etcd store: 64 concurrent
// writers, one small key per Commit, each acknowledged once etcd has it in its fsynced
// log. The server is a single embedded member on loopback, in this process: the figure
// is what etcd's own transaction path costs on this machine, not a network's.
//
//	go test -run '^$' -bench EtcdCommit -benchtime 2000x ./persistence/
func BenchmarkEtcdCommit(b *testing.B) {
	const writers = 64
	srv := etcdtest.Start(b)
	s, err := OpenEtcd(EtcdOptions{Endpoints: srv.Endpoints()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	commitInParallel(b, s, writers)
}

// commitInParallel runs b.N Commits of one small key each from writers goroutines and
// reports the rate.
func commitInParallel(b *testing.B, s Store, writers int) {
	value := []byte(`{"id":"01JABCDEFGHJKMNPQRSTVWXYZ0","state":"running"}`)
	var seq atomic.Int64
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((writers + procs - 1) / procs) // goroutines = parallelism × GOMAXPROCS
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			k := Key(KindVM, fmt.Sprintf("%012d", seq.Add(1)))
			if err := s.Commit(context.Background(), new(Batch).Put(k, value)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
