package inventory

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/machines/vmids"
	"github.com/vmplane/vmplane/hypervisor"
)

// countTraffic hands the inventory's network counters of the machines vmplane knows
// (known: machine ids by vmid) to the traffic counting (Deps.Traffic), keyed by machine
// id; a machine it does not know yet is counted from its next sync on. The counters
// were read with the inventory, at start. A failure is logged, not returned: the
// counters are cumulative, so the next sync's reading counts what this one missed.
func (c *Inventory) countTraffic(ctx context.Context, start time.Time, counters map[int]hypervisor.TrafficCounters, known *vmids.Index) {
	if c.traffic == nil || len(counters) == 0 {
		return
	}
	byID := make(map[string]hypervisor.TrafficCounters, len(counters))
	for vmid, tc := range counters {
		if id, ok := known.Get(vmid); ok {
			byID[id] = tc
		}
	}
	if len(byID) == 0 {
		return
	}
	if err := c.traffic(ctx, start.UTC(), byID); err != nil && ctx.Err() == nil {
		c.log.Warn("traffic: the counters could not be recorded", zap.Error(err))
	}
}
