package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vmplane/vmplane/internal/leakcheck"
	"github.com/vmplane/vmplane/internal/testwait"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

// client is a client of s, closed when the test ends.
func client(t *testing.T, s *Server) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: s.Endpoints(), DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestRestartKeepsDataAndAddress: a client opened before an outage reads what was
// written before it once the server is back, on the same endpoints.
func TestRestartKeepsDataAndAddress(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	ctx := context.Background()
	if _, err := c.Put(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}

	s.Stop()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err := c.Get(short, "k")
	cancel()
	if err == nil {
		t.Fatal("Get succeeded while the server was stopped")
	}

	s.Restart()
	testwait.Until(t, func() error {
		short, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		resp, err := c.Get(short, "k")
		if err != nil {
			return err
		}
		if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
			t.Fatalf("got %v after the restart; want k=v", resp.Kvs)
		}
		return nil
	})
}

// TestMaxTxnOps: the server takes transactions as large as MaxTxnOps.
func TestMaxTxnOps(t *testing.T) {
	s := Start(t)
	c := client(t, s)
	ops := make([]clientv3.Op, 1000)
	for i := range ops {
		ops[i] = clientv3.OpPut(fmt.Sprintf("k%04d", i), "v")
	}
	if _, err := c.Txn(context.Background()).Then(ops...).Commit(); err != nil {
		t.Fatalf("a transaction of %d puts: %v", len(ops), err)
	}
}

// TestProxyHang: through a hung proxy a request waits until its deadline (no error
// comes back before it), and after Heal the same client works again.
func TestProxyHang(t *testing.T) {
	s := Start(t)
	p := NewProxy(t, s)
	c, err := clientv3.New(clientv3.Config{Endpoints: p.Endpoints(), DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	if _, err := c.Put(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}

	p.Hang()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = c.Get(short, "k")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) && status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("Get through a hung proxy: %v; want its deadline exceeded", err)
	}

	p.Heal()
	testwait.Until(t, func() error {
		short, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err := c.Get(short, "k")
		return err
	})
}
