package auth

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/persistence"
)

// A key's use is written to its record at most once a minute (KeyUseResolution): a
// busy billing system's requests do not each cost a write.
func TestKeyUseWrittenAtMostOnceAMinute(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	owner, err := s.Users.CreateUser(ctx, NewUser{Email: "billing@example.test", Name: "Billing", Role: RoleAdmin, Password: "billing-password"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := s.APIKeys.Create(ctx, owner, APIKeySpec{Name: "panel", Scopes: []string{ScopeRead}})
	if err != nil {
		t.Fatal(err)
	}
	from := netip.MustParseAddr("192.0.2.7")
	lastUsed := func() *time.Time {
		t.Helper()
		rec, err := kit.LoadOptional[keyRecord](ctx, s.store, keyKey(k.ID))
		if err != nil || rec == nil {
			t.Fatalf("the key's record: %v %v", rec, err)
		}
		return rec.LastUsedAt
	}
	// usedAt sets the record's last use to at, as an earlier use would have.
	usedAt := func(at time.Time) {
		t.Helper()
		rec, err := kit.LoadOptional[keyRecord](ctx, s.store, keyKey(k.ID))
		if err != nil {
			t.Fatal(err)
		}
		at = at.UTC().Truncate(time.Second)
		rec.LastUsedAt = &at
		val, err := persistence.Encode(keyRecordVersion, rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.store.Commit(ctx, new(persistence.Batch).Put(keyKey(k.ID), val)); err != nil {
			t.Fatal(err)
		}
	}
	use := func() {
		t.Helper()
		if _, err := s.APIKeys.Authenticate(ctx, k.Secret, from); err != nil {
			t.Fatal(err)
		}
	}

	if lastUsed() != nil {
		t.Fatal("a new key has a last use")
	}
	use()
	if lastUsed() == nil {
		t.Fatal("the first use was not written")
	}
	recent := time.Now().Add(-KeyUseResolution / 2)
	usedAt(recent)
	use()
	if got := lastUsed(); !got.Equal(recent.UTC().Truncate(time.Second)) {
		t.Fatalf("a use within the minute wrote %v; want %v kept", got, recent)
	}
	usedAt(time.Now().Add(-KeyUseResolution - time.Second))
	before := time.Now().Add(-time.Second)
	use()
	if got := lastUsed(); got.Before(before) {
		t.Fatalf("a use a minute after the last wrote %v; want it now", got)
	}
}
