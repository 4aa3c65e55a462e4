package monitoring

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeProber owns the addresses of one host and answers for them.
type fakeProber struct {
	host string
	up   atomic.Bool
}

func (p *fakeProber) ProbeTCP(_ context.Context, addr string) (bool, error) {
	if !strings.HasPrefix(addr, p.host+":") {
		return false, nil
	}
	if !p.up.Load() {
		return true, errors.New("connect: connection refused")
	}
	return true, nil
}

func (p *fakeProber) ProbeHTTP(ctx context.Context, url string) (int, bool, error) {
	if !strings.HasPrefix(url, "http://"+p.host+":") && !strings.HasPrefix(url, "http://"+p.host+"/") {
		return 0, false, nil
	}
	if !p.up.Load() {
		return 0, true, errors.New("connect: connection refused")
	}
	return http.StatusNoContent, true, nil
}

// A probe asks the driver first: an address the driver owns is answered by it, with no
// traffic at all; any other address is probed on the network as before.
func TestProbeAsksTheDriverFirst(t *testing.T) {
	var sent atomic.Int64
	client := &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
		sent.Add(1)
		return nil, errors.New("no network in this test")
	})}
	p := &fakeProber{host: "192.0.2.7"}
	p.up.Store(true)
	ctx := context.Background()
	timeout := 300 * time.Millisecond
	if r := probe(ctx, client, p, CheckHTTP, "http://192.0.2.7:8080/health", 0, timeout); !r.OK || r.StatusCode == nil || *r.StatusCode != 204 {
		t.Errorf("http probe of the driver's address: got %+v; want ok with its status 204", r)
	}
	if r := probe(ctx, client, p, CheckHTTP, "http://192.0.2.7/", 200, timeout); r.OK {
		t.Errorf("http probe expecting 200 of a 204: got %+v; want failed", r)
	}
	if r := probe(ctx, client, p, CheckTCP, "192.0.2.7:22", 0, timeout); !r.OK {
		t.Errorf("tcp probe of the driver's address: got %+v; want ok", r)
	}
	p.up.Store(false)
	for _, c := range [][2]string{{CheckHTTP, "http://192.0.2.7/"}, {CheckTCP, "192.0.2.7:22"}} {
		if r := probe(ctx, client, p, c[0], c[1], 0, timeout); r.OK || r.Error == nil || !strings.Contains(*r.Error, "refused") {
			t.Errorf("%s probe of a machine that is down: got %+v; want refused", c[0], r)
		}
	}
	if n := sent.Load(); n != 0 {
		t.Fatalf("got %d requests on the network for addresses the driver owns; want none", n)
	}
	// Anything else goes to the network.
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	if r := probe(ctx, client, p, CheckHTTP, srv.URL, 0, timeout); r.OK || sent.Load() != 1 {
		t.Errorf("http probe of another address: got %+v after %d requests; want it sent to the network", r, sent.Load())
	}
	if r := probe(ctx, srv.Client(), p, CheckTCP, srv.Listener.Addr().String(), 0, timeout); !r.OK {
		t.Errorf("tcp probe of another address: got %+v; want it connected", r)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
