package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"go.uber.org/zap"
)

func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name        string
		live, floor uint64
		base, want  int
	}{
		{"a server's live heap under the floor", 32 * mib, 160 * mib, 100, 400},
		{"no collection yet: nothing known", 0, 160 * mib, 100, 100},
		{"the live heap at the floor", 160 * mib, 160 * mib, 100, 100},
		{"a million machines' heap, far above it", 1200 * mib, 160 * mib, 100, 100},
		{"just over half the floor", 81 * mib, 160 * mib, 100, 100},
		{"a few megabytes at start: bounded", 2 * mib, 160 * mib, 100, heapFloorMaxPercent},
		{"never below the base", 150 * mib, 160 * mib, 100, 100},
	} {
		pct := gcPercentFor(c.live, c.floor, c.base)
		if pct != c.want {
			t.Errorf("%s: gcPercentFor(%d MiB, %d MiB, %d) = %d; want %d", c.name, c.live/mib, c.floor/mib, c.base, pct, c.want)
		}
		// The goal it gives reaches the floor whenever the bound allows.
		if c.live > 0 && pct < heapFloorMaxPercent &&
			c.live*uint64(100+pct)/100 < c.floor-c.live/100 {
			t.Errorf("%s: goal %d MiB under the floor %d MiB", c.name, c.live*uint64(100+pct)/100/mib, c.floor/mib)
		}
	}
}

func TestHeapFloorFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name     string
		floor    uint64
		gogc     string
		memLimit int64
		want     uint64
	}{
		{"no soft limit", 160 * mib, "", math.MaxInt64, 160 * mib},
		{"off", 0, "", math.MaxInt64, 0},
		{"GOGC set: the operator's pace", 160 * mib, "200", math.MaxInt64, 0},
		{"GOGC=off", 160 * mib, "off", math.MaxInt64, 0},
		{"the small appliance's GOMEMLIMIT=40MiB: half of it", 160 * mib, "", 40 * mib, 20 * mib},
		{"a cgroup's 1.5 GB share: the floor", 160 * mib, "", 1536 * mib, 160 * mib},
	} {
		if got := heapFloorFor(c.floor, c.gogc, c.memLimit); got != c.want {
			t.Errorf("%s: heapFloorFor = %d MiB; want %d MiB", c.name, got/mib, c.want/mib)
		}
	}
}

// keepHeapFloor sets the runtime's GC percent from the live heap it reads.
func TestKeepHeapFloorRaisesThePercentOfASmallHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(before)
	defer debug.SetGCPercent(100)
	runtime.GC() // the live heap is known after a collection
	stop := keepHeapFloor(4096, zap.NewNop())
	stop()
	// The test binary keeps a few megabytes live, far under 4 GiB.
	if pct := debug.SetGCPercent(100); pct != heapFloorMaxPercent {
		t.Fatalf("GC percent %d with a small heap under a 4 GiB floor; want %d", pct, heapFloorMaxPercent)
	}
	// Off: the percent is left alone.
	debug.SetGCPercent(100)
	keepHeapFloor(0, zap.NewNop())()
	if pct := debug.SetGCPercent(100); pct != 100 {
		t.Fatalf("GC percent %d with no floor; want 100 untouched", pct)
	}
}
