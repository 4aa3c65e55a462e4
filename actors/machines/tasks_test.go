package machines

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// A task's waiters are told its end by the machine that records it: one waiter that
// came before the end, one after (answered from the store), and one whose context ends
// first (answered with the context's error, and forgotten).
func TestTasksWaitIsToldTheEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, m := syncedMachine(t, ctx, 1)
	task, err := s.Machines.Start(ctx, m.ID, powerOp(m.Status), nil)
	if err != nil {
		t.Fatal(err)
	}
	before := make(chan *tasks.Task, 1)
	go func() {
		ended, err := s.Tasks.Wait(ctx, task.ID)
		if err != nil {
			t.Error(err)
		}
		before <- ended
	}()
	ended := <-before
	if ended == nil || !ended.Finished() || ended.ID != task.ID {
		t.Fatalf("got %+v; want the ended task %s", ended, task.ID)
	}
	after, err := s.Tasks.Wait(ctx, task.ID)
	if err != nil || after.Status != ended.Status {
		t.Fatalf("waiting for an ended task: got %+v, %v; want it at once", after, err)
	}
	short, stop := context.WithTimeout(ctx, 20*time.Millisecond)
	defer stop()
	if _, err := s.Tasks.Wait(short, "no-such-task"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v; want the context's deadline", err)
	}
	left := s.Tasks.Waiting("")
	if left != 0 {
		t.Fatalf("%d tasks still have waiters; want none", left)
	}
}

// A waiter is also woken by a task's end written by someone else than a local machine
// entity (in a cluster: the machine's owner on another member, whose end reaches this
// member only through the store's watch). The end here is written straight to the
// store, so ended never tells the waiter: only the watch can.
func TestTasksWaitFollowsTheStore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t)
	task := &tasks.Task{ID: "written-elsewhere", Type: "vm.power", TargetType: "vm", TargetID: "m1", Status: tasks.TaskRunning, CreatedAt: time.Now().UTC()}
	write := func() {
		b := new(persistence.Batch)
		if err := tasks.Put(b, task); err != nil {
			t.Fatal(err)
		}
		if err := s.store.Commit(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	write()
	got := make(chan *tasks.Task, 1)
	go func() {
		ended, err := s.Tasks.Wait(ctx, task.ID)
		if err != nil {
			t.Error(err)
		}
		got <- ended
	}()
	testwait.Eventually(t, "the waiter registered", func() bool {
		return s.Tasks.Waiting(task.ID) == 1
	})
	// A write that does not end the task wakes the waiter, which waits on.
	task.StartedAt = kit.Ptr(time.Now().UTC())
	write()
	testwait.Never(t, 50*time.Millisecond, "a running task's write ended the wait", func() bool { return len(got) > 0 })
	task.Status, task.FinishedAt = tasks.TaskSucceeded, kit.Ptr(time.Now().UTC())
	write()
	select {
	case ended := <-got:
		if ended == nil || ended.Status != tasks.TaskSucceeded {
			t.Fatalf("got %+v; want the succeeded task", ended)
		}
	case <-ctx.Done():
		t.Fatal("the waiter was not woken by the task's end written to the store")
	}
}
