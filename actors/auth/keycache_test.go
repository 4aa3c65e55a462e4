package auth

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// TestKeyCacheEndsAtOnce: with a key's record cached by its use, a revocation, an
// expiry written to the record and the removal of the record all refuse the key's
// very next request; and a key in use is served from the cache.
func TestKeyCacheEndsAtOnce(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	owner, err := s.Users.CreateUser(ctx, NewUser{Email: "keys@example.test", Name: "Keys", Role: RoleAdmin, Password: "keys-password"})
	if err != nil {
		t.Fatal(err)
	}
	from := netip.MustParseAddr("192.0.2.7")
	newKey := func() NewAPIKey {
		t.Helper()
		k, err := s.APIKeys.Create(ctx, owner, APIKeySpec{Name: "panel", Scopes: []string{ScopeRead}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ { // the first use writes its last use; the second caches it
			if _, err := s.APIKeys.Authenticate(ctx, k.Secret, from); err != nil {
				t.Fatal(err)
			}
		}
		return k
	}
	refused := func(k NewAPIKey, after string) {
		t.Helper()
		if _, err := s.APIKeys.Authenticate(ctx, k.Secret, from); !errors.Is(err, apierr.ErrUnauthorized) {
			t.Fatalf("after %s: got %v; want unauthorized", after, err)
		}
	}

	k := newKey()
	if s.APIKeys.cache.gate == nil || !s.APIKeys.cache.gate.Open(ctx) {
		t.Fatal("the key cache is off on a single node's store")
	}
	s.APIKeys.cache.mu.Lock()
	_, cached := s.APIKeys.cache.m[k.ID]
	s.APIKeys.cache.mu.Unlock()
	if !cached {
		t.Fatal("a key in use is not cached")
	}
	if err := s.APIKeys.Revoke(ctx, k.ID, nil); err != nil {
		t.Fatal(err)
	}
	refused(k, "a revocation")

	k = newKey()
	rec, err := kit.LoadOptional[keyRecord](ctx, s.store, keyKey(k.ID))
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	past := time.Now().Add(-time.Minute).UTC()
	rec.ExpiresAt = &past
	val, err := persistence.Encode(keyRecordVersion, rec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.store.Commit(ctx, new(persistence.Batch).Put(keyKey(k.ID), val)); err != nil {
		t.Fatal(err)
	}
	refused(k, "an expiry written to the record")

	k = newKey()
	if err := s.store.Commit(ctx, new(persistence.Batch).Del(keyKey(k.ID))); err != nil {
		t.Fatal(err)
	}
	refused(k, "the record's deletion")
}
