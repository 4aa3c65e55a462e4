package actors

import (
	"testing"

	"github.com/vmplane/vmplane/persistence"
)

// The chain holds one migration from each schema version before this build's, in
// order, so that Upgrade brings a store of any earlier version up to it.
func TestMigrationsReachTheSchemaVersion(t *testing.T) {
	ms := Migrations(nil)
	if len(ms) != persistence.SchemaVersion-1 {
		t.Fatalf("%d migrations; want %d (schema version %d)", len(ms), persistence.SchemaVersion-1, persistence.SchemaVersion)
	}
	for i, m := range ms {
		if m.From != i+1 || m.Apply == nil || m.Name == "" {
			t.Fatalf("migration %d: from %d, named %q; want from %d, named, with a step", i, m.From, m.Name, i+1)
		}
	}
}
