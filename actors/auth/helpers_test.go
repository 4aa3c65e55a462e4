package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/wiretest"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// testSystem is the auth services on a runtime of their own, as the composition root
// starts them.
type testSystem struct {
	rt          *kit.Runtime
	store       persistence.Store
	Users       *Users
	Idempotency *Idempotency
	APIKeys     *APIKeys
}

// tenantsForTests are the tenants that exist for these tests' users.
var tenantsForTests = map[string]bool{"t1": true, "t2": true, "t3": true}

// totpTenants are the tenants of tenantsForTests that require a second factor of
// their users (tenant id → true); only TestTOTPRequired uses t3, and changes it.
var totpTenants sync.Map

// startTestSystem starts the auth services over store; Stop stops them. With
// VMPLANE_TEST_WIRE=1 every request crosses members (wiretest.Loopback).
func startTestSystem(t testing.TB, store persistence.Store, opts AuthOptions) (*testSystem, error) {
	lb := wiretest.FromEnv(t)
	rt := kit.New(store, nil, kit.EntityOptions{}, lb.Options()...)
	lb.Bind(rt)
	svc, err := Start(Deps{Runtime: rt, Options: opts, TenantExists: func(_ context.Context, id string) error {
		if !tenantsForTests[id] {
			return apierr.NotFound("tenant", id)
		}
		return nil
	}, TenantRequiresTOTP: func(_ context.Context, id string) (bool, error) {
		v, _ := totpTenants.Load(id)
		return v == true, nil
	}})
	if err != nil {
		rt.Shutdown()
		return nil, err
	}
	return &testSystem{rt: rt, store: store, Users: svc.Users, Idempotency: svc.Idempotency, APIKeys: svc.APIKeys}, nil
}

// Stop stops the services and the runtime.
func (s *testSystem) Stop() {
	s.rt.StopKinds()
	s.Users.Stop()
	s.rt.Shutdown()
}

// newTestSystem starts the auth services over a store in t.TempDir(), stopped at cleanup.
func newTestSystem(t testing.TB) *testSystem {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := startTestSystem(t, store, AuthOptions{BcryptCost: 4, AdminPassword: "initial-password"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		store.Close()
	})
	return s
}

// storeAdmins writes admins straight into store, as a store written by hand or by an
// older vmplane holds them: ids[i] with e-mail emails[i] (index entry too, spelled as
// given) and the password "stored-password".
func storeAdmins(t *testing.T, store persistence.Store, ids, emails []string) {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte("stored-password"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	b := new(persistence.Batch)
	for i, id := range ids {
		val, err := persistence.Encode(userRecordVersion, userRecord{User: User{ID: id, Email: emails[i], Name: id, Role: RoleAdmin}, PasswordHash: string(hash)})
		if err != nil {
			t.Fatal(err)
		}
		b.Put(persistence.Key("user", id), val).Put(persistence.Key("user-email", emails[i]), []byte(id))
	}
	if err := store.Commit(context.Background(), b); err != nil {
		t.Fatal(err)
	}
}

// The keys and encodings of signin's records, which tests write past their time.
const linkRecordVersion, resetRecordVersion = 1, 1

func linkKey(token string) []byte  { return tokenKey("loginlink", token) }
func resetKey(token string) []byte { return tokenKey("pwreset", token) }

// tokenKey is the key signin keeps a token's record under: <prefix>/<SHA-256 of it>.
func tokenKey(prefix, token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return persistence.Key(prefix, hex.EncodeToString(sum[:]))
}
