package httpedge

import (
	"strings"

	"github.com/valyala/fasthttp"
)

// cors answers browsers on other origins (Options.CORSOrigins): a request from an
// allowed origin gets Access-Control-Allow-Origin naming it, and a preflight (OPTIONS
// with Access-Control-Request-Method) is answered 204 before anything else runs. A
// request from another origin gets no CORS header, so the browser keeps its answer
// from the page. Credentials are bearer tokens, never cookies: no
// Access-Control-Allow-Credentials.
type cors struct{ origins map[string]bool }

func newCORS(origins []string) *cors {
	if len(origins) == 0 {
		return nil
	}
	c := &cors{origins: map[string]bool{}}
	for _, o := range origins {
		c.origins[strings.TrimSuffix(o, "/")] = true
	}
	return c
}

const (
	corsMethods = "GET, POST, PATCH, DELETE"
	corsHeaders = "Authorization, Content-Type, Idempotency-Key, X-Request-Id"
	// corsExposed are the answer's headers a page may read beyond the simple ones.
	corsExposed = "Location, Retry-After, X-Request-Id, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset"
	corsMaxAge  = "600"
)

// apply sets the CORS headers of rc and reports whether it answered a preflight.
func (c *cors) apply(rc *fasthttp.RequestCtx) bool {
	origin := rc.Request.Header.Peek("Origin")
	if len(origin) == 0 {
		return false
	}
	h := &rc.Response.Header
	h.Add("Vary", "Origin")
	if !c.origins[string(origin)] {
		return false
	}
	h.Set("Access-Control-Allow-Origin", string(origin))
	if !rc.IsOptions() || len(rc.Request.Header.Peek("Access-Control-Request-Method")) == 0 {
		h.Set("Access-Control-Expose-Headers", corsExposed)
		return false
	}
	h.Set("Access-Control-Allow-Methods", corsMethods)
	h.Set("Access-Control-Allow-Headers", corsHeaders)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	rc.SetStatusCode(fasthttp.StatusNoContent)
	return true
}
