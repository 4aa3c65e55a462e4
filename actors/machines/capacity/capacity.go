// Package capacity keeps the hypervisor nodes (their records, as the sync saw them)
// and the capacity arithmetic: the room a node has for machines of one size (Room),
// by the operator's overcommit ratios, and the choice of a node for a create that
// names none (Nodes.Place). What vmplane's machines allocate on each node is summed
// here too (Allocations), from the machine records the machines package owns and
// hands in: this package reads no key of theirs by name.
package capacity

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// Overcommit are the ratios by which the machines on a node may allocate more than the
// node has: 4 lets the machines of an 8-core node have 32 cores together. Each is at
// least 1.
type Overcommit struct {
	CPU    float64 `json:"cpu"`
	Memory float64 `json:"memory"`
	Disk   float64 `json:"disk"`
}

// DefaultOvercommit is what an operator who sets no ratio gets: cores shared four
// times over, memory and disk not at all.
var DefaultOvercommit = Overcommit{CPU: 4, Memory: 1, Disk: 1}

// OrDefault is o with each ratio below 1 (unset) replaced by the default's.
func (o Overcommit) OrDefault() Overcommit {
	pick := func(v, d float64) float64 {
		if v < 1 {
			return d
		}
		return v
	}
	return Overcommit{CPU: pick(o.CPU, DefaultOvercommit.CPU), Memory: pick(o.Memory, DefaultOvercommit.Memory),
		Disk: pick(o.Disk, DefaultOvercommit.Disk)}
}

// Size is what a machine allocates on its node, and what the machines on a node
// allocate together.
type Size struct {
	CPUCores int `json:"cpu_cores"`
	MemoryMB int `json:"memory_mb"`
	DiskGB   int `json:"disk_gb"`
}

// NodeRoom is how much room a node has for more machines of one size: the free cores,
// memory and disk (the node's, times the overcommit ratio, less what vmplane's
// machines on it allocate; never below 0; the disk -1, unbounded, when the hypervisor
// does not tell the node's storage) and how many more machines of the size fit.
type NodeRoom struct {
	// Node is the node's id (NodeID), Name its name in its location, which the
	// hypervisor knows it by.
	Node         string   `json:"node"`
	Name         string   `json:"name"`
	Location     hvloc.ID `json:"location_id"`
	Online       bool     `json:"online"`
	Fits         int      `json:"fits"`
	FreeCPUCores int      `json:"free_cpu_cores"`
	FreeMemoryMB int      `json:"free_memory_mb"`
	FreeDiskGB   int      `json:"free_disk_gb"`
}

// Unbounded is a NodeRoom's free disk when the node's storage is not known.
const Unbounded = -1

// Room is the capacity arithmetic, the one place that says whether a machine fits on
// a node: the room of node n, whose machines allocate used, for machines of size need,
// with the ratios o. An offline node fits none. Both a plan's capacity and the
// placement of a create without a node read it.
func Room(n Node, used Size, need Size, o Overcommit) NodeRoom {
	o = o.OrDefault()
	free := func(total int, ratio float64, alloc int) int {
		return max(int(math.Floor(float64(total)*ratio))-alloc, 0)
	}
	r := NodeRoom{Node: n.ID, Name: n.HypervisorName(), Location: n.Location, Online: n.Status == string(hypervisor.NodeOnline),
		FreeCPUCores: free(n.CPUCores, o.CPU, used.CPUCores),
		FreeMemoryMB: free(n.MemoryMB, o.Memory, used.MemoryMB),
		FreeDiskGB:   Unbounded}
	bounds := [][2]int{{r.FreeCPUCores, need.CPUCores}, {r.FreeMemoryMB, need.MemoryMB}}
	// The disks go to the node's storages for images, not to its own disk (on
	// Proxmox, the root filesystem): without them the disk is no bound.
	if n.StorageGB > 0 {
		r.FreeDiskGB = free(n.StorageGB, o.Disk, used.DiskGB)
		bounds = append(bounds, [2]int{r.FreeDiskGB, need.DiskGB})
	}
	if !r.Online {
		return r
	}
	r.Fits = math.MaxInt
	for _, d := range bounds {
		if d[1] > 0 {
			r.Fits = min(r.Fits, d[0]/d[1])
		}
	}
	if r.Fits == math.MaxInt { // a size of nothing: no bound to state
		r.Fits = 0
	}
	return r
}

// Allocations keep what vmplane's machines allocate on each node, by node id (NodeID
// of the machine's location and node name, as the node records are keyed): the
// sizes of their records (what they were given, not what they use); a machine whose
// node is not yet known (a create the driver places) counts nowhere. They are read on
// every create that names no node, so they are kept rather than summed each time:
// built by one scan of the machine records on first use, then told by the store's
// watch of every machine record written, which the next read reads again. A store
// shared with other members (etcd) names their writes a moment late and may miss a
// delete across a compaction, so there the sums are built again from a scan when older
// than allocRebuild: placement is a choice, never a reservation, and a plan's capacity
// an estimate of the moment.
type Allocations struct {
	store  persistence.Store
	prefix []byte
	key    func(id string) []byte
	read   Placement

	dirtyMu sync.Mutex
	dirty   map[string]struct{}

	mu        sync.Mutex
	builtAt   time.Time
	byMachine map[string]placed
	byNode    map[string]Size
}

// Placement reads one machine record's value: the machine's id, its node's id
// (NodeID of its location and node name; "" while the driver has not placed it) and
// its size. The machines, who own the records, hand it in.
type Placement func(val []byte) (id, node string, size Size, err error)

