package client

import (
	"context"
	"iter"
	"net/http"
)

// Kinds of health check, and the states of CheckResult.Status.
const (
	CheckHTTP = "http"
	CheckTCP  = "tcp"

	CheckUnknown = "unknown"
	CheckPassing = "passing"
	CheckFailing = "failing"
)

// CreateHealthCheck creates a health check; it starts probing at once.
func (c *Client) CreateHealthCheck(ctx context.Context, spec HealthCheckSpec) (*HealthCheck, error) {
	if spec.TenantID == "" {
		spec.TenantID = c.tenant
	}
	return callFor[HealthCheck](ctx, c, http.MethodPost, "/api/resources/health-checks", nil, spec)
}

// GetHealthCheck reads one health check with its recent results.
func (c *Client) GetHealthCheck(ctx context.Context, id string) (*HealthCheck, error) {
	return getRecord[HealthCheck](ctx, c, "/api/resources/health-checks/"+esc(id))
}

// UpdateHealthCheck changes the fields of a health check that ch sets.
func (c *Client) UpdateHealthCheck(ctx context.Context, id string, ch HealthCheckChange) (*HealthCheck, error) {
	return callFor[HealthCheck](ctx, c, http.MethodPatch, "/api/resources/health-checks/"+esc(id), nil, ch)
}

// DeleteHealthCheck deletes a health check: it stops probing and its alert resolves.
func (c *Client) DeleteHealthCheck(ctx context.Context, id string) error {
	return deleteRecord(ctx, c, "/api/resources/health-checks/"+esc(id))
}

// HealthChecksPage reads one page of health checks with their latest result, of one
// tenant when tenantID is not "" (operators).
func (c *Client) HealthChecksPage(ctx context.Context, tenantID string, opt ListOptions) (Page[HealthCheck], error) {
	q := opt.values()
	if tenantID == "" {
		tenantID = c.tenant
	}
	if tenantID != "" {
		q.Set("tenant_id", tenantID)
	}
	return getPage[HealthCheck](ctx, c, "/api/resources/health-checks", q)
}

// HealthChecks yields every health check (of one tenant when tenantID is not "").
func (c *Client) HealthChecks(ctx context.Context, tenantID string, opt ListOptions) iter.Seq2[HealthCheck, error] {
	return all(ctx, opt, func(ctx context.Context, o ListOptions) (Page[HealthCheck], error) {
		return c.HealthChecksPage(ctx, tenantID, o)
	})
}
