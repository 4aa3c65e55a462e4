package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
)

// Plans: the machine sizes a hosting company sells. Operators write them; every
// signed-in user, and keys with the read or billing scope, read them.

// planMove is the body of a move to a plan.
type planMove struct {
	PlanID string `json:"plan_id"`
}

// CreatePlan creates a plan (operators); a taken name is ErrConflict.
func (c *Client) CreatePlan(ctx context.Context, spec PlanSpec) (*Plan, error) {
	return callFor[Plan](ctx, c, http.MethodPost, "/api/resources/plans", nil, spec)
}

// Plan reads one plan.
func (c *Client) Plan(ctx context.Context, id string) (*Plan, error) {
	return getRecord[Plan](ctx, c, "/api/resources/plans/"+esc(id))
}

// UpdatePlan changes the fields of a plan that ch sets (operators). Machines of the
// plan keep their sizes until they are moved to it again (ChangePlan).
func (c *Client) UpdatePlan(ctx context.Context, id string, ch PlanChange) (*Plan, error) {
	return callFor[Plan](ctx, c, http.MethodPatch, "/api/resources/plans/"+esc(id), nil, ch)
}

// DeletePlan deletes a plan (operators); one machines still use is ErrConflict.
func (c *Client) DeletePlan(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/plans/"+esc(id))
}

// PlansPage reads one page of plans.
func (c *Client) PlansPage(ctx context.Context, opt ListOptions) (Page[Plan], error) {
	return c.PlansPageIn(ctx, LocationFilter{ListOptions: opt})
}

// Plans yields every plan, oldest first.
func (c *Client) Plans(ctx context.Context, opt ListOptions) iter.Seq2[Plan, error] {
	return all(ctx, opt, c.PlansPage)
}

// PlansPageIn reads one page of the plans of f.Location (every plan when empty).
func (c *Client) PlansPageIn(ctx context.Context, f LocationFilter) (Page[Plan], error) {
	return getPage[Plan](ctx, c, "/api/resources/plans", f.values())
}

// PlansIn yields every plan of f.Location (every plan when empty), oldest first.
func (c *Client) PlansIn(ctx context.Context, f LocationFilter) iter.Seq2[Plan, error] {
	return allIn(ctx, f, c.PlansPageIn)
}

// PlanCapacity reads how many more machines of a plan fit now on the nodes of its
// location.
func (c *Client) PlanCapacity(ctx context.Context, id string) (*PlanCapacity, error) {
	return c.PlanCapacityIn(ctx, id, "")
}

// PlanCapacityIn is PlanCapacity naming the location (its id, or "default"; empty:
// none), which must be the plan's: another is ErrInvalidRequest.
func (c *Client) PlanCapacityIn(ctx context.Context, id, location string) (*PlanCapacity, error) {
	q := url.Values{}
	if location != "" {
		q.Set("location", location)
	}
	var out PlanCapacity
	if _, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/resources/plans/" + esc(id) + "/capacity", query: q, out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// ChangePlan moves one of the tenant's machines (by id or vmid) to a plan: a resize to
// the plan's sizes within the quota, whose task it returns. A plan with a smaller disk
// than the machine's is ErrInvalidRequest: disks never shrink.
func (c *Client) ChangePlan(ctx context.Context, machineID, planID string) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, query: c.clientQuery(),
		path: "/api/client/machines/" + esc(machineID) + "/plan", body: planMove{PlanID: planID}})
}

// ChangeMachinePlan is ChangePlan for operators, on any machine (/api/virt): a
// tenant's machine within its tenant's quota.
func (c *Client) ChangeMachinePlan(ctx context.Context, machineID, planID string) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost,
		path: "/api/virt/vms/" + esc(machineID) + "/plan", body: planMove{PlanID: planID}})
}
