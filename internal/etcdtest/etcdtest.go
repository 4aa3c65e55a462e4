// Package etcdtest runs a real etcd server inside a test process: one member of the
// v3.7 server embedded (go.etcd.io/etcd/server/v3/embed), on loopback ports, with its
// data in the test's temporary directory. Tests of the etcd store and of the cluster
// use it; Stop and Restart simulate an outage of etcd that clients ride out.
package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// MaxTxnOps is the server's limit on the operations of one transaction: well above
// the largest batch vmplane writes, as an operator sets it (--max-txn-ops).
const MaxTxnOps = 10000

// readyTimeout bounds a start: a single member elects itself in about one election
// timeout, so only a broken start reaches it (a loaded machine under -race included).
const readyTimeout = 60 * time.Second

// Server is an embedded etcd server owned by one test.
type Server struct {
	t testing.TB

	mu        sync.Mutex
	etcd      *embed.Etcd // nil while stopped
	dir       string
	client    url.URL
	peer      url.URL
	configure []func(*embed.Config)
}

// Start starts a single-member etcd in t.TempDir() on two free loopback ports and
// stops it when the test ends. configure, when given, adjusts the configuration before
// each start (Restart included), after the defaults are set.
func Start(t testing.TB, configure ...func(*embed.Config)) *Server {
	t.Helper()
	s := &Server{t: t, dir: t.TempDir(), configure: configure}
	// A port picked free may be taken by someone else before etcd binds it: try again
	// on others.
	var err error
	for range 3 {
		s.client, s.peer = freeURL(t), freeURL(t)
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("etcdtest: starting etcd: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Endpoints are the client URLs to give clientv3.Config.Endpoints. They stay the same
// across Stop and Restart.
func (s *Server) Endpoints() []string { return []string{s.client.String()} }

// Stop stops the server, as an outage would: clients see connections refused until
// Restart. Stopping a stopped server does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	e := s.etcd
	s.etcd = nil
	s.mu.Unlock()
	if e == nil {
		return
	}
	e.Close()
	// Close waits for the server's goroutines; Err is closed after them.
	for range e.Err() {
	}
}

// Restart starts the stopped server again with the same data and the same ports, so
// that clients reconnect by themselves. It fails the test when etcd does not start.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	if err := s.start(); err != nil {
		s.t.Fatalf("etcdtest: restarting etcd: %v", err)
	}
}

func (s *Server) start() error {
	cfg := embed.NewConfig()
	cfg.Name = "etcdtest"
	cfg.Dir = s.dir
	cfg.ListenClientUrls = []url.URL{s.client}
	cfg.AdvertiseClientUrls = []url.URL{s.client}
	cfg.ListenPeerUrls = []url.URL{s.peer}
	cfg.AdvertisePeerUrls = []url.URL{s.peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.MaxTxnOps = MaxTxnOps
	// Quiet: the tests' output is theirs. Warnings about slow applies on a loaded
	// machine are expected.
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	// The gRPC gateway (HTTP/JSON) is not used and costs goroutines.
	cfg.EnableGRPCGateway = false
	// Fast elections: a single member elects itself after one election timeout.
	cfg.TickMs = 10
	cfg.ElectionMs = 100
	for _, f := range s.configure {
		f(cfg)
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return fmt.Errorf("etcd failed while starting: %w", err)
	case <-time.After(readyTimeout):
		e.Close()
		return fmt.Errorf("etcd was not ready after %s", readyTimeout)
	}
	s.mu.Lock()
	s.etcd = e
	s.mu.Unlock()
	return nil
}

// freeURL is an http URL on a loopback port that was free a moment ago.
func freeURL(t testing.TB) url.URL {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("etcdtest: finding a free port: %v", err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	u, err := url.Parse("http://" + addr)
	if err != nil || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("etcdtest: unexpected address %q (%v)", addr, err)
	}
	return *u
}
