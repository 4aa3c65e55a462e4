package actors

import (
	"testing"

	"github.com/vmplane/vmplane/persistence"
)

// newTestSystem starts the actor system over a store in t.TempDir(), stopped at cleanup.
func newTestSystem(t testing.TB, mutate ...func(*Options)) *System {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Store: store, Auth: AuthOptions{BcryptCost: 4, AdminPassword: "initial-password"}}
	for _, m := range mutate {
		m(&opts)
	}
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop()
		store.Close()
	})
	return s
}
