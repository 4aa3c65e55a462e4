package httpedge

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/crypto/bcrypt"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/httpedge/accounts"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/token"
	"github.com/vmplane/vmplane/persistence"
)

// scanSpy is a store that notes the deadline of the context of every scan under
// prefix (zero: the context had none).
type scanSpy struct {
	persistence.Store
	prefix []byte

	mu        sync.Mutex
	deadlines []time.Time
}

func (s *scanSpy) Scan(ctx context.Context, prefix, after []byte, limit int, fn func(k, v []byte) error) error {
	if bytes.Equal(prefix, s.prefix) {
		dl, _ := ctx.Deadline()
		s.mu.Lock()
		s.deadlines = append(s.deadlines, dl)
		s.mu.Unlock()
	}
	return s.Store.Scan(ctx, prefix, after, limit, fn)
}

// TestRequestContextReachesStore: a request's reads of the store run under the
// request's own context, the one bounded by requestTimeout from when the edge took the
// request, so that its end ends them too.
func TestRequestContextReachesStore(t *testing.T) {
	st, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	spy := &scanSpy{Store: st, prefix: persistence.Prefix("user")}
	const email, password = "admin@example.test", "correct horse battery"
	sys, err := actors.Start(actors.Options{Store: spy,
		Auth: auth.AuthOptions{AdminEmail: email, AdminPassword: password, BcryptCost: bcrypt.MinCost}})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Stop()
	tokens, err := token.New(bytes.Repeat([]byte("k"), 32), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{Version: "test", Store: spy, Tokens: tokens, Services: api.Services{
		Users: sys.Users, Limiter: sys.Limiter, Idempotency: sys.Idempotency, System: sys}})
	serve := inMemory(t, s)
	login := loginThrough(t, serve, email, password)
	var res *fasthttp.Response

	spy.mu.Lock()
	spy.deadlines = nil
	spy.mu.Unlock()
	before := time.Now()
	res = serve("GET", "/api/resources/users", login.Token, "")
	after := time.Now()
	if res.StatusCode() != fasthttp.StatusOK {
		t.Fatalf("GET /api/resources/users: %d %s", res.StatusCode(), res.Body())
	}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if len(spy.deadlines) != 1 {
		t.Fatalf("the list scanned the users %d times; want once", len(spy.deadlines))
	}
	// The deadline the edge set when it took the request, and no other (a context
	// with none, or one made further down, would have another).
	dl := spy.deadlines[0]
	if dl.Before(before.Add(requestTimeout)) || dl.After(after.Add(requestTimeout)) {
		t.Fatalf("the list's scan ran under a context with deadline %v; want the request's, requestTimeout after it came (%v..%v)",
			dl, before.Add(requestTimeout), after.Add(requestTimeout))
	}
}

// inMemory answers requests through s's handler, without a listener: method, path,
// a bearer token ("" for none) and a JSON body ("" for none).
func inMemory(t *testing.T, s *Server) func(method, path, bearer, body string) *fasthttp.Response {
	return func(method, path, bearer, body string) *fasthttp.Response {
		t.Helper()
		var rc fasthttp.RequestCtx
		rc.Request.Header.SetMethod(method)
		rc.Request.SetRequestURI(path)
		if bearer != "" {
			rc.Request.Header.Set("Authorization", "Bearer "+bearer)
		}
		if body != "" {
			rc.Request.Header.SetContentType("application/json")
			rc.Request.SetBodyString(body)
		}
		s.Handler()(&rc)
		var res fasthttp.Response
		rc.Response.CopyTo(&res)
		return &res
	}
}

// loginThrough signs email in through serve and answers its token reply.
func loginThrough(t *testing.T, serve func(method, path, bearer, body string) *fasthttp.Response, email, password string) accounts.TokenReply {
	t.Helper()
	res := serve("POST", "/api/auth/login", "", `{"email":"`+email+`","password":"`+password+`"}`)
	var login accounts.TokenReply
	if err := json.Unmarshal(res.Body(), &login); err != nil || res.StatusCode() != fasthttp.StatusOK {
		t.Fatalf("login: %d %s", res.StatusCode(), res.Body())
	}
	return login
}
