package auth

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vmplane/vmplane/persistence"
	"github.com/vmplane/vmplane/persistence/storetest"
)

// TestStandingCache: the cache is on only on a shared store whose watch keeps time, and
// drops a user whose keys change (its record or a login's) and no other; the rest of
// its rule (the clock, answers asked for across a change, resets) is fresh.Cache's,
// tested there.
func TestStandingCache(t *testing.T) {
	store := &storetest.Clocked{Store: openTestStore(t)}
	c := newStandingCache(store)
	if c == nil {
		t.Fatal("no cache on a shared store whose watch keeps time")
	}
	if newStandingCache(openTestStore(t)) != nil || newStandingCache(&sharedStore{openTestStore(t)}) != nil {
		t.Fatal("a cache on a store that is not shared, or whose watch keeps no time")
	}
	st := &authState{Gen: 1, Sessions: map[string]struct{}{"s1": {}}}
	hit := func(id string) bool {
		t.Helper()
		got, ok := c.Get(id)
		if ok && got != st {
			t.Fatalf("Get(%s) = %+v; want what was kept", id, got)
		}
		return ok
	}
	put := func(key []byte) {
		t.Helper()
		if err := store.Commit(context.Background(), new(persistence.Batch).Put(key, []byte("x"))); err != nil {
			t.Fatal(err)
		}
	}
	store.Set(time.Now().Add(time.Hour)) // caught up from now on
	c.Keep("u1", st, c.Begin())
	if !hit("u1") {
		t.Fatal("not served with the clock caught up")
	}
	put(persistence.Key("user", "u1"))
	if hit("u1") {
		t.Fatal("served after the user's record changed")
	}
	c.Keep("u1", st, c.Begin())
	put(persistence.Key("refresh", "u1", "s1"))
	if hit("u1") {
		t.Fatal("served after one of the user's logins changed")
	}
	c.Keep("u2", st, c.Begin())
	put(persistence.Key("user-email", "u2")) // not one of u2's keys
	if !hit("u2") {
		t.Fatal("dropped after a write of another prefix")
	}
}

// TestStandingEnds: which changes of a standing end a token that the one before let
// through, and so wait out the fence.
func TestStandingEnds(t *testing.T) {
	sess := func(ids ...string) map[string]struct{} {
		m := map[string]struct{}{}
		for _, id := range ids {
			m[id] = struct{}{}
		}
		return m
	}
	base := authState{Gen: 2, Sessions: sess("a", "b")}
	with := func(f func(*authState)) *authState { s := base; f(&s); return &s }
	for _, c := range []struct {
		name       string
		prev, next *authState
		want       bool
	}{
		{"first load", nil, &base, false},
		{"unchanged", &base, &base, false},
		{"a login more", &base, with(func(s *authState) { s.Sessions = sess("a", "b", "c") }), false},
		{"a login ended", &base, with(func(s *authState) { s.Sessions = sess("a") }), true},
		{"disabled", &base, with(func(s *authState) { s.Disabled = true }), true},
		{"enabled again", with(func(s *authState) { s.Disabled = true }), &base, false},
		{"a new generation", &base, with(func(s *authState) { s.Gen = 3 }), true},
		{"deleted", &base, &authState{Gone: true}, true},
		{"restricted", &base, with(func(s *authState) { s.Restricted = sess("a") }), true},
		{"restricted no more", with(func(s *authState) { s.Restricted = sess("a") }), &base, false},
	} {
		if got := ends(c.prev, c.next); got != c.want {
			t.Errorf("%s: ends = %v; want %v", c.name, got, c.want)
		}
	}
}

// TestStandingOnSharedStore: on a shared store whose watch keeps time, a user's
// standing is served from the member's cache, and a disable, a logout or a deletion
// waits out the fence before it is answered and ends the token at the next check; a
// login does not wait.
func TestStandingOnSharedStore(t *testing.T) {
	store := &storetest.Clocked{Store: openTestStore(t)}
	store.Set(time.Now().Add(time.Hour))
	s, err := startTestSystem(t, store, AuthOptions{BcryptCost: 4, AdminPassword: "initial-password"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	var fences atomic.Int32
	s.Users.fence = func() { fences.Add(1) }
	ctx := context.Background()

	login := func(email string) (User, Session) {
		t.Helper()
		usr, err := s.Users.Create(ctx, email, "Standing", RoleUser, "the-password", new("t1"))
		if err != nil {
			t.Fatal(err)
		}
		sess, err := s.Users.Login(ctx, email, "the-password", Client{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			if err := s.Users.Authorize(ctx, usr.ID, sess.ID, sess.Gen); err != nil {
				t.Fatalf("Authorize after login: %v", err)
			}
		}
		if _, ok := s.Users.standing.Get(usr.ID); !ok {
			t.Fatal("the user's standing is not in the cache after a check")
		}
		if n := fences.Load(); n != 0 {
			t.Fatalf("%d fences after a create and a login; want 0", n)
		}
		return usr, sess
	}
	ended := func(what string, usr User, sess Session) {
		t.Helper()
		if n := fences.Swap(0); n != 1 {
			t.Fatalf("%s waited out %d fences; want 1", what, n)
		}
		if err := s.Users.Authorize(ctx, usr.ID, sess.ID, sess.Gen); !errors.Is(err, errSessionEnded) {
			t.Fatalf("Authorize after %s: %v; want the session ended", what, err)
		}
	}

	// A cache that has not heard of a login yet (its watch lags behind the member
	// that opened it) refuses its token; the entity, asked, lets it through.
	usr, sess := login("new-login@example.test")
	s.Users.standing.Keep(usr.ID, &authState{Gen: sess.Gen, Sessions: map[string]struct{}{}}, s.Users.standing.Begin())
	if err := s.Users.Authorize(ctx, usr.ID, sess.ID, sess.Gen); err != nil {
		t.Fatalf("Authorize of a login the cache has not heard of: %v; want it let through", err)
	}

	usr, sess = login("disabled@example.test")
	if _, err := s.Users.Update(ctx, usr.ID, UserChange{Disabled: new(true)}); err != nil {
		t.Fatal(err)
	}
	ended("a disable", usr, sess)

	usr, sess = login("logout@example.test")
	if err := s.Users.Logout(ctx, usr.ID, sess.RefreshToken); err != nil {
		t.Fatal(err)
	}
	ended("a logout", usr, sess)

	usr, sess = login("password@example.test")
	if _, err := s.Users.Update(ctx, usr.ID, UserChange{Password: new("another-password")}); err != nil {
		t.Fatal(err)
	}
	ended("a password change", usr, sess)

	usr, sess = login("deleted@example.test")
	if err := s.Users.Delete(ctx, usr.ID); err != nil {
		t.Fatal(err)
	}
	ended("a deletion", usr, sess)
}
