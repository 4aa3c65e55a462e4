package httpedge

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/limiter"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// fakeSystem reports a storage outage; it has no store and no driver.
type fakeSystem struct{}

func (fakeSystem) Health(context.Context) actors.Health {
	return actors.Health{Storage: "unavailable", Hypervisor: "ok"}
}
func (fakeSystem) Kinds() map[string]int     { return nil }
func (fakeSystem) Store() persistence.Store  { return nil }
func (fakeSystem) Driver() hypervisor.Driver { return nil }

// openLimiter allows every request.
type openLimiter struct{ api.Limiter }

func (openLimiter) Take(context.Context, string, ...string) (limiter.Decision, error) {
	return limiter.Decision{Allowed: true}, nil
}

// TestServicesAreFakeable: the edge needs only the services it is handed, so a
// test serves a route on fakes of the two it calls (the limiter and the system's
// health), with no actor system behind them.
func TestServicesAreFakeable(t *testing.T) {
	s := New(Options{Version: "test", Services: api.Services{System: fakeSystem{}, Limiter: openLimiter{}}})
	var rc fasthttp.RequestCtx
	rc.Request.Header.SetMethod("GET")
	rc.Request.SetRequestURI("/api/health")
	s.Handler()(&rc)
	var r HealthReply
	if err := json.Unmarshal(rc.Response.Body(), &r); err != nil {
		t.Fatalf("%d %s: %v", rc.Response.StatusCode(), rc.Response.Body(), err)
	}
	if rc.Response.StatusCode() != fasthttp.StatusServiceUnavailable || r.Status != "degraded" || r.Checks.Storage != "unavailable" {
		t.Fatalf("got %d %+v; want 503, degraded by the fake's storage outage", rc.Response.StatusCode(), r)
	}
}
