package persistence

import (
	"context"
	"errors"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/internal/etcdtest"
)

// TestEtcdQueuedBatchesShareTransactions: batches queued behind a busy writer are
// written together, in as few transactions as their conditions allow, with the result
// of writing them one after another.
func TestEtcdQueuedBatchesShareTransactions(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	taken, gate := make(chan struct{}), make(chan struct{})
	var once sync.Once
	first := true
	s, err := OpenEtcd(EtcdOptions{Endpoints: srv.Endpoints(), beforeGroup: func() {
		if first { // only the writer goroutine runs this
			first = false
			close(taken)
			<-gate
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	release := func() { once.Do(func() { close(gate) }) }
	defer s.Close()
	defer release()

	ctx := context.Background()
	// A Commit while the queue is empty goes directly; hold the writer with an Enqueue.
	holder := s.Enqueue(new(Batch).Put([]byte("holder"), []byte("x")), nil)
	<-taken
	ps := []*Pending{
		s.Enqueue(new(Batch).Put([]byte("k"), []byte("1")), nil),
		s.Enqueue(new(Batch).Del([]byte("k")).Put([]byte("j"), []byte("1")), nil),
		// Its own transaction: it sees k deleted by the batch before it.
		s.Enqueue(new(Batch).Require(IfAbsent([]byte("k"))).Put([]byte("c"), []byte("1")), nil),
		s.Enqueue(new(Batch).Put([]byte("k"), []byte("2")), nil),
		s.Enqueue(new(Batch).PutTTL([]byte("j"), []byte("2"), 3600e9), nil),
	}
	txns := s.Stats().Groups
	release()
	if err := holder.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	for i, p := range ps {
		if err := p.Wait(ctx); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	for k, want := range map[string]string{"k": "2", "j": "2", "c": "1"} {
		if v, err := s.Get(context.Background(), []byte(k)); err != nil || string(v) != want {
			t.Errorf("Get(%s) = %q, %v; want %q", k, v, err, want)
		}
	}
	// The holder's transaction, then the five batches in three: two, one, two.
	if got := s.Stats().Groups - txns; got != 4 {
		t.Errorf("%d transactions after the release; want 4 (the holder, then 2+1+2 batches in 3)", got)
	}
	if got := s.Stats().Commits; got != 6 {
		t.Errorf("Stats().Commits = %d; want 6", got)
	}
}

// TestEtcdOneLateAnswerIsNotAnOutage: a request etcd answered too late fails alone (a
// write with 504, as it may have been applied; a read with 503) and Health stays ok,
// where a refused connection turns it unavailable at once. CI caught a cluster test's
// member refusing every write for a second after one slow fsync under the embedded
// etcd.
func TestEtcdOneLateAnswerIsNotAnOutage(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	s, err := OpenEtcd(EtcdOptions{Endpoints: srv.Endpoints()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	late := status.Error(codes.DeadlineExceeded, "context deadline exceeded")
	for _, c := range []struct {
		err  error
		nOps int
		want *apierr.Error
	}{
		{context.DeadlineExceeded, 1, apierr.ErrTimeout},
		{late, 2, apierr.ErrTimeout},
		{late, 0, apierr.ErrUnavailable},
	} {
		got := s.requestError("request", c.err, c.nOps)
		if !errors.Is(got, c.want) || !isUnknownOutcome(got) {
			t.Errorf("requestError(%v, %d ops) = %v; want %s, an unknown outcome", c.err, c.nOps, got, c.want.Code)
		}
		if h := s.Health(); h != nil {
			t.Fatalf("Health() after one late answer (%v, %d ops) = %v; want nil", c.err, c.nOps, h)
		}
	}
	_ = s.requestError("request", status.Error(codes.Unavailable, "connection refused"), 1)
	if h := s.Health(); !errors.Is(h, apierr.ErrUnavailable) {
		t.Fatalf("Health() after a refused connection = %v; want unavailable", h)
	}
}
