package persistence

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/vmplane/vmplane/apierr"
)

func schemaOf(t *testing.T, s Store) string {
	t.Helper()
	v, err := s.Get(context.Background(), schemaKey)
	if errors.Is(err, ErrNotFound) {
		return "none"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(v)
}

// chainTo is a chain of migrations up to SchemaVersion that only count their runs.
func chainTo(runs *int) []Migration {
	var ms []Migration
	for v := 1; v < SchemaVersion; v++ {
		ms = append(ms, Migration{From: v, Name: "count", Apply: func(context.Context, Store, *Batch) error { *runs++; return nil }})
	}
	return ms
}

// TestUpgradeStamps: a new store is stamped with SchemaVersion without migrating; a
// store with records but no stamp (every store written before it existed) is version
// 1 and migrated from there; a stamped one is left alone.
func TestUpgradeStamps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	runs := 0
	chain := chainTo(&runs)
	fresh := openStore(t, Options{})
	if from, err := Upgrade(ctx, fresh, nil, chain); err != nil || from != 0 || runs != 0 {
		t.Fatalf("Upgrade of a new store: %d, %v", from, err)
	}
	if got := schemaOf(t, fresh); got != strconv.Itoa(SchemaVersion) {
		t.Errorf("new store stamped %s", got)
	}

	old := openStore(t, Options{})
	mustCommit(t, old, new(Batch).Put(Key(KindUser, "1"), []byte("{}")))
	if v, _ := StoredSchema(context.Background(), old); v != 1 {
		t.Errorf("an unstamped store with records is version %d; want 1", v)
	}
	if from, err := Upgrade(ctx, old, nil, chain); err != nil || from != 1 || runs != SchemaVersion-1 {
		t.Fatalf("Upgrade of an unstamped store: %d, %v, %d migrations run", from, err, runs)
	}
	if got := schemaOf(t, old); got != strconv.Itoa(SchemaVersion) {
		t.Errorf("unstamped store stamped %s", got)
	}
	if from, err := Upgrade(ctx, old, nil, chain); err != nil || from != SchemaVersion || runs != SchemaVersion-1 {
		t.Errorf("Upgrade again: %d, %v, %d migrations run", from, err, runs)
	}
}

// TestUpgradeRefusesNewer: a store stamped by a newer vmplane is refused with a
// NewerSchemaError naming both versions, and left untouched.
func TestUpgradeRefusesNewer(t *testing.T) {
	t.Parallel()
	s := openStore(t, Options{})
	newer := strconv.Itoa(SchemaVersion + 1)
	mustCommit(t, s, new(Batch).Put(schemaKey, []byte(newer)).Put(Key(KindUser, "1"), []byte("{}")))
	_, err := Upgrade(context.Background(), s, nil, chainTo(new(int)))
	var ne *NewerSchemaError
	if !errors.As(err, &ne) || ne.Found != SchemaVersion+1 || ne.Known != SchemaVersion || !errors.Is(err, apierr.ErrUnavailable) {
		t.Fatalf("Upgrade of a newer store: %v", err)
	}
	if got := schemaOf(t, s); got != newer {
		t.Errorf("the newer store's stamp became %s", got)
	}
}

// TestUpgradeMigrates runs a chain of migrations on a version-1 store: each in order,
// each logged, its writes committed with its stamp; a failing one leaves the store at
// the version before it, and the next start runs it again.
func TestUpgradeMigrates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openStore(t, Options{})
	mustCommit(t, s, new(Batch).Put(Key(KindVM, "1"), []byte("v1")))
	var ran []int
	fail := true
	ms := []Migration{
		{From: 1, Name: "rename vm to machine", Apply: func(ctx context.Context, s Store, b *Batch) error {
			ran = append(ran, 1)
			return s.Scan(context.Background(), Prefix(KindVM), nil, 0, func(k, v []byte) error {
				b.Del(append([]byte(nil), k...)).Put(Key("machine", string(k[len(KindVM)+1:])), append([]byte(nil), v...))
				return nil
			})
		}},
		{From: 2, Name: "flaky", Apply: func(ctx context.Context, s Store, b *Batch) error {
			ran = append(ran, 2)
			b.Put(Key(KindMeta, "two"), []byte("x"))
			if fail {
				return errors.New("disk on fire")
			}
			return nil
		}},
	}
	core, logs := observer.New(zap.InfoLevel)
	if _, err := upgrade(ctx, s, zap.New(core), 3, ms); err == nil {
		t.Fatal("a failed migration was not reported")
	}
	if got := schemaOf(t, s); got != "2" {
		t.Errorf("after the failed second migration the store is at %s; want 2", got)
	}
	if _, err := s.Get(context.Background(), Key(KindMeta, "two")); !errors.Is(err, ErrNotFound) {
		t.Error("the failed migration's write landed")
	}
	fail = false
	from, err := upgrade(ctx, s, zap.New(core), 3, ms)
	if err != nil || from != 2 {
		t.Fatalf("second start: %d, %v", from, err)
	}
	if got := schemaOf(t, s); got != "3" {
		t.Errorf("store at %s; want 3", got)
	}
	if v, err := s.Get(context.Background(), Key("machine", "1")); err != nil || string(v) != "v1" {
		t.Errorf("machine/1 = %q, %v", v, err)
	}
	if _, err := s.Get(context.Background(), Key(KindVM, "1")); !errors.Is(err, ErrNotFound) {
		t.Error("vm/1 still there")
	}
	if want := []int{1, 2, 2}; len(ran) != 3 || ran[0] != 1 || ran[2] != 2 {
		t.Errorf("migrations ran %v; want %v", ran, want)
	}
	if n := logs.FilterMessage("persistence: migrating the store").Len(); n != 3 {
		t.Errorf("%d migration log lines; want 3", n)
	}
	// A gap in the chain is an error, not a silent skip.
	if _, err := upgrade(ctx, openStoreWithRecord(t), nil, 3, ms[1:]); err == nil {
		t.Error("a chain without the migration from 1 ran")
	}
}

func openStoreWithRecord(t *testing.T) *Badger {
	s := openStore(t, Options{})
	mustCommit(t, s, new(Batch).Put(Key(KindVM, "1"), []byte("v1")))
	return s
}