// placed is one machine's allocation: its size on its node.
type placed struct {
	node string
	size Size
}

// allocRebuild is how old the sums may grow on a shared store before a read builds
// them again.
const allocRebuild = time.Minute

// NewAllocations returns the sums of the machine records of store: those under
// prefix, the record of machine id at key(id), each read by read. It watches them
// from here on.
func NewAllocations(store persistence.Store, prefix []byte, key func(id string) []byte, read Placement) *Allocations {
	a := &Allocations{store: store, prefix: prefix, key: key, read: read, dirty: map[string]struct{}{}}
	store.Watch(prefix, func(k []byte) {
		a.dirtyMu.Lock()
		a.dirty[string(k[len(prefix):])] = struct{}{}
		a.dirtyMu.Unlock()
	})
	return a
}

// takeDirty returns the machines written since the last call, and forgets them.
func (a *Allocations) takeDirty() map[string]struct{} {
	a.dirtyMu.Lock()
	defer a.dirtyMu.Unlock()
	d := a.dirty
	a.dirty = map[string]struct{}{}
	return d
}

// Read returns what the machines allocate on each node, by node id.
func (a *Allocations) Read(ctx context.Context) (map[string]Size, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.byMachine == nil || a.store.Shared() && time.Since(a.builtAt) > allocRebuild {
		// Writes during the scan are named again and read after it.
		a.takeDirty()
		byMachine, byNode := map[string]placed{}, map[string]Size{}
		err := a.store.Scan(ctx, a.prefix, nil, 0, func(_, v []byte) error {
			id, node, size, err := a.read(v)
			if err != nil {
				return err
			}
			if node != "" {
				byMachine[id] = placed{node: node, size: size}
				byNode[node] = byNode[node].plus(size, 1)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		a.byMachine, a.byNode, a.builtAt = byMachine, byNode, time.Now()
	}
	for id := range a.takeDirty() {
		var node string
		var size Size
		v, err := a.store.Get(ctx, a.key(id))
		if err == nil {
			_, node, size, err = a.read(v)
		}
		if err != nil && !errors.Is(err, persistence.ErrNotFound) {
			a.dirtyMu.Lock()
			a.dirty[id] = struct{}{} // read again next time
			a.dirtyMu.Unlock()
			return nil, err
		}
		if old, ok := a.byMachine[id]; ok {
			a.byNode[old.node] = a.byNode[old.node].plus(old.size, -1)
			delete(a.byMachine, id)
		}
		if node != "" {
			a.byMachine[id] = placed{node: node, size: size}
			a.byNode[node] = a.byNode[node].plus(size, 1)
		}
	}
	return maps.Clone(a.byNode), nil
}

// plus is s with o added sign times.
func (s Size) plus(o Size, sign int) Size {
	return Size{CPUCores: s.CPUCores + sign*o.CPUCores, MemoryMB: s.MemoryMB + sign*o.MemoryMB, DiskGB: s.DiskGB + sign*o.DiskGB}
}

// Rooms returns the room of every node of the location tagged loc ("": the default
// one) for machines of size need, in node order, by the operator's overcommit ratios
// (Room).
func (n *Nodes) Rooms(ctx context.Context, loc string, need Size) ([]NodeRoom, error) {
	nodes, _, err := n.List(ctx, "", 0)
	if err != nil {
		return nil, err
	}
	used, err := n.allocated(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]NodeRoom, 0, len(nodes))
	for _, nd := range nodes {
		if string(nd.Location) == loc {
			out = append(out, Room(nd, used[nd.ID], need, n.overcommit))
		}
	}
	return out, nil
}

// Place chooses the node of the location tagged loc for a new machine of size need
// that names none: the one with the most room for it (Room's fits; of two alike, the
// one with more free memory, then the first by id), answered as its room (Node its
// id, Name its name in the location). When none has room, the answer is 409
// insufficient_capacity. Two creates placed at once may both take the last room of a
// node: placement reads the machines as they are recorded, it reserves nothing. only,
// when set, is the name of the one node the machine can go to (a template on that
// node's local storage). A location with no node on record answers a zero room: the
// driver places the machine, as before nodes were known.
func (n *Nodes) Place(ctx context.Context, loc string, need Size, only string) (NodeRoom, error) {
	rooms, err := n.Rooms(ctx, loc, need)
	if err != nil {
		return NodeRoom{}, err
	}
	if only != "" {
		rooms = slices.DeleteFunc(rooms, func(r NodeRoom) bool { return r.Name != only })
	}
	if len(rooms) == 0 {
		return NodeRoom{}, nil
	}
	best := slices.MaxFunc(rooms, func(a, b NodeRoom) int {
		if c := cmp.Compare(a.Fits, b.Fits); c != 0 {
			return c
		}
		if c := cmp.Compare(a.FreeMemoryMB, b.FreeMemoryMB); c != 0 {
			return c
		}
		return cmp.Compare(b.Node, a.Node)
	})
	if best.Fits < 1 {
		return NodeRoom{}, apierr.New(apierr.ErrInsufficientCapacity,
			"no node of location %s has room for a machine of %d cores, %d MB of memory and %d GB of disk", hvloc.Name(loc), need.CPUCores, need.MemoryMB, need.DiskGB)
	}
	return best, nil
}

// Overcommit returns the ratios the capacity arithmetic uses.
func (n *Nodes) Overcommit() Overcommit { return n.overcommit }
