package plans

import (
	"context"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/apierr"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
)

// PlanCapacity is how many more machines of a plan fit on the nodes of its location
// now, node by node and in all, by the operator's overcommit ratios against what
// vmplane's machines on each node allocate (capacity.Room, the arithmetic placement
// uses too).
type PlanCapacity struct {
	PlanID string `json:"plan_id"`
	// Location is the plan's location, whose nodes are counted.
	Location hvloc.ID `json:"location_id"`
	// Total is the sum of the nodes' fits.
	Total int                 `json:"total"`
	Nodes []capacity.NodeRoom `json:"nodes"`
	// Overcommit are the ratios the numbers were computed with.
	Overcommit capacity.Overcommit `json:"overcommit"`
}

// Capacity answers how many more machines of plan id fit now on the nodes of its
// location. location, when given, must name the plan's location (a machine of the
// plan is made nowhere else): another is an invalid request.
func (p *Plans) Capacity(ctx context.Context, id string, location *string) (PlanCapacity, error) {
	pl, err := p.Get(ctx, id)
	if err != nil {
		return PlanCapacity{}, err
	}
	if location != nil && hvloc.Tag(*location) != string(pl.Location) {
		return PlanCapacity{}, apierr.Invalid(apierr.Field("location", "plan %s is sold in location %s, not %s", pl.Name, hvloc.Name(string(pl.Location)), *location))
	}
	rooms, err := p.nodes.Rooms(ctx, string(pl.Location), capacity.Size{CPUCores: pl.CPUCores, MemoryMB: pl.MemoryMB, DiskGB: pl.DiskGB})
	if err != nil {
		return PlanCapacity{}, err
	}
	c := PlanCapacity{PlanID: pl.ID, Location: pl.Location, Nodes: rooms, Overcommit: p.nodes.Overcommit()}
	for _, r := range rooms {
		c.Total += r.Fits
	}
	return c, nil
}

// CountLocation counts the plans of the location tagged tag (a location with plans is
// not deleted).
func (p *Plans) CountLocation(ctx context.Context, tag string) (int, error) {
	list, _, err := p.List(ctx, kit.Ptr(hvloc.Name(tag)), "", 0)
	return len(list), err
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
