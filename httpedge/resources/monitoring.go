package resources

import (
	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/monitor"
)

// monitoringResources are the registry entries of health checks and alert events.
func (h *handlers) monitoringResources() []resource {
	svc := h.svc
	return []resource{
		{name: "health-checks", scoped: true, read: api.Authenticated, write: api.Authenticated, summary: "health checks", stamped: true,
			item: itemOf[monitoring.HealthCheck](), createBody: monitoring.HealthCheckSpec{}, updateBody: monitoring.HealthCheckChange{},
			query: map[string]string{"tenant_id": "operators: only this tenant's checks"},
			list: func(c *api.Call, scope *string, cursor string, limit int) (any, string, error) {
				tenant := scope
				if t := c.Query("tenant_id"); scope == nil && t != "" {
					tenant = &t
				}
				return svc.HealthChecks.List(c.Context(), tenant, cursor, limit)
			},
			get: func(c *api.Call, scope *string, id string) (any, error) {
				return svc.HealthChecks.Get(c.Context(), id, scope)
			},
			create: func(c *api.Call, scope *string, tenant *string) (any, error) {
				var b monitoring.HealthCheckSpec
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				b.TenantID = tenant
				hc, err := svc.HealthChecks.Create(c.Context(), b, scope)
				if err != nil {
					return nil, err
				}
				return api.Created(hc), nil
			},
			update: func(c *api.Call, scope *string, id string) (any, error) {
				ch, err := monitor.DecodeCheckChange(c)
				if err != nil {
					return nil, err
				}
				return svc.HealthChecks.Update(c.Context(), id, ch, scope)
			},
			delete: func(c *api.Call, scope *string, id string) (any, error) {
				return api.NoContent, svc.HealthChecks.Delete(c.Context(), id, scope)
			},
		},
		{name: "alert-events", scoped: true, read: api.Authenticated, write: api.Authenticated, summary: "alert events",
			item: itemOf[alerts.Alert](), updateBody: monitor.AlertPatch{}, query: monitor.AlertQuery(nil), queryTypes: monitor.AlertQueryTypes,
			list: func(c *api.Call, scope *string, cursor string, limit int) (any, string, error) {
				f, err := monitor.AlertFilter(c)
				if err != nil {
					return nil, "", err
				}
				return svc.Alerts.List(c.Context(), f, scope, cursor, limit)
			},
			get: func(c *api.Call, scope *string, id string) (any, error) {
				return svc.Alerts.Get(c.Context(), id, scope)
			},
			update: func(c *api.Call, scope *string, id string) (any, error) {
				return monitor.PatchAlert(c, svc.Alerts, scope, id)
			},
		},
	}
}
