package client_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/vmplane/vmplane/client"
)

// countingTransport is an http.RoundTripper that counts the requests it carries.
type countingTransport struct{ n atomic.Int32 }

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return http.DefaultTransport.RoundTrip(req)
}

// WithHTTPClient's client carries every request, and HTTPClient hands back that client;
// a nil one is refused when the client is made.
func TestWithHTTPClient(t *testing.T) {
	t.Parallel()
	r := newRecorder(t, status(200, nil, tenantJSON))
	tr := &countingTransport{}
	hc := &http.Client{Transport: tr}
	c := newTestClient(t, r.srv.URL, client.WithHTTPClient(hc))
	if c.HTTPClient() != hc {
		t.Fatal("HTTPClient is not the client given to WithHTTPClient")
	}
	if _, err := c.GetTenant(context.Background(), "t1"); err != nil {
		t.Fatal(err)
	}
	if n := tr.n.Load(); n != 1 || r.requests() != 1 {
		t.Fatalf("the given client carried %d requests, the server saw %d; want 1 and 1", n, r.requests())
	}
	if _, err := client.New(r.srv.URL, client.WithToken("tok"), client.WithHTTPClient(nil)); err == nil {
		t.Fatal("WithHTTPClient(nil) was accepted")
	}
}
