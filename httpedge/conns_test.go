package httpedge

import (
	"encoding/json"
	"testing"

	"github.com/valyala/fasthttp"
)

// An error answer a library writes in text below the handlers becomes problem JSON; a
// route's own JSON answer is left as it is.
func TestEnsureProblem(t *testing.T) {
	t.Parallel()
	s := New(Options{Version: "test"})
	var rc fasthttp.RequestCtx
	rc.Error("websocket: bad handshake", fasthttp.StatusBadRequest)
	s.ensureProblem(&rc, "req-1")
	var p problem
	if ct := string(rc.Response.Header.ContentType()); ct != "application/problem+json" {
		t.Fatalf("got Content-Type %q; want application/problem+json", ct)
	}
	if err := json.Unmarshal(rc.Response.Body(), &p); err != nil || p.Status != 400 || p.Code != "invalid_request" || p.RequestID != "req-1" {
		t.Fatalf("got %s (%v); want a 400 invalid_request problem with the request id", rc.Response.Body(), err)
	}
	var health fasthttp.RequestCtx
	health.SetStatusCode(fasthttp.StatusServiceUnavailable)
	health.SetContentType("application/json")
	health.SetBodyString(`{"status":"degraded"}`)
	s.ensureProblem(&health, "req-2")
	if string(health.Response.Body()) != `{"status":"degraded"}` {
		t.Fatalf("got %s; want the route's own JSON kept", health.Response.Body())
	}
	for status, code := range map[int]string{404: "not_found", 408: "request_timeout", 418: "invalid_request", 431: "header_too_large", 502: "internal"} {
		if got := codeOfStatus(status); got != code {
			t.Errorf("codeOfStatus(%d): got %q; want %q", status, got, code)
		}
	}
}
