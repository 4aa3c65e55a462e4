package wiretest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
)

// EnvLoopback names the environment variable that, set to 1, makes the domain
// packages' test systems run on a Loopback placement: every request of their tests
// then crosses "members", e.g.
//
//	VMPLANE_TEST_WIRE=1 go test ./actors/...
const EnvLoopback = "VMPLANE_TEST_WIRE"

// Loopback is a kit.Placement for tests: a cluster of one member on which every entity
// is active "elsewhere", so that each request and each told message goes the way it
// goes to another member (kit.Encode, JSON over the network, kit.Decode, the owner's
// Runtime.Deliver, and the answer back the same way), while everything still runs in
// one process. A package's tests run on it show every message and answer they use
// that cannot cross: the request fails (500) instead of working as it does locally,
// and the test fails saying why when it can tell.
type Loopback struct {
	rt        atomic.Pointer[kit.Runtime]
	forwarded atomic.Int64
	mu        sync.Mutex
	// failures are messages and answers that did not survive the trip; internal are
	// requests answered 500, which an answer that cannot be encoded is (Deliver
	// answers so) but so is an entity's panic.
	failures, internal []string
}

// delivering marks the context of a request Deliver hands to the local entity: Place
// answers "here" only for it.
type delivering struct{}

// FromEnv returns a Loopback when EnvLoopback is set to 1, and nil otherwise; every
// method of a nil Loopback does nothing, so a test helper writes
//
//	lb := wiretest.FromEnv(t)
//	rt := kit.New(store, nil, kit.EntityOptions{}, lb.Options()...)
//	lb.Bind(rt)
//
// At the end of the test, a message or answer that did not survive the trip fails it,
// and the requests answered 500 are logged.
func FromEnv(t testing.TB) *Loopback {
	if os.Getenv(EnvLoopback) != "1" {
		return nil
	}
	l := &Loopback{}
	t.Cleanup(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, f := range l.failures {
			t.Errorf("did not cross members: %s", f)
		}
		for _, f := range l.internal {
			t.Logf("answered 500 across members: %s", f)
		}
		t.Logf("%d requests and told messages crossed members", l.forwarded.Load())
	})
	return l
}

// Options is the runtime option that installs the placement (none for a nil Loopback).
func (l *Loopback) Options() []kit.Option {
	if l == nil {
		return nil
	}
	return []kit.Option{kit.WithPlacement(l)}
}

// Bind gives the placement the runtime it delivers to; requests made before it fail.
func (l *Loopback) Bind(rt *kit.Runtime) {
	if l != nil {
		l.rt.Store(rt)
	}
}

func (l *Loopback) fail(format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	l.mu.Lock()
	l.failures = append(l.failures, err.Error())
	l.mu.Unlock()
	return err
}

// Place implements kit.Placement: every entity is on the "other" member, except for the
// request Deliver is handing over. The cluster-wide jobs are this member's: it is the
// cluster's only member, so it leads them (kit.Runtime.Leads), as a single node does.
func (l *Loopback) Place(ctx context.Context, kind, _ string) (kit.Member, bool, error) {
	return kit.Member{Name: "loopback"}, kind == kit.SingletonKind || ctx.Value(delivering{}) != nil, nil
}

// Moved implements kit.Placement.
func (l *Loopback) Moved(string, string, kit.Member) {}

// Local implements kit.Placement: nothing is, so told messages are forwarded too.
func (l *Loopback) Local(string, string) bool { return false }

// Release implements kit.Placement; the loopback holds nothing.
func (l *Loopback) Release(string, string) {}

// Forward implements kit.Placement: the request and its answer go through JSON as they
// would over the network, and the request to the runtime's Deliver.
func (l *Loopback) Forward(ctx context.Context, _ kit.Member, req kit.Forwarded) (kit.Wired, error) {
	rt := l.rt.Load()
	if rt == nil {
		return kit.Wired{}, l.fail("wiretest: Loopback used before Bind")
	}
	l.forwarded.Add(1)
	var sent kit.Forwarded
	if err := roundTrip(req, &sent); err != nil {
		return kit.Wired{}, l.fail("request %s to %s/%s: %v", req.Msg.Type, req.Kind, req.ID, err)
	}
	if _, err := kit.Decode(sent.Msg); err != nil {
		return kit.Wired{}, l.fail("request to %s/%s: %v", req.Kind, req.ID, err)
	}
	ans, err := rt.Deliver(context.WithValue(ctx, delivering{}, true), sent)
	if errors.Is(err, kit.ErrNotDelivered) && sent.Tell {
		// The kind is gone: the runtime has stopped. A told message is dropped, as
		// one sent to a stopped actor is on one member; kit would otherwise retry it
		// for as long as a tell may take, past the end of the test.
		return kit.Wired{}, nil
	}
	if err != nil {
		return kit.Wired{}, err
	}
	if sent.Tell {
		return ans, nil
	}
	var got kit.Wired
	if err := roundTrip(ans, &got); err != nil {
		return kit.Wired{}, l.fail("answer %s from %s/%s: %v", ans.Type, req.Kind, req.ID, err)
	}
	v, err := kit.Decode(got)
	if err != nil {
		return kit.Wired{}, l.fail("answer from %s/%s: %v", req.Kind, req.ID, err)
	}
	if e, ok := v.(*apierr.Error); ok && e.Status == http.StatusInternalServerError {
		l.mu.Lock()
		l.internal = append(l.internal, fmt.Sprintf("%s to %s/%s: %v", req.Msg.Type, req.Kind, req.ID, e))
		l.mu.Unlock()
	}
	return got, nil
}

// roundTrip marshals in and unmarshals it into out, as the network would.
func roundTrip(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// SkipOnLoopback skips a test when it runs on a Loopback (EnvLoopback is set): a test
// of what holds on one member only, said in why. On a Loopback every told message
// crosses, so it reaches its entity after the teller has gone on; on one member, a
// message told before an answer is in the entity's mailbox before the next request.
func SkipOnLoopback(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(EnvLoopback) == "1" {
		t.Skip("holds on one member only: " + why)
	}
}

// AcrossMembers runs tests, a package's own, on a Loopback (it sets EnvLoopback for
// them): a few that reach most of the package's messages and answers, so that each
// test run sends them across members, including the answers CheckSent cannot read.
// With EnvLoopback set already every test runs across members, and this one skips.
func AcrossMembers(t *testing.T, tests ...func(*testing.T)) {
	if os.Getenv(EnvLoopback) == "1" {
		t.Skip("every test runs across members already")
	}
	t.Setenv(EnvLoopback, "1")
	for _, test := range tests {
		name := runtime.FuncForPC(reflect.ValueOf(test).Pointer()).Name()
		t.Run(name[strings.LastIndexByte(name, '.')+1:], test)
	}
}
