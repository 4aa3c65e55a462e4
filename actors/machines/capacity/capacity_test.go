package capacity

import (
	"testing"

	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/actors/kit/wiretest"
	"github.com/vmplane/vmplane/hypervisor"
)

// TestMain fails the tests if they leave a goroutine running.
func TestMain(m *testing.M) { kittest.Main(m) }

// TestWire checks that the nodes' messages and answers are registered with kit.Wire
// and cross members whole.
func TestWire(t *testing.T) { wiretest.Check(t) }

// TestRoom is the capacity arithmetic: each node's total times its ratio, less what
// is given out, never below 0; the fits are the least of the three divisions; an
// offline node fits none.
func TestRoom(t *testing.T) {
	online := Node{ID: "n1", Status: string(hypervisor.NodeOnline), CPUCores: 8, MemoryMB: 16384, DiskGB: 60, StorageGB: 500}
	unknown := online
	unknown.StorageGB = 0
	offline := online
	offline.Status = string(hypervisor.NodeOffline)
	need := Size{CPUCores: 2, MemoryMB: 2048, DiskGB: 40}
	for _, tc := range []struct {
		name string
		node Node
		used Size
		need Size
		o    Overcommit
		want NodeRoom
	}{
		{"empty node, defaults: memory bounds it", online, Size{}, need, Overcommit{},
			NodeRoom{Node: "n1", Name: "n1", Online: true, Fits: 8, FreeCPUCores: 32, FreeMemoryMB: 16384, FreeDiskGB: 500}},
		{"cores bound it without overcommit", online, Size{}, need, Overcommit{CPU: 1, Memory: 1, Disk: 1},
			NodeRoom{Node: "n1", Name: "n1", Online: true, Fits: 4, FreeCPUCores: 8, FreeMemoryMB: 16384, FreeDiskGB: 500}},
		{"what machines are given is taken", online, Size{CPUCores: 10, MemoryMB: 12288, DiskGB: 100}, need, Overcommit{},
			NodeRoom{Node: "n1", Name: "n1", Online: true, Fits: 2, FreeCPUCores: 22, FreeMemoryMB: 4096, FreeDiskGB: 400}},
		{"disk bounds it", online, Size{DiskGB: 450}, need, Overcommit{},
			NodeRoom{Node: "n1", Name: "n1", Online: true, Fits: 1, FreeCPUCores: 32, FreeMemoryMB: 16384, FreeDiskGB: 50}},
		{"over-allocated: free is 0, not negative", online, Size{MemoryMB: 20000}, need, Overcommit{},
			NodeRoom{Node: "n1", Name: "n1", Online: true, Fits: 0, FreeCPUCores: 32, FreeMemoryMB: 0, FreeDiskGB: 500}},
		{"fractional ratios round down", online, Size{}, need, Overcommit{CPU: 1.5, Memory: 1.25, Disk: 2},
			NodeRoom{Node: "n1", Name: "n1", Online: true, Fits: 6, FreeCPUCores: 12, FreeMemoryMB: 20480, FreeDiskGB: 1000}},
		{"storage unknown: the disk is no bound (not the node's own disk)", unknown, Size{DiskGB: 450}, need, Overcommit{},
			NodeRoom{Node: "n1", Name: "n1", Online: true, Fits: 8, FreeCPUCores: 32, FreeMemoryMB: 16384, FreeDiskGB: Unbounded}},
		{"offline fits none", offline, Size{}, need, Overcommit{},
			NodeRoom{Node: "n1", Name: "n1", Online: false, Fits: 0, FreeCPUCores: 32, FreeMemoryMB: 16384, FreeDiskGB: 500}},
	} {
		if got := Room(tc.node, tc.used, tc.need, tc.o); got != tc.want {
			t.Errorf("%s: got %+v; want %+v", tc.name, got, tc.want)
		}
	}
}
