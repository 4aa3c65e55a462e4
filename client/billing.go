package client

import (
	"context"
	"net/http"
)

// Suspension actions: what a tenant's suspension does to its running machines.
const (
	SuspendStop       = "stop"
	SuspendHypervisor = "suspend"
	SuspendNone       = "none"
)

// unsuspendSpec is the body of UnsuspendTenant.
type unsuspendSpec struct {
	Start bool `json:"start,omitempty"`
}

// SuspendTenant suspends a tenant (for non-payment, say): its users may still sign in
// and read, and every other write of theirs fails with ErrTenantSuspended. Suspending a
// suspended tenant sets the reason. Operators, and API keys with ScopeBilling.
func (c *Client) SuspendTenant(ctx context.Context, id string, spec SuspendSpec) (*Tenant, error) {
	var out Tenant
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/resources/tenants/" + esc(id) + "/suspend", body: spec, out: &out})
	return &out, err
}

// UnsuspendTenant ends a tenant's suspension; with start, the machines it stopped or
// suspended are started or resumed. A tenant that is not suspended is left as it is.
func (c *Client) UnsuspendTenant(ctx context.Context, id string, start bool) (*Tenant, error) {
	var out Tenant
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/resources/tenants/" + esc(id) + "/unsuspend", body: unsuspendSpec{Start: start}, out: &out})
	return &out, err
}

// SuspendMachineBilling suspends one machine for billing (spec.Action applies to it if
// it runs; empty: stop). Suspending a suspended machine sets the reason. Operators, and
// API keys with ScopeBilling.
func (c *Client) SuspendMachineBilling(ctx context.Context, id string, spec SuspendSpec) (*Machine, error) {
	var out Machine
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/virt/vms/" + esc(id) + "/suspend-billing", body: spec, out: &out})
	return &out, err
}

// UnsuspendMachineBilling ends a machine's billing suspension; with start, a machine it
// stopped or suspended is started or resumed.
func (c *Client) UnsuspendMachineBilling(ctx context.Context, id string, start bool) (*Machine, error) {
	var out Machine
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/virt/vms/" + esc(id) + "/unsuspend-billing", body: unsuspendSpec{Start: start}, out: &out})
	return &out, err
}

// TerminateMachine marks a machine for deletion with every snapshot and backup it has,
// at its TerminateAt: now plus the server's grace period (VMPLANE_TERMINATE_GRACE;
// none: the deletion, a task, starts at once). Within the grace the machine is stopped
// and CancelTerminateMachine or UnsuspendMachineBilling takes it back. Operators, and
// API keys with ScopeBilling.
func (c *Client) TerminateMachine(ctx context.Context, id string) (*Machine, error) {
	var out Machine
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/virt/vms/" + esc(id) + "/terminate", out: &out})
	return &out, err
}

// CancelTerminateMachine takes a machine's termination back while its grace lasts.
func (c *Client) CancelTerminateMachine(ctx context.Context, id string) (*Machine, error) {
	var out Machine
	_, err := c.c.do(ctx, request{method: http.MethodDelete, path: "/api/virt/vms/" + esc(id) + "/terminate", out: &out})
	return &out, err
}
