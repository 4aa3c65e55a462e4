package kit

import (
	"context"
	"testing"

	"github.com/vmplane/vmplane/persistence"
)

// TestStampCarriesTheClaim: a stamped write lands only on the claim it was given and
// records its reply in it; once the claim changed, it writes nothing. A nil stamp
// leaves a batch as it is.
func TestStampCarriesTheClaim(t *testing.T) {
	rt := newTestRuntime(t, EntityOptions{})
	ctx := context.Background()
	key := []byte("idem/u/k")
	claim, err := persistence.Encode(1, map[string]any{"token": "first"})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Store.Commit(ctx, new(persistence.Batch).Put(key, claim)); err != nil {
		t.Fatal(err)
	}
	st := &Stamp{Key: key, Claim: claim}

	var plain persistence.Batch
	if err := (*Stamp)(nil).Carry(&plain, wireState{}); err != nil || len(plain.Ops)+len(plain.Conds) != 0 {
		t.Fatalf("a nil stamp: %v, batch %+v; want the batch unchanged", err, plain)
	}
	if _, ok, _ := Recorded[wireState](nil); ok {
		t.Fatal("a nil stamp has a recorded reply")
	}

	// The claim taken over by another: the write must not land.
	other, _ := persistence.Encode(1, map[string]any{"token": "second"})
	if err := rt.Store.Commit(ctx, new(persistence.Batch).Put(key, other)); err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch).Put([]byte("data/x"), []byte("x"))
	if err := st.Carry(b, wireState{}); err != nil {
		t.Fatal(err)
	}
	if err := rt.Store.Commit(ctx, b); !persistence.IsConditionFailed(err) {
		t.Fatalf("a write on a claim taken over: %v; want it refused", err)
	}
	if _, err := rt.Store.Get(context.Background(), []byte("data/x")); err == nil {
		t.Fatal("the refused write landed")
	}

	// On its own claim it lands, with its reply recorded in the claim.
	st.Claim = other
	b = new(persistence.Batch).Put([]byte("data/x"), []byte("x"))
	if err := st.Carry(b, wireState{}); err != nil {
		t.Fatal(err)
	}
	if err := rt.Store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Token string `json:"token"`
		Reply *Wired `json:"reply"`
	}
	val, err := rt.Store.Get(context.Background(), key)
	if err == nil {
		_, err = persistence.Decode(val, &rec)
	}
	if err != nil || rec.Token != "second" || rec.Reply == nil {
		t.Fatalf("the claim after the write: %+v, %v; want the claim with the reply", rec, err)
	}
	if _, ok, err := Recorded[wireState](&Stamp{Reply: rec.Reply}); !ok || err != nil {
		t.Fatalf("the recorded reply: ok %v, %v", ok, err)
	}
}

// TestOwnerOfASingleNode: on a single node every run is an owner of its own, and any
// other run is gone.
func TestOwnerOfASingleNode(t *testing.T) {
	a, b := newTestRuntime(t, EntityOptions{}), newTestRuntime(t, EntityOptions{})
	if a.Owner() == b.Owner() {
		t.Fatal("two runs share an owner name")
	}
	ctx := context.Background()
	if gone, err := a.OwnerGone(ctx, a.Owner()); gone || err != nil {
		t.Fatalf("this run: gone %v, %v", gone, err)
	}
	if gone, err := a.OwnerGone(ctx, b.Owner()); !gone || err != nil {
		t.Fatalf("another run: gone %v, %v; want gone", gone, err)
	}
}
