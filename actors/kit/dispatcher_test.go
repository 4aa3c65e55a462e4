package kit

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/persistence"
)

func TestWorkersReuseIdleWorkers(t *testing.T) {
	d := newWorkers(10, 4)
	defer d.close()
	ran := make(chan struct{})
	d.Schedule(func() { ran <- struct{}{} })
	<-ran
	kittest.WaitFor(t, "the worker to become idle", func() bool { return d.idleCount() == 1 })
	// The next run takes the idle worker instead of starting another.
	d.Schedule(func() { ran <- struct{}{} })
	<-ran
	kittest.WaitFor(t, "the worker to become idle again", func() bool { return d.idleCount() == 1 })
	if got := d.Throughput(); got != 10 {
		t.Fatalf("Throughput() = %d; want 10", got)
	}
}

func TestWorkersNeverWaitForABlockedRun(t *testing.T) {
	d := newWorkers(10, 2)
	defer d.close()
	release := make(chan struct{})
	var started sync.WaitGroup
	const runs = 6
	started.Add(runs)
	// Every run blocks until released: each needs a worker of its own, idle or not.
	for range runs {
		d.Schedule(func() {
			started.Done()
			<-release
		})
	}
	done := make(chan struct{})
	go func() { started.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked runs kept others from starting")
	}
	close(release)
	// Only maxIdle of the six workers stay: the others end, the two left wait idle.
	kittest.WaitFor(t, "the workers beyond two to end", func() bool { return d.running.Load() == 2 })
	kittest.WaitFor(t, "the two left to be idle", func() bool { return d.idleCount() == 2 })
}

func TestWorkersClose(t *testing.T) {
	d := newWorkers(10, 4)
	ran := make(chan struct{}, 2)
	d.Schedule(func() { ran <- struct{}{} })
	<-ran
	kittest.WaitFor(t, "an idle worker", func() bool { return d.idleCount() == 1 })
	d.close()
	if n := d.idleCount(); n != 0 {
		t.Fatalf("%d idle workers after close; want 0", n)
	}
	// A run scheduled after close still runs, and its worker does not stay.
	d.Schedule(func() { ran <- struct{}{} })
	<-ran
	kittest.WaitFor(t, "the worker of a run past close to end", func() bool { return d.running.Load() == 0 })
	if n := d.idleCount(); n != 0 {
		t.Fatalf("%d idle workers after a run past close; want 0", n)
	}
}

// Runtime.Shutdown ends every worker, the idle ones included.
func TestShutdownEndsWorkers(t *testing.T) {
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rt := New(store, nil, EntityOptions{})
	k := rt.StartKind("counters", time.Hour, func(id string) Entity { return &counter{rt: rt, id: id} }, nil)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := Ask[state](ctx, k, strconv.Itoa(i), &incr{}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if rt.workers.idleCount() == 0 || rt.workers.running.Load() == 0 {
		t.Fatalf("%d idle of %d workers before Shutdown; want some", rt.workers.idleCount(), rt.workers.running.Load())
	}
	rt.Shutdown()
	kittest.WaitFor(t, "every worker to end", func() bool { return rt.workers.running.Load() == 0 })
}

// idleCount is the number of idle workers (tests).
func (d *workers) idleCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.idle)
}
