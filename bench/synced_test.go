package bench

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSyncedWritesBaseline runs the write scenario's baseline for a moment: every
// write it counts was synced without an error, its store is removed afterwards, and
// the report prints as the naive baseline with the ratio.
func TestSyncedWritesBaseline(t *testing.T) {
	dir := t.TempDir()
	rep, err := RunSyncedWrites(context.Background(), dir, 4, 0, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scenario != SyncedWritesScenario || rep.Connections != 4 {
		t.Fatalf("scenario %q, connections %d", rep.Scenario, rep.Connections)
	}
	if rep.Requests == 0 || rep.Errors != 0 || rep.Throughput <= 0 || rep.Outcomes["synced"] != rep.Requests {
		t.Fatalf("requests %d errors %d throughput %f outcomes %v hints %v", rep.Requests, rep.Errors, rep.Throughput, rep.Outcomes, rep.Hints)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("the baseline left %d entries in its directory", len(left))
	}
	run := Report{Scenario: "write", Connections: 4, Requests: 3 * rep.Requests, Throughput: 3 * rep.Throughput,
		Baseline: &rep, BaselineRatio: 3}
	var out bytes.Buffer
	if err := run.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "each write one Badger transaction with SyncWrites") ||
		!strings.Contains(out.String(), "durable writes against the baseline: 3.00x") {
		t.Fatalf("report:\n%s", out.String())
	}
}

// TestSyncedWritesNeedsAWriter refuses a baseline without writers.
func TestSyncedWritesNeedsAWriter(t *testing.T) {
	if _, err := RunSyncedWrites(context.Background(), t.TempDir(), 0, 0, time.Millisecond); err == nil {
		t.Fatal("no error for 0 writers")
	}
}
