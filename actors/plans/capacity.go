package plans

import (
	"context"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
)

// PlanCapacity is how many more machines of a plan fit on the nodes now, node by node and
// in all, by the operator's overcommit ratios against what vmplane's machines on each
// node allocate (capacity.Room, the arithmetic placement uses too).
type PlanCapacity struct {
	PlanID string `json:"plan_id"`
	// Total is the sum of the nodes' fits.
	Total int                 `json:"total"`
	Nodes []capacity.NodeRoom `json:"nodes"`
	// Overcommit are the ratios the numbers were computed with.
	Overcommit capacity.Overcommit `json:"overcommit"`
}

// Capacity answers how many more machines of plan id fit now.
func (p *Plans) Capacity(ctx context.Context, id string) (PlanCapacity, error) {
	pl, err := p.Get(ctx, id)
	if err != nil {
		return PlanCapacity{}, err
	}
	rooms, err := p.nodes.Rooms(ctx, capacity.Size{CPUCores: pl.CPUCores, MemoryMB: pl.MemoryMB, DiskGB: pl.DiskGB})
	if err != nil {
		return PlanCapacity{}, err
	}
	c := PlanCapacity{PlanID: pl.ID, Nodes: rooms, Overcommit: p.nodes.Overcommit()}
	for _, r := range rooms {
		c.Total += r.Fits
	}
	return c, nil
}

// Limits answers a plan's per-machine bounds of backups and snapshots: what the
// machines' Deps.PlanLimits asks before a snapshot or a backup on demand.
func (p *Plans) Limits(ctx context.Context, id string) (machines.PlanLimits, error) {
	pl, err := p.Get(ctx, id)
	if err != nil {
		return machines.PlanLimits{}, err
	}
	return machines.PlanLimits{Name: pl.Name, Backups: pl.Backups, Snapshots: pl.Snapshots, IPv4: pl.IPv4, IPv6: pl.IPv6Prefix != nil}, nil
}
