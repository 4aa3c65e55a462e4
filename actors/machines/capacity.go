package machines

import (
	"context"

	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/persistence"
)

// Allocated returns what vmplane's machines allocate on each node, by node id: the
// sizes of their records (what they were given, not what they use); a machine whose
// node is not yet known (a create the driver places) counts nowhere. It is read on
// every create that names no node, so it is kept rather than summed each time
// (capacity.Allocations).
func (m *Machines) Allocated(ctx context.Context) (map[string]capacity.Size, error) {
	return m.alloc.Read(ctx)
}

// newAllocations returns the sums of Allocated, over the machine records of store.
func newAllocations(store persistence.Store) *capacity.Allocations {
	return capacity.NewAllocations(store, persistence.Prefix("vm"), machineKey, func(v []byte) (string, string, capacity.Size, error) {
		var rec record
		if _, err := persistence.Decode(v, &rec); err != nil {
			return "", "", capacity.Size{}, err
		}
		node := rec.Node
		if node != "" {
			// By node id: node names repeat across locations (capacity.NodeID).
			node = capacity.NodeID(string(rec.Location), node)
		}
		return rec.ID, node, capacity.Size{CPUCores: rec.CPUCores, MemoryMB: rec.MemoryMB, DiskGB: rec.DiskGB}, nil
	})
}

// CountLocation counts the machines of the location tagged tag (a location with
// machines is not deleted). One scan of the machine records: it runs on a location's
// delete only.
func (m *Machines) CountLocation(ctx context.Context, tag string) (int, error) {
	n := 0
	err := m.sys.store.Scan(ctx, persistence.Prefix("vm"), nil, 0, func(_, v []byte) error {
		var rec record
		if _, err := persistence.Decode(v, &rec); err != nil {
			return err
		}
		if string(rec.Location) == tag {
			n++
		}
		return nil
	})
	return n, err
}

// CountPlan counts the machines made from or moved to plan (a plan in use is not
// deleted). One scan of the machine records: it runs on a plan's delete only.
func (m *Machines) CountPlan(ctx context.Context, plan string) (int, error) {
	n := 0
	err := m.sys.store.Scan(ctx, persistence.Prefix("vm"), nil, 0, func(_, v []byte) error {
		var rec record
		if _, err := persistence.Decode(v, &rec); err != nil {
			return err
		}
		if rec.PlanID != nil && *rec.PlanID == plan {
			n++
		}
		return nil
	})
	return n, err
}
