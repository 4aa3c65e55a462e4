package auth

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/vmplane/vmplane/actors/auth/signin"
	"github.com/vmplane/vmplane/apierr"
)

// A started sign-in is taken once, by its own provider, with its secret: a callback
// without the secret or with another sign-in's is refused and spends nothing, and of
// callbacks racing with the state and its secret exactly one gets it.
func TestOIDCStateTakenOnce(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	in := signin.OIDCSignIn{Provider: "corp", Nonce: "n", Verifier: "v", RedirectTo: "/x"}
	started, err := s.Users.StartOIDC(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	state := started.State
	other, err := s.Users.StartOIDC(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if started.Secret == "" || started.Secret == other.Secret || started.Secret == state {
		t.Fatalf("secrets %q and %q of state %q; want two of their own", started.Secret, other.Secret, state)
	}
	for _, secret := range []string{"", other.Secret, state} {
		if _, err := s.Users.TakeOIDC(ctx, "corp", state, secret); !errors.Is(err, apierr.ErrOIDCStateInvalid) {
			t.Fatalf("the secret %q: %v; want oidc_state_invalid", secret, err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []signin.OIDCSignIn
	var refused int
	for range 8 {
		wg.Go(func() {
			sign, err := s.Users.TakeOIDC(ctx, "corp", state, started.Secret)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				got = append(got, sign)
			case errors.Is(err, apierr.ErrOIDCStateInvalid):
				refused++
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(got) != 1 || refused != 7 || got[0].Nonce != "n" || got[0].Verifier != "v" || got[0].RedirectTo != "/x" {
		t.Fatalf("taken %+v, refused %d; want one take", got, refused)
	}
	if _, err := s.Users.TakeOIDC(ctx, "elsewhere", other.State, other.Secret); !errors.Is(err, apierr.ErrOIDCStateInvalid) {
		t.Fatalf("another provider's state: %v", err)
	}
	if _, err := s.Users.TakeOIDC(ctx, "corp", "short", other.Secret); !errors.Is(err, apierr.ErrOIDCStateInvalid) {
		t.Fatalf("a malformed state: %v", err)
	}
}

// A provider's identity signs in the user of its e-mail, created where the claim
// places it; nobody is created or signed in elsewhere than the claim says.
func TestLoginExternal(t *testing.T) {
	s := newTestSystem(t)
	ctx := context.Background()
	from := Client{Addr: "192.0.2.1", Agent: "browser"}
	login := func(l signin.ExternalLogin) (Session, error) {
		l.Provider = "corp"
		return s.Users.LoginExternal(ctx, l, from)
	}
	notMapped := func(l signin.ExternalLogin) {
		t.Helper()
		if _, err := login(l); !errors.Is(err, apierr.ErrOIDCNotMapped) {
			t.Fatalf("%+v: %v; want oidc_not_mapped", l, err)
		}
	}
	notMapped(signin.ExternalLogin{Email: "new@t1.test"})                                               // a provider that places nobody
	notMapped(signin.ExternalLogin{Email: "new@t1.test", Mapped: true, Create: true})                   // a claim mapped nowhere
	notMapped(signin.ExternalLogin{Email: "new@t1.test", Mapped: true, TenantID: "t1"})                 // creates nobody
	notMapped(signin.ExternalLogin{Email: "new@t1.test", Mapped: true, TenantID: "gone", Create: true}) // no such tenant

	sess, err := login(signin.ExternalLogin{Email: " New@T1.test", Name: "New", Mapped: true, TenantID: "t1", Create: true})
	if err != nil {
		t.Fatal(err)
	}
	u := sess.User
	if u.Email != "new@t1.test" || u.Role != RoleUser || u.TenantID == nil || *u.TenantID != "t1" || u.Name != "New" || sess.Restricted {
		t.Fatalf("created %+v", u)
	}
	infos, _, err := s.Users.Sessions(ctx, u.ID, sess.ID, "", 10)
	if err != nil || len(infos) != 1 || infos[0].Method != MethodOIDC || infos[0].ClientAddr != "192.0.2.1" {
		t.Fatalf("sessions %+v %v", infos, err)
	}
	// The same user again; placed elsewhere, refused.
	if again, err := login(signin.ExternalLogin{Email: "new@t1.test", Mapped: true, TenantID: "t1", Create: true}); err != nil || again.User.ID != u.ID {
		t.Fatalf("again: %+v %v", again.User, err)
	}
	notMapped(signin.ExternalLogin{Email: "new@t1.test", Mapped: true, TenantID: "t2", Create: true})
	notMapped(signin.ExternalLogin{Email: "new@t1.test", Mapped: true, Operator: true, Create: true})
	// An operator, created among the operators.
	op, err := login(signin.ExternalLogin{Email: "boss@ops.test", Mapped: true, Operator: true, Create: true})
	if err != nil || op.User.Role != RoleAdmin || op.User.TenantID != nil {
		t.Fatalf("operator %+v %v", op.User, err)
	}
	notMapped(signin.ExternalLogin{Email: "boss@ops.test", Mapped: true, TenantID: "t1", Create: true})
	// A provider that places nobody signs in whoever exists.
	if plain, err := login(signin.ExternalLogin{Email: "boss@ops.test"}); err != nil || plain.User.ID != op.User.ID {
		t.Fatalf("unmapped provider: %+v %v", plain.User, err)
	}
	// A disabled user is refused.
	if _, err := s.Users.Update(ctx, u.ID, UserChange{Disabled: new(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := login(signin.ExternalLogin{Email: "new@t1.test", Mapped: true, TenantID: "t1"}); !errors.Is(err, apierr.ErrForbidden) {
		t.Fatalf("disabled: %v", err)
	}
}
