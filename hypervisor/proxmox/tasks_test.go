package proxmox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
	"github.com/vmplane/vmplane/internal/testwait"
)

// orphan starts work through the driver while the fake holds every task, and gives
// it up once Proxmox has taken the request, as a process that dies mid-task does:
// the task is left running on Proxmox, with nobody following its UPID.
func orphan(t *testing.T, f *pvefake.Server, route string, work func(ctx context.Context) error) {
	t.Helper()
	before := f.Count("POST", route)
	ctx, cancel := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() { done <- work(ctx) }()
	testwait.Eventually(t, "Proxmox to take the request", func() bool { return f.Count("POST", route) > before })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v; want the abandoned work cancelled", err)
	}
}

// waitIdle runs WaitIdle on its own goroutine; the channel gets its result.
func waitIdle(d *Driver, ref hypervisor.Ref) <-chan error {
	out := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(bg, time.Minute) // a hang fails, not a timed assert
		defer cancel()
		out <- d.WaitIdle(ctx, ref)
	}()
	return out
}

// stillWaiting checks that WaitIdle keeps waiting while the fake answers it the task
// is running: it has listed the active tasks a few times more and not returned.
func stillWaiting(t *testing.T, f *pvefake.Server, idle <-chan error) {
	t.Helper()
	seen := f.Count("GET", "/nodes/{node}/tasks")
	testwait.Eventually(t, "WaitIdle to list the active tasks again", func() bool {
		select {
		case err := <-idle:
			t.Fatalf("WaitIdle returned %v while a task ran on the machine; want it waiting", err)
		default:
		}
		return f.Count("GET", "/nodes/{node}/tasks") >= seen+3
	})
}

// TestWaitIdle: with nothing running on the machine (or only a console session)
// WaitIdle returns at once; with a task in flight that its starter gave up, it returns
// once the task has ended on Proxmox, whether the task is on the node the caller names
// (a migration, which runs on its source node) or on the node the machine is on when
// the caller's hint is stale.
func TestWaitIdle(t *testing.T) {
	d, f := newTest(t, pvefake.Config{})
	id := addVM(t, f, pvefake.VMSpec{Node: "pve1", Status: "running"})
	ref := hypervisor.Ref{VMID: id, Node: "pve1"}

	if err := <-waitIdle(d, ref); err != nil {
		t.Fatalf("idle machine: got %v; want nil at once", err)
	}
	con, err := d.Console(bg, ref)
	if err != nil {
		t.Fatal(err)
	}
	defer con.Close()
	if err := <-waitIdle(d, ref); err != nil {
		t.Fatalf("machine with an open console: got %v; want nil at once", err)
	}
	if err := <-waitIdle(d, hypervisor.Ref{}); err != nil {
		t.Fatalf("no vmid: got %v; want nil at once", err)
	}

	t.Run("migration on the source node", func(t *testing.T) {
		release := f.HoldTasks()
		defer release()
		orphan(t, f, "/nodes/{node}/qemu/{vmid}/migrate", func(ctx context.Context) error {
			_, err := d.Migrate(ctx, ref, "pve2", true)
			return err
		})
		idle := waitIdle(d, ref)
		stillWaiting(t, f, idle)
		release()
		if err := <-idle; err != nil {
			t.Fatalf("got %v; want nil once the migration ended", err)
		}
		if m := machineOf(t, d, id); m.Node != "pve2" {
			t.Fatalf("got node %s; want pve2: WaitIdle returned before the migration ended", m.Node)
		}
	})

	t.Run("power action with a stale node", func(t *testing.T) {
		release := f.HoldTasks()
		defer release()
		orphan(t, f, "/nodes/{node}/qemu/{vmid}/status/{action}", func(ctx context.Context) error {
			return d.Power(ctx, hypervisor.Ref{VMID: id, Node: "pve2"}, hypervisor.ActionStop)
		})
		// The record still names pve1, where the machine was before the migration.
		idle := waitIdle(d, ref)
		stillWaiting(t, f, idle)
		release()
		if err := <-idle; err != nil {
			t.Fatalf("got %v; want nil once the stop ended", err)
		}
		if got := fakeStatus(t, f, id); got != "stopped" {
			t.Fatalf("got %s; want stopped: WaitIdle returned before the stop ended", got)
		}
	})

	t.Run("context ends first", func(t *testing.T) {
		release := f.HoldTasks()
		defer release()
		orphan(t, f, "/nodes/{node}/qemu/{vmid}/status/{action}", func(ctx context.Context) error {
			return d.Power(ctx, ref, hypervisor.ActionStart)
		})
		ctx, cancel := context.WithCancel(bg)
		idle := make(chan error, 1)
		go func() { idle <- d.WaitIdle(ctx, ref) }()
		stillWaiting(t, f, idle)
		cancel()
		if err := <-idle; !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v; want the cancellation", err)
		}
	})
}
