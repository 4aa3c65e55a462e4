package kit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/apierr"
)

func TestWireRefusesTwoTypesUnderOneNameAndTwoNamesForOneType(t *testing.T) {
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		f()
	}
	mustPanic("another type under kittest.incr@1", func() { Wire("kittest.incr", 1, &notWired{}) })
	mustPanic("wireIncr under a second name", func() { Wire("kittest.other", 1, &wireIncr{}) })
	mustPanic("wireIncr at a second version", func() { Wire("kittest.incr", 2, &wireIncr{}) })
	mustPanic("version 0", func() { Wire("kittest.zero", 0, &notWired{}) })
	mustPanic("a name with a version in it", func() { Wire("kittest.zero@1", 1, &notWired{}) })
	// The same registration again changes nothing (a test package's init may run it
	// beside the package's own).
	Wire("kittest.incr", 1, &wireIncr{})
	w, err := Encode(&wireIncr{By: 2})
	if err != nil || w.Type != "kittest.incr" || w.Version != 1 {
		t.Fatalf("encoded %+v, %v; want kittest.incr@1", w, err)
	}
}

func TestWiredKeepsItsJSON(t *testing.T) {
	w, err := Encode(apierr.New(apierr.ErrNotFound, "gone"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(w)
	if want := `{"type":"error","version":1,"body":{"status":404,"code":"not_found","detail":"gone"}}`; string(b) != want {
		t.Fatalf("wire form %s; want %s", b, want)
	}
	// An error answer of a member from before versions (no version) still reads.
	v, err := Decode(Wired{Type: "error", Body: json.RawMessage(`{"status":404,"code":"not_found"}`)})
	if e, ok := v.(*apierr.Error); err != nil || !ok || e.Status != 404 {
		t.Fatalf("decoded %#v, %v; want the 404", v, err)
	}
}

func TestDeliverOfAMessageThisMemberDoesNotKnowIsNotDelivered(t *testing.T) {
	c, _ := startMembers(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rt := c.members["m0"]
	for _, tc := range []struct {
		msg  Wired
		want string
	}{
		{Wired{Type: "kittest.incr", Version: 2, Body: json.RawMessage(`{"By":1}`)},
			"this member runs an older version of vmplane (unknown message kittest.incr@2)"},
		{Wired{Type: "kittest.future", Version: 1, Body: json.RawMessage(`{}`)},
			"this member runs an older version of vmplane (unknown message kittest.future@1)"},
		{Wired{Type: "*github.com/vmplane/vmplane/actors/kit.wireIncr", Body: json.RawMessage(`{"By":1}`)},
			"the sending member runs an older version of vmplane"},
	} {
		_, err := rt.Deliver(ctx, Forwarded{Kind: "counters", ID: "a", Msg: tc.msg})
		if !errors.Is(err, ErrNotDelivered) || !errors.Is(err, ErrUnknownMessage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("delivering %s@%d: %v; want not delivered: %s", tc.msg.Type, tc.msg.Version, err, tc.want)
		}
	}
}

func TestAskToAnOlderMemberIsRetriedUntilOneReadsIt(t *testing.T) {
	c, kinds := startMembers(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.setOwner("counters/a", "m1")
	c.mu.Lock()
	c.older["m1"] = true
	c.mu.Unlock()
	// m1 cannot read the message and answers "not delivered"; once the entity moves to
	// m2 (m1 restarted with the new version) the retry reaches m2.
	go func() {
		kittest.WaitFor(t, "a forward to the older member", func() bool {
			c.mu.Lock()
			defer c.mu.Unlock()
			return c.forwards > 0
		})
		c.setOwner("counters/a", "m2")
	}()
	st, err := Ask[wireState](ctx, kinds[0], "a", &wireIncr{By: 1})
	if err != nil || st.Member != "m2" || st.N != 1 {
		t.Fatalf("got %+v, %v; want the answer of m2 after the move", st, err)
	}
	if n := kinds[1].Live(); n != 0 {
		t.Fatalf("the older member activated %d entities for a message it cannot read", n)
	}
}
