package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Several auth systems over one store stand for the members of a cluster here: each has
// its own supervisor and entities, so nothing in memory serialises them, and only the
// store's conditions (which Badger checks as etcd does) keep them apart.

// sharedStore is a store that reports itself shared with other members, as the etcd
// store of a cluster does. Each member gets its own (a pointer), as each member opens
// its own store.
type sharedStore struct{ persistence.Store }

func (*sharedStore) Shared() bool { return true }

// openTestStore opens a Badger store in t.TempDir(), closed at cleanup.
func openTestStore(t *testing.T) persistence.Store {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// startMembers starts n auth systems over store at the same time, each over its own
// sharedStore, and stops them at cleanup.
func startMembers(t *testing.T, store persistence.Store, n int, opts AuthOptions) []*testSystem {
	t.Helper()
	ms := make([]*testSystem, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ms[i], errs[i] = startTestSystem(t, &sharedStore{store}, opts)
		}()
	}
	wg.Wait()
	for i, m := range ms {
		if m != nil {
			t.Cleanup(m.Stop)
		}
		if errs[i] != nil {
			t.Fatalf("member %d: %v", i, errs[i])
		}
	}
	return ms
}

// usersWith returns the stored users whose e-mail is email.
func usersWith(t *testing.T, store persistence.Store, email string) []userRecord {
	t.Helper()
	var out []userRecord
	err := store.Scan(context.Background(), persistence.Prefix("user"), nil, 0, func(_, v []byte) error {
		var rec userRecord
		if _, err := persistence.Decode(v, &rec); err != nil {
			return err
		}
		if rec.Email == email {
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEmailTakenOnceAcrossMembers: creates of one e-mail on several members at once
// make one user; the others get the e-mail-taken conflict, and the index names the one
// made. Its deletion frees the e-mail for any member.
func TestEmailTakenOnceAcrossMembers(t *testing.T) {
	store := openTestStore(t)
	ms := startMembers(t, store, 3, AuthOptions{BcryptCost: bcrypt.MinCost, AdminPassword: "initial-password"})
	ctx := context.Background()
	for round := 0; round < 5; round++ {
		email := fmt.Sprintf("twice-%d@example.test", round)
		made := make([]User, 6)
		errs := make([]error, 6)
		var wg sync.WaitGroup
		for i := range made {
			wg.Add(1)
			go func() {
				defer wg.Done()
				made[i], errs[i] = ms[i%3].Users.Create(ctx, email, "Twice", RoleAdmin, "password-123", nil)
			}()
		}
		wg.Wait()
		var winner string
		for i, err := range errs {
			switch {
			case err == nil && winner == "":
				winner = made[i].ID
			case err == nil:
				t.Fatalf("round %d: %s created twice (%s and %s)", round, email, winner, made[i].ID)
			case !errors.Is(err, apierr.ErrConflict) || err.Error() != errEmailTaken(email).Error():
				t.Fatalf("round %d: create %d: %v; want the e-mail-taken conflict", round, i, err)
			}
		}
		if winner == "" {
			t.Fatalf("round %d: no create of %s succeeded: %v", round, email, errs)
		}
		if us := usersWith(t, store, email); len(us) != 1 || us[0].ID != winner {
			t.Fatalf("round %d: stored users with %s: %+v; want only %s", round, email, us, winner)
		}
		if id, err := store.Get(context.Background(), persistence.Key("user-email", email)); err != nil || string(id) != winner {
			t.Fatalf("round %d: index of %s: %q, %v; want %s", round, email, id, err, winner)
		}
	}
	// A deletion frees the e-mail in the same batch: another member creates it again.
	u, err := ms[0].Users.Create(ctx, "again@example.test", "Again", RoleAdmin, "password-123", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ms[1].Users.Delete(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := ms[2].Users.Create(ctx, "again@example.test", "Again", RoleAdmin, "password-123", nil); err != nil {
		t.Fatalf("create after the delete: %v", err)
	}
}

// TestFirstAdminOnceAcrossMembers: members started at once on an empty store create
// one admin between them, and only the member that created it shows its generated
// password.
func TestFirstAdminOnceAcrossMembers(t *testing.T) {
	store := openTestStore(t)
	ms := startMembers(t, store, 4, AuthOptions{BcryptCost: bcrypt.MinCost})
	admins := usersWith(t, store, "admin@localhost")
	if len(admins) != 1 {
		t.Fatalf("%d admins after 4 members started at once; want 1", len(admins))
	}
	first, err := FirstAdminID(context.Background(), store)
	if err != nil || first != admins[0].ID {
		t.Fatalf("meta/admin is %q, %v; want %s", first, err, admins[0].ID)
	}
	shown := 0
	var password string
	for _, m := range ms {
		_, pw, ok, err := m.Users.InitialAdminPassword(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			shown++
			password = pw
		}
	}
	if shown != 1 {
		t.Fatalf("%d members would log the generated password; want the one that created the admin", shown)
	}
	if _, err := ms[3].Users.Login(context.Background(), "admin@localhost", password, Client{}); err != nil {
		t.Fatalf("the password shown does not log the admin in: %v", err)
	}
	// On a store of its own (a single node), the password is shown whichever start
	// asks: a start that failed before serving shows it at the next.
	single, err := startTestSystem(t, store, AuthOptions{BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	defer single.Stop()
	if _, _, ok, err := single.Users.InitialAdminPassword(context.Background()); err != nil || !ok {
		t.Fatalf("single node: shown %v, %v; want the password", ok, err)
	}
}

// TestNormalisationAcrossMembers: MigrateEmails run by several processes at once (as
// after a crash before the schema stamp, beside writers that hold no upgrade lock)
// normalises each stored e-mail once between them; a normalised e-mail another user
// has stays as it was; members started afterwards log everyone in.
func TestNormalisationAcrossMembers(t *testing.T) {
	store := openTestStore(t)
	ids, emails := []string{"v1", "v2"}, []string{"taken@example.test", "TAKEN@example.test"}
	for i := 0; i < 10; i++ {
		ids, emails = append(ids, fmt.Sprintf("u%02d", i)), append(emails, fmt.Sprintf(" User%d@Example.TEST", i))
	}
	storeAdmins(t, store, ids, emails)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = MigrateEmails(context.Background(), &sharedStore{store}, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("MigrateEmails %d: %v", i, err)
		}
	}
	ms := startMembers(t, store, 3, AuthOptions{BcryptCost: bcrypt.MinCost, AdminPassword: "initial-password"})
	for i := 0; i < 10; i++ {
		email := fmt.Sprintf("user%d@example.test", i)
		id := fmt.Sprintf("u%02d", i)
		if us := usersWith(t, store, email); len(us) != 1 || us[0].ID != id {
			t.Fatalf("users with %s: %+v; want %s", email, us, id)
		}
		if got, err := store.Get(context.Background(), persistence.Key("user-email", email)); err != nil || string(got) != id {
			t.Fatalf("index of %s: %q, %v; want %s", email, got, err, id)
		}
		if _, err := store.Get(context.Background(), persistence.Key("user-email", fmt.Sprintf(" User%d@Example.TEST", i))); !errors.Is(err, persistence.ErrNotFound) {
			t.Fatalf("old index entry of %s: %v; want it gone", id, err)
		}
		if _, err := ms[i%3].Users.Login(context.Background(), email, "stored-password", Client{}); err != nil {
			t.Fatalf("login as %s: %v", email, err)
		}
	}
	if us := usersWith(t, store, "TAKEN@example.test"); len(us) != 1 || us[0].ID != "v2" {
		t.Fatalf("v2 changed: %+v", us)
	}
}
