package machines

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// Ten snapshots, then ten backups on demand, asked for at once on ten machines of a
// tenant whose quota allows three of each: exactly three of each are accepted (the
// tasks in flight count, and each start claims the count it made), the others are
// 409 quota_exceeded.
func TestConcurrentStartsHoldTheBackupAndSnapshotQuotas(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	lim := Limits{Backups: 3, Snapshots: 3}
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 10})
		o.Limits = func(context.Context, string) (Limits, error) { return lim, nil }
	})
	if _, err := s.adopt(ctx); err != nil {
		t.Fatal(err)
	}
	ms, _, err := s.Machines.List(ctx, "", 0, nil)
	if err != nil || len(ms) != 10 {
		t.Fatalf("got %d machines, %v; want 10", len(ms), err)
	}
	for _, m := range ms {
		if _, err := s.Machines.Assign(ctx, m.ID, kit.Ptr("T1")); err != nil {
			t.Fatal(err)
		}
	}
	for _, kind := range []string{"snapshot", "backup"} {
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			accepted []tasks.Task
			refused  int
		)
		for _, m := range ms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var task tasks.Task
				var err error
				if kind == "snapshot" {
					task, err = s.Machines.CreateSnapshot(ctx, m.ID, kit.Ptr("T1"), SnapshotRequest{Name: "s1"})
				} else {
					task, err = s.Machines.BackupNow(ctx, m.ID, kit.Ptr("T1"), BackupRequest{})
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					accepted = append(accepted, task)
				case errors.Is(err, apierr.ErrQuotaExceeded):
					refused++
				default:
					t.Errorf("%s: %v", kind, err)
				}
			}()
		}
		wg.Wait()
		if len(accepted) != 3 || refused != 7 {
			t.Fatalf("%s: accepted %d, refused %d; want 3 and 7", kind, len(accepted), refused)
		}
		for _, task := range accepted {
			if got, err := s.Tasks.Wait(ctx, task.ID); err != nil || got.Status != tasks.TaskSucceeded {
				t.Fatalf("%s: got %+v, %v", kind, got, err)
			}
		}
	}
	if n, err := s.Machines.TenantSnapshots(ctx, "T1"); err != nil || n != 3 {
		t.Fatalf("snapshots held: %d, %v; want 3", n, err)
	}
	if n, err := s.Backups.Count(ctx, "T1", 0); err != nil || n != 3 {
		t.Fatalf("backups held: %d, %v; want 3", n, err)
	}
}
