package remotes

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestLoginRetryEndsWithContext: a login waiting to retry a 429 stops when its context
// ends, with the context's error, and sends nothing more.
func TestLoginRetryEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "20")
		w.WriteHeader(http.StatusTooManyRequests)
		cancel() // the caller gives up while the answer is on its way
	}))
	defer srv.Close()
	_, err := Login(ctx, srv.Client(), srv.URL, "a@example.test", "password", nil)
	if !errors.Is(err, context.Canceled) || n.Load() != 1 {
		t.Fatalf("got %v after %d requests; want context.Canceled after 1", err, n.Load())
	}
}
