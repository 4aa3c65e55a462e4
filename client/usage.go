package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Usage for invoices: what machines used, hour by hour, as the server keeps it. A
// billing module reads a month (From the first hour, To the first hour of the next
// month) and turns each line into invoice lines.

func usageQuery(q url.Values, from, to time.Time) url.Values {
	q.Set("from", from.UTC().Format(time.RFC3339))
	q.Set("to", to.UTC().Format(time.RFC3339))
	return q
}

// TenantUsage is a tenant's usage in the hours [from, to) (whole hours): operators,
// and keys with the billing scope.
func (c *Client) TenantUsage(ctx context.Context, tenantID string, from, to time.Time) (*UsageReport, error) {
	return callFor[UsageReport](ctx, c, http.MethodGet, "/api/resources/tenants/"+esc(tenantID)+"/usage", usageQuery(url.Values{}, from, to), nil)
}

// MachineInvoiceUsage is any machine's usage in the hours [from, to): operators, and keys
// with the billing scope.
func (c *Client) MachineInvoiceUsage(ctx context.Context, machineID string, from, to time.Time) (*UsageReport, error) {
	return callFor[UsageReport](ctx, c, http.MethodGet, "/api/virt/vms/"+esc(machineID)+"/usage", usageQuery(url.Values{}, from, to), nil)
}

// MyUsage is the signed-in tenant's usage in the hours [from, to) (an operator's
// client set to a tenant reads that tenant's).
func (c *Client) MyUsage(ctx context.Context, from, to time.Time) (*UsageReport, error) {
	return callFor[UsageReport](ctx, c, http.MethodGet, "/api/client/usage", usageQuery(c.clientQuery(), from, to), nil)
}

// MyMachineUsage is the usage of one of the tenant's machines in the hours [from, to).
func (c *Client) MyMachineUsage(ctx context.Context, machineID string, from, to time.Time) (*UsageReport, error) {
	return callFor[UsageReport](ctx, c, http.MethodGet, "/api/client/machines/"+esc(machineID)+"/usage", usageQuery(c.clientQuery(), from, to), nil)
}

// MachineTraffic is any machine's traffic this month with its allowance: operators,
// and keys with the billing scope.
func (c *Client) MachineTraffic(ctx context.Context, machineID string) (*MachineTraffic, error) {
	return callFor[MachineTraffic](ctx, c, http.MethodGet, "/api/virt/vms/"+esc(machineID)+"/traffic", nil, nil)
}

// MyMachineTraffic is the traffic this month of one of the tenant's machines, with
// its plan's allowance and what is left of it.
func (c *Client) MyMachineTraffic(ctx context.Context, machineID string) (*MachineTraffic, error) {
	return callFor[MachineTraffic](ctx, c, http.MethodGet, "/api/client/machines/"+esc(machineID)+"/traffic", c.clientQuery(), nil)
}
