package hypervisor

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

// TestSnapshotNames: the names Proxmox's pve-snapshot-name takes, and those it keeps.
func TestSnapshotNames(t *testing.T) {
	f := func(name string, want bool) {
		t.Helper()
		if got := ValidSnapshotName(name); got != want {
			t.Errorf("ValidSnapshotName(%q) = %v; want %v", name, got, want)
		}
		err := CheckSnapshot(SnapshotSpec{Name: name})
		if want != (err == nil) {
			t.Errorf("CheckSnapshot(%q): got %v; want valid %v", name, err, want)
		}
		if !want && !errors.Is(err, apierr.ErrInvalidRequest) {
			t.Errorf("CheckSnapshot(%q): got %v; want invalid_request", name, err)
		}
		if err := CheckSnapshotName(100, name); want != (err == nil) || (!want && !errors.Is(err, ErrSnapshotNotFound)) {
			t.Errorf("CheckSnapshotName(%q): got %v; want valid %v, else snapshot_not_found", name, err, want)
		}
	}
	f("before-upgrade", true)
	f("Snap_1", true)
	f("ab", true)
	f(strings.Repeat("a", 40), true)
	f(strings.Repeat("a", 41), false)
	f("a", false)
	f("", false)
	f("1st", false)
	f("_x", false)
	f("with space", false)
	f("dot.ted", false)
	f("current", false)
	f("pending", false)
	f("Pending", false)
	f("Current", true) // Proxmox reserves "current" as written only
	if err := CheckSnapshot(SnapshotSpec{Name: "ok", Description: strings.Repeat("d", MaxSnapshotDescriptionLen+1)}); !errors.Is(err, apierr.ErrInvalidRequest) {
		t.Errorf("a description past the bound: got %v; want invalid_request", err)
	}
}

// TestSortSnapshots: oldest first; within one second a snapshot after its ancestors.
func TestSortSnapshots(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	list := []Snapshot{
		{Name: "c", CreatedAt: t0, Parent: "b"},
		{Name: "late", CreatedAt: t0.Add(time.Second), Parent: "c"},
		{Name: "a", CreatedAt: t0},
		{Name: "b", CreatedAt: t0, Parent: "a"},
		{Name: "z", CreatedAt: t0.Add(-time.Hour)},
	}
	SortSnapshots(list)
	var got []string
	for _, s := range list {
		got = append(got, s.Name)
	}
	if want := "z a b c late"; strings.Join(got, " ") != want {
		t.Errorf("got %v; want %s", got, want)
	}
}
