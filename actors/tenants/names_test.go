package tenants

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Several tenant systems over one store stand for the members of a cluster: nothing in
// memory is shared between them, only the store's conditions keep names unique.

// membersOn starts n tenant systems over one Badger store, closed at cleanup.
func membersOn(t *testing.T, n int, seed func(persistence.Store)) ([]*testSystem, persistence.Store) {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if seed != nil {
		seed(store)
	}
	ms := make([]*testSystem, n)
	for i := range ms {
		ms[i] = newTestSystem(t, func(o *testOptions) { o.Store = store })
	}
	return ms, store
}

// race runs fn(i) for i in 0..n-1 at once and returns their errors.
func race(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(i)
		}()
	}
	wg.Wait()
	return errs
}

// oneWins fails unless exactly one of errs is nil and the others are conflicts.
func oneWins(t *testing.T, what string, errs []error) int {
	t.Helper()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won < 0:
			won = i
		case err == nil:
			t.Fatalf("%s: both %d and %d succeeded", what, won, i)
		case !errors.Is(err, apierr.ErrConflict):
			t.Fatalf("%s: %d: %v; want a conflict", what, i, err)
		}
	}
	if won < 0 {
		t.Fatalf("%s: none succeeded: %v", what, errs)
	}
	return won
}

// namedLike returns the stored tenants whose name folds to name's.
func namedLike(t *testing.T, store persistence.Store, name string) []Tenant {
	t.Helper()
	var out []Tenant
	err := store.Scan(context.Background(), persistence.Prefix("tenant"), nil, 0, func(_, v []byte) error {
		var ten Tenant
		if _, err := persistence.Decode(v, &ten); err != nil {
			return err
		}
		if strings.EqualFold(strings.TrimSpace(ten.Name), strings.TrimSpace(name)) {
			out = append(out, ten)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTenantNamesUniqueAcrossMembers: creates and renames to one name (in any case) on
// several members at once leave one tenant with it; a delete or a rename frees it.
func TestTenantNamesUniqueAcrossMembers(t *testing.T) {
	ms, store := membersOn(t, 3, nil)
	ctx := context.Background()
	spellings := []string{"Acme %d", "ACME %d ", "acme %d"}
	for round := 0; round < 5; round++ {
		errs := race(6, func(i int) error {
			_, err := ms[i%3].Tenants.Create(ctx, fmt.Sprintf(spellings[i%3], round), nil)
			return err
		})
		oneWins(t, fmt.Sprintf("create round %d", round), errs)
		if got := namedLike(t, store, fmt.Sprintf("acme %d", round)); len(got) != 1 {
			t.Fatalf("round %d: %d tenants named acme %d", round, len(got), round)
		}
	}
	// Renames of three tenants to one name: one gets it.
	var ids []string
	for i := 0; i < 3; i++ {
		ten, err := ms[i].Tenants.Create(ctx, fmt.Sprintf("Renamed %d", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ten.ID)
	}
	errs := race(3, func(i int) error {
		_, err := ms[i].Tenants.Update(ctx, ids[i], TenantChange{Name: kit.Ptr("Target")})
		return err
	})
	won := oneWins(t, "renames", errs)
	if got := namedLike(t, store, "target"); len(got) != 1 || got[0].ID != ids[won] {
		t.Fatalf("tenants named target: %+v; want %s", got, ids[won])
	}
	// The winner's old name is free again; so is the name of a deleted tenant.
	if _, err := ms[(won+1)%3].Tenants.Create(ctx, fmt.Sprintf("renamed %d", won), nil); err != nil {
		t.Fatalf("the renamed tenant's old name: %v", err)
	}
	if err := ms[1].Tenants.Delete(ctx, ids[won]); err != nil {
		t.Fatal(err)
	}
	if _, err := ms[2].Tenants.Create(ctx, "TARGET", nil); err != nil {
		t.Fatalf("a deleted tenant's name: %v", err)
	}
	// A change of case only keeps the name; a loser's error names the holder.
	if _, err := ms[0].Tenants.Update(ctx, ids[(won+1)%3], TenantChange{Name: kit.Ptr("RENAMED " + fmt.Sprint((won+1)%3))}); err != nil {
		t.Fatalf("a change of case: %v", err)
	}
	_, err := ms[1].Tenants.Create(ctx, "target ", nil)
	if e := apierr.From(err); e == nil || !errors.Is(err, apierr.ErrConflict) || !strings.Contains(e.Detail, "is already named") {
		t.Fatalf("create of a taken name: %v; want the conflict naming its holder", err)
	}
}

// TestNameIndexBuiltForAnOlderStore: a store written before the name index gets it
// from MigrateNameIndex, run here by several processes at once (as after a crash before
// the schema stamp); names stay unique with it, two tenants of one name from before
// keep working, and the marker of the former build on first use is gone.
func TestNameIndexBuiltForAnOlderStore(t *testing.T) {
	old := []Tenant{{ID: "t1", Name: "Old One"}, {ID: "t2", Name: "Second"}, {ID: "t3", Name: "SECOND"}}
	ms, store := membersOn(t, 3, func(store persistence.Store) {
		b := new(persistence.Batch)
		for _, ten := range old {
			val, err := persistence.Encode(tenantVersion, ten)
			if err != nil {
				t.Fatal(err)
			}
			b.Put(tenantKey(ten.ID), val)
		}
		b.Put(nameIndexDone, []byte("1"))
		if err := store.Commit(context.Background(), b); err != nil {
			t.Fatal(err)
		}
	})
	ctx := context.Background()
	for i, err := range race(3, func(int) error { return MigrateNameIndex(ctx, store, nil) }) {
		if err != nil {
			t.Fatalf("MigrateNameIndex %d: %v", i, err)
		}
	}
	errs := race(3, func(i int) error {
		_, err := ms[i].Tenants.Create(ctx, "old one", nil)
		return err
	})
	for i, err := range errs {
		if !errors.Is(err, apierr.ErrConflict) {
			t.Fatalf("member %d created a name an older tenant has: %v", i, err)
		}
	}
	if _, err := store.Get(context.Background(), nameIndexDone); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("the former marker of the index: %v; want it gone", err)
	}
	for _, name := range []string{"old one", "second"} {
		if holder, err := nameHolder(context.Background(), store, name); err != nil || holder == "" {
			t.Fatalf("index of %q: %q, %v", name, holder, err)
		}
	}
	// Of two tenants named alike before, the one not indexed is changed (quota) and
	// renamed without taking the other's key.
	holder, _ := nameHolder(context.Background(), store, "second")
	other := "t2"
	if holder == "t2" {
		other = "t3"
	}
	if _, err := ms[0].Tenants.Update(ctx, other, TenantChange{Quota: &QuotaChange{Machines: kit.Ptr(3)}}); err != nil {
		t.Fatal(err)
	}
	if h, _ := nameHolder(context.Background(), store, "second"); h != holder {
		t.Fatalf("a quota change moved the name's key to %s", h)
	}
	if _, err := ms[1].Tenants.Update(ctx, other, TenantChange{Name: kit.Ptr("Third")}); err != nil {
		t.Fatal(err)
	}
	if h, _ := nameHolder(context.Background(), store, "second"); h != holder {
		t.Fatalf("a rename freed another tenant's name key (now %q)", h)
	}
	if _, err := ms[2].Tenants.Create(ctx, "third", nil); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("create of the renamed name: %v; want a conflict", err)
	}
}

// TestFoldName: names strings.EqualFold holds equal fold alike, others do not.
func TestFoldName(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"Acme", "aCME", true}, {" Acme\t", "acme", true}, {"straße", "STRASSE", false},
		{"Kelvin \u212a", "kelvin k", true}, {"Σίσυφος", "ΣΊΣΥΦΟΣ", true}, {"a b", "ab", false},
	} {
		eq := strings.EqualFold(strings.TrimSpace(c.a), strings.TrimSpace(c.b))
		if eq != c.same || (kit.FoldName(c.a) == kit.FoldName(c.b)) != c.same {
			t.Errorf("%q vs %q: EqualFold %v, folded %q and %q; want same=%v", c.a, c.b, eq, kit.FoldName(c.a), kit.FoldName(c.b), c.same)
		}
	}
}
