package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
)

// The calls of machines as records (/api/resources/machines) and of templates; the
// client area's machine calls are in api.go, the operators' operations in virt.go.

// UpdateMachine renames a machine or moves it between tenants. A rename (with a move
// or without) runs as a task, returned with a nil machine; a move alone is done at
// once and answers the machine with a nil task.
func (c *Client) UpdateMachine(ctx context.Context, id string, ch MachineChange) (*Machine, *Task, error) {
	var raw json.RawMessage
	if _, err := c.c.do(ctx, request{method: http.MethodPatch, path: "/api/resources/machines/" + esc(id), body: ch, out: &raw}); err != nil {
		return nil, nil, err
	}
	// 202 answers {"task": ...}; 200 the machine, which has no "task" field.
	var tr struct {
		Task *Task `json:"task"`
	}
	if err := json.Unmarshal(raw, &tr); err == nil && tr.Task != nil {
		return nil, tr.Task, nil
	}
	var m Machine
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, nil, err
	}
	return &m, nil, nil
}

// AllMachinesPage reads one page of every machine the caller may see, in creation
// order: for an operator those of every tenant and those of none (which Machines,
// being the client area's list of one tenant, does not show); for a tenant's user its
// tenant's. f.TenantID narrows an operator's list to one tenant.
func (c *Client) AllMachinesPage(ctx context.Context, f MachineFilter) (Page[Machine], error) {
	return getPage[Machine](ctx, c, "/api/resources/machines", f.query())
}

// AllMachines yields every machine AllMachinesPage would list, page after page.
func (c *Client) AllMachines(ctx context.Context, f MachineFilter) iter.Seq2[Machine, error] {
	return all(ctx, f.ListOptions, func(ctx context.Context, o ListOptions) (Page[Machine], error) {
		g := f
		g.ListOptions = o
		return c.AllMachinesPage(ctx, g)
	})
}

// GetTemplate reads one template.
func (c *Client) GetTemplate(ctx context.Context, id string) (*Template, error) {
	return getRecord[Template](ctx, c, "/api/resources/templates/"+esc(id))
}
