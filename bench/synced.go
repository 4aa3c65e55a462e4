package bench

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// SyncedWritesScenario is the Scenario of the report RunSyncedWrites returns.
const SyncedWritesScenario = "synced-writes"

// SyncedValueSize is the size of each value the synced-writes baseline stores: issue
// 33's naive way of storing a write, one 256-byte value per transaction.
const SyncedValueSize = 256

// RunSyncedWrites is the write scenario's baseline: the naive way of storing durable
// writes, with no HTTP, no server and no batching. writers goroutines each commit one
// Badger transaction with SyncWrites per write (one new key, a SyncedValueSize-byte
// value), as fast as the syncs return, for warmup and then duration. The store is
// made in a fresh directory under dir (the system's temporary directory when empty:
// give the server's disk, since the ratio is of syncs) and removed afterwards.
// Throughput is writes per second, latency that of each synced transaction.
func RunSyncedWrites(ctx context.Context, dir string, writers int, warmup, duration time.Duration) (Report, error) {
	if writers < 1 {
		return Report{}, fmt.Errorf("synced writes: %d writers; want at least 1", writers)
	}
	path, err := os.MkdirTemp(dir, "vmplane-bench-synced-")
	if err != nil {
		return Report{}, fmt.Errorf("synced writes: %w", err)
	}
	defer os.RemoveAll(path) //nolint:errcheck // a temporary store; nothing to report
	db, err := badger.Open(badger.DefaultOptions(path).WithSyncWrites(true).WithLogger(nil))
	if err != nil {
		return Report{}, fmt.Errorf("synced writes: %w", err)
	}
	defer db.Close() //nolint:errcheck // the figures are taken; the store is thrown away

	value := make([]byte, SyncedValueSize)
	_, _ = rand.Read(value)
	start := time.Now()
	measureFrom := start.Add(warmup)
	end := measureFrom.Add(duration)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		hist     = newHist()
		requests atomic.Int64
		errCount atomic.Int64
		firstErr atomic.Value
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := newHist()
			key := make([]byte, 16)
			binary.BigEndian.PutUint64(key, uint64(w))
			for n := uint64(0); ctx.Err() == nil; n++ {
				t0 := time.Now()
				if !t0.Before(end) {
					break
				}
				binary.BigEndian.PutUint64(key[8:], n)
				err := db.Update(func(txn *badger.Txn) error { return txn.Set(key, value) })
				if t0.Before(measureFrom) {
					continue
				}
				if err != nil {
					errCount.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				requests.Add(1)
				_ = own.RecordValue(time.Since(t0).Microseconds())
			}
			mu.Lock()
			hist.Merge(own)
			mu.Unlock()
		}()
	}
	wg.Wait()
	stop := time.Now()
	if stop.After(end) {
		stop = end
	}
	window := stop.Sub(measureFrom).Seconds()
	rep := Report{
		Target: "badger:" + path, Scenario: SyncedWritesScenario, Model: ModelClosed, Connections: writers,
		WarmupS: warmup.Seconds(), DurationS: duration.Seconds(), StartedAt: start.UTC(),
		ElapsedS: round3(max(window, 0)), Interrupted: ctx.Err() != nil,
		Requests: requests.Load(), Errors: errCount.Load(),
		Latency:  summarize(hist),
		Outcomes: map[string]int64{"synced": requests.Load()},
	}
	if window > 0 {
		rep.Throughput = float64(rep.Requests) / window
	}
	if e, ok := firstErr.Load().(error); ok {
		rep.Hints = append(rep.Hints, "first error: "+e.Error())
	}
	return rep, nil
}
