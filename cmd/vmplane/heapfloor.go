package main

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"go.uber.org/zap"
)

// The collector's pace under load. With GOGC's default of 100 the collector runs each
// time the heap doubles its live part: a server keeps about 30 MB live, so at 10,000
// requests a second it collected twice a second, and each cycle (a stop of the world
// of up to 2.6 ms on two shared cores, then 3-9 ms of marking that takes a quarter of
// the CPU) delayed the requests in flight: the read mix's p99 at half the maximum rate
// was over 5 ms in 4 of 10 runs (BENCHMARKS.md, issue 33). A heap floor lets a small
// heap grow to the floor before the collector runs; a large one (a million machines
// keep over a gigabyte live) is paced by GOGC as before.

// heapFloorMaxPercent bounds the GC percent the floor sets: a heap of a few megabytes
// (at start) would otherwise ask for a percent in the thousands.
const heapFloorMaxPercent = 1000

// heapFloorPeriod is how often the live heap is read and the percent set again.
const heapFloorPeriod = time.Second

// gcPercentFor is the GC percent that lets a heap of live bytes grow to floor before
// the next collection, and never below base (GOGC's): the collector's goal is
// live × (1 + percent/100).
func gcPercentFor(live, floor uint64, base int) int {
	if live == 0 || live >= floor {
		return base
	}
	return max(base, int(min((floor-live)*100/live, heapFloorMaxPercent)))
}

// heapFloorFor is the floor to keep given the wanted one, GOGC from the environment
// and the runtime's soft memory limit: none when GOGC is set (the operator chose the
// pace) or floor is 0, and at most half the soft limit (GOMEMLIMIT, or the cgroup's
// share: applySoftMemoryLimit), so that the limit, not the floor, paces a process
// given little memory.
func heapFloorFor(floor uint64, gogc string, memLimit int64) uint64 {
	if floor == 0 || gogc != "" {
		return 0
	}
	if memLimit > 0 && memLimit < math.MaxInt64 && uint64(memLimit)/2 < floor {
		return uint64(memLimit) / 2
	}
	return floor
}

// keepHeapFloor sets the GC percent from the live heap every heapFloorPeriod until
// stop is called; it does nothing when heapFloorFor gives no floor.
func keepHeapFloor(floorMB int, log *zap.Logger) (stop func()) {
	floor := heapFloorFor(uint64(max(floorMB, 0))<<20, os.Getenv("GOGC"), debug.SetMemoryLimit(-1))
	if floor == 0 {
		return func() {}
	}
	log.Debug("heap floor kept", zap.Uint64("bytes", floor))
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		const base = 100
		cur := base
		tick := time.NewTicker(heapFloorPeriod)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if pct := gcPercentFor(sample[0].Value.Uint64(), floor, base); pct != cur {
				debug.SetGCPercent(pct)
				cur = pct
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}
