package persistence_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/internal/etcdtest"
	"github.com/vmplane/vmplane/persistence"
	"github.com/vmplane/vmplane/persistence/storetest"
)

func TestBadgerConformance(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string]persistence.Options{
		"group-commit":   {},
		"per-write-sync": {NoGroupCommit: true},
	} {
		t.Run(name, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) persistence.Store {
				o := opts // a copy each: the cases run in parallel
				o.Dir = t.TempDir()
				s, err := persistence.Open(o)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = s.Close() })
				return s
			})
		})
	}
}

// openEtcdTimeout is openEtcd's request timeout.
const openEtcdTimeout = 15 * time.Second

func TestEtcdConformance(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	var n atomic.Int64
	storetest.Run(t, func(t *testing.T) persistence.Store {
		// One server for the suite: each subtest gets a prefix of its own.
		return openEtcd(t, srv, fmt.Sprintf("/conformance/%d/", n.Add(1)))
	})
}

// openEtcd opens an etcd store on srv under prefix and closes it when t ends. Its
// requests may take up to openEtcdTimeout: the tests that use it are not about timeouts
// (those that are set their own), and the conformance suite's cases open their stores
// all at once, which on a loaded two-core machine under the race detector took the
// default 3 s (OpenEtcd's first read timed out: "etcd unreachable").
func openEtcd(t testing.TB, srv *etcdtest.Server, prefix string) *persistence.Etcd {
	t.Helper()
	s, err := persistence.OpenEtcd(persistence.EtcdOptions{Endpoints: srv.Endpoints(), Prefix: prefix, RequestTimeout: openEtcdTimeout})
	if err != nil {
		t.Fatalf("OpenEtcd: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}
