package machines

import (
	"context"
	"errors"
	"testing"
	"time"
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
	before := make(chan *Task, 1)
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
	s.Tasks.mu.Lock()
	left := len(s.Tasks.waiting)
	s.Tasks.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d tasks still have waiters; want none", left)
	}
}
