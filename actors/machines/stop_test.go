package machines

import (
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
)

// Work a task asks for once Stop has begun is not started: the task stays open for the
// next start to settle. Started, its goroutine would have been added to the wait group
// after Stop's wait and outlived the machines it works for (seen once as a goroutine
// leak in the schedules' tests).
func TestWorkAfterStopDoesNotStart(t *testing.T) {
	t.Parallel()
	s := newTestSystem(t)
	s.Machines.Stop()
	s.Machines.run("m1", "t1", hypervisor.Ref{VMID: 100, Node: "pve1"}, Operation{Type: OpDestroy})
	if _, ok := s.Machines.running.Load("t1"); ok {
		t.Fatal("a task's work was registered after Stop: its goroutine may outlive the machines")
	}
}
