package app

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// slowWorld is a simulated cluster whose world is attached only once release is
// closed, as a million machines' world is read or written only after a while.
type slowWorld struct {
	*sim.Driver
	release chan struct{}
}

func (w *slowWorld) AttachInBackground(ctx context.Context, store persistence.Store) <-chan sim.AttachResult {
	out := make(chan sim.AttachResult, 1)
	go func() {
		defer close(out)
		select {
		case <-w.release:
			out <- <-w.Driver.AttachInBackground(ctx, store)
		case <-ctx.Done():
			out <- sim.AttachResult{Err: ctx.Err()}
		}
	}()
	return out
}

// A server serves before its simulated world is attached (issue 33: serving must not
// wait for what the sim loads): health answers ok, the machine list answers from the
// store, and a sync once the world is there adopts its machines.
func TestServesWhileTheSimulatedWorldLoads(t *testing.T) {
	t.Parallel()
	s, w := startSlowWorld(t)
	t.Cleanup(s.stop)
	cfg := s.cfg

	expect(t, s.do(req{method: "GET", path: "/api/health"}), 200, "")
	admin := s.adminToken()
	expect(t, s.do(req{method: "GET", path: "/api/virt/vms", token: admin}), 200, "")

	close(w.release)
	if res := s.sync(admin); res.Machines.Added != cfg.SimMachines {
		t.Errorf("sync after the world was attached: added %d; want %d", res.Machines.Added, cfg.SimMachines)
	}
}

// A server stopped while its world is still being attached stops (the attach is
// cancelled, and waited for before the store closes).
func TestStopsWhileTheSimulatedWorldLoads(t *testing.T) {
	t.Parallel()
	s, _ := startSlowWorld(t)
	s.stop()
}

// startSlowWorld starts a server on the configured simulated cluster whose world is
// attached only once the returned slowWorld's release is closed.
func startSlowWorld(t *testing.T) (*testServer, *slowWorld) {
	t.Helper()
	cfg := testConfig(t)
	d, err := NewDriver(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &slowWorld{Driver: d.(*sim.Driver), release: make(chan struct{})}
	s := &testServer{t: t, cfg: cfg, driver: w, client: &http.Client{Timeout: 30 * time.Second}}
	s.start()
	return s, w
}
