package persistence

import (
	"context"
	"errors"
	"testing"
)

// TestWithin: two views of one store under two prefixes hold the same keys apart;
// a scan, a condition and a watch see the view's own keys, named without the prefix.
func TestWithin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, b := Within(s, Prefix("view", "a")), Within(s, Prefix("view", "b"))
	var watched []string
	a.Watch(Prefix("sim"), func(k []byte) { watched = append(watched, string(k)) })
	if err := a.Commit(ctx, new(Batch).Put(Key("sim", "world"), []byte("A")).Require(IfAbsent(Key("sim", "world")))); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(ctx, new(Batch).Put(Key("sim", "world"), []byte("B")).Require(IfAbsent(Key("sim", "world")))); err != nil {
		t.Fatalf("b's first write, a's key of the same name present: %v", err)
	}
	if err := a.Commit(ctx, new(Batch).Put(Key("sim", "world"), []byte("A2")).Require(IfAbsent(Key("sim", "world")))); !IsConditionFailed(err) {
		t.Fatalf("a's second create: %v; want the condition to fail", err)
	}
	if v, err := a.Get(ctx, Key("sim", "world")); err != nil || string(v) != "A" {
		t.Fatalf("a's world: %q, %v; want A", v, err)
	}
	if _, err := a.Get(ctx, Key("view", "b", "sim", "world")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a reading b's key by its full name: %v; want not found", err)
	}
	var keys []string
	if err := b.Scan(ctx, Prefix("sim"), nil, 0, func(k, v []byte) error {
		keys = append(keys, string(k)+"="+string(v))
		return nil
	}); err != nil || len(keys) != 1 || keys[0] != "sim/world=B" {
		t.Fatalf("b's scan: %v, %v; want sim/world=B", keys, err)
	}
	if len(watched) != 1 || watched[0] != "sim/world" {
		t.Fatalf("a's watch saw %v; want its one write, as sim/world", watched)
	}
	if v, err := s.Get(ctx, Key("view", "a", "sim", "world")); err != nil || string(v) != "A" {
		t.Fatalf("the store's view/a/sim/world: %q, %v; want A", v, err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, Key("view", "a", "sim", "world")); err != nil {
		t.Fatalf("the store after a view's Close: %v; want it open", err)
	}
}
