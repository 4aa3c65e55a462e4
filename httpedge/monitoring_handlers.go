package httpedge

import (
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/apierr"
)

// monitoringRoutes are the operator's monitoring routes: overview, health checks, alerts.
func (s *Server) monitoringRoutes() []Route {
	tag := "monitoring"
	page := pageQuery
	checkList := withPage(map[string]string{"tenant_id": "only this tenant's checks"})
	return []Route{
		{Method: "GET", Path: "/api/monitoring/overview", Access: AdminOnly, Handler: s.monitoringOverview, Tag: tag,
			Summary: "Nodes, machines, open alerts, health checks and capacity of the online nodes, from live state",
			Reply:   monitoring.MonitoringOverview{}},
		{Method: "GET", Path: "/api/monitoring/health-checks", Access: AdminOnly, Handler: s.listChecks, Tag: tag,
			Summary: "Health checks with their latest result, in creation order", Reply: Page[monitoring.HealthCheck]{}, Query: checkList},
		{Method: "POST", Path: "/api/monitoring/health-checks", Access: AdminOnly, Handler: s.createCheck, Tag: tag,
			Summary: "Create a health check (any target); it starts probing at once", Body: monitoring.HealthCheckSpec{},
			Reply: monitoring.HealthCheck{}, Status: fasthttp.StatusCreated, Stamped: true},
		{Method: "GET", Path: "/api/monitoring/health-checks/{id}", Access: AdminOnly, Handler: s.getCheck, Tag: tag,
			Summary: "One health check with its recent results", Reply: monitoring.HealthCheck{}},
		{Method: "PATCH", Path: "/api/monitoring/health-checks/{id}", Access: AdminOnly, Handler: s.updateCheck, Tag: tag,
			Summary: "Change a health check; a new type, target or expected status starts it afresh", Body: monitoring.HealthCheckChange{}, Patch: true,
			Reply: monitoring.HealthCheck{}},
		{Method: "DELETE", Path: "/api/monitoring/health-checks/{id}", Access: AdminOnly, Handler: s.deleteCheck, Tag: tag,
			Summary: "Delete a health check: it stops probing and its alert resolves", Status: fasthttp.StatusNoContent},
		{Method: "GET", Path: "/api/monitoring/alerts/events", Access: AdminOnly, Handler: s.listAlerts, Tag: tag,
			Summary: "Alert events in creation order (oldest first), filtered", Reply: Page[alerts.Alert]{}, Query: alertQuery(page), QueryTypes: alertQueryTypes},
		{Method: "GET", Path: "/api/monitoring/alerts/events/{id}", Access: AdminOnly, Handler: s.getAlert, Tag: tag,
			Summary: "One alert event", Reply: alerts.Alert{}},
		{Method: "PATCH", Path: "/api/monitoring/alerts/events/{id}", Access: AdminOnly, Handler: s.updateAlert, Tag: tag,
			Summary: "Acknowledge an alert event",
			Description: "Acknowledges an open alert event with {\"status\": \"acknowledged\"}, as the resources route does; " +
				"it stays open until its condition clears. Another status is 400.",
			Body: AlertPatch{}, Patch: true, Reply: alerts.Alert{}},
	}
}

func alertQuery(page map[string]string) map[string]string {
	q := map[string]string{
		"status":   "firing, acknowledged or resolved",
		"severity": "info, warning or critical",
		"kind":     "one of " + strings.Join(alerts.AlertKinds, ", "),
		"since":    "RFC 3339 time: only events raised, changed or resolved at or after it",
	}
	for k, v := range page {
		q[k] = v
	}
	return q
}

// alertQueryTypes types the alert status filter (status means another thing elsewhere).
var alertQueryTypes = map[string]QueryType{"status": {Enum: []string{"firing", "acknowledged", "resolved"}}}

// AlertPatch is the body of PATCH /api/resources/alert-events/:id: the one change a
// client may make is acknowledging.
type AlertPatch struct {
	// Status must be "acknowledged".
	Status *string `json:"status" openapi:"required,enum=acknowledged"`
	// TenantID is read-only; it may only name the event's own tenant.
	TenantID *string `json:"tenant_id,omitempty" openapi:"limit=id"`
}

// monitoringResources are the registry entries of health checks and alert events.
func (s *Server) monitoringResources() []resource {
	svc := s.svc
	return []resource{
		{name: "health-checks", scoped: true, read: Authenticated, write: Authenticated, summary: "health checks", stamped: true,
			item: itemOf[monitoring.HealthCheck](), createBody: monitoring.HealthCheckSpec{}, updateBody: monitoring.HealthCheckChange{},
			query: map[string]string{"tenant_id": "operators: only this tenant's checks"},
			list: func(c *Call, scope *string, cursor string, limit int) (any, string, error) {
				tenant := scope
				if t := c.Query("tenant_id"); scope == nil && t != "" {
					tenant = &t
				}
				return svc.HealthChecks.List(c.Context(), tenant, cursor, limit)
			},
			get: func(c *Call, scope *string, id string) (any, error) {
				return svc.HealthChecks.Get(c.Context(), id, scope)
			},
			create: func(c *Call, scope *string, tenant *string) (any, error) {
				var b monitoring.HealthCheckSpec
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				b.TenantID = tenant
				hc, err := svc.HealthChecks.Create(c.Context(), b, scope)
				if err != nil {
					return nil, err
				}
				return Created(hc), nil
			},
			update: func(c *Call, scope *string, id string) (any, error) {
				ch, err := c.decodeCheckChange()
				if err != nil {
					return nil, err
				}
				return svc.HealthChecks.Update(c.Context(), id, ch, scope)
			},
			delete: func(c *Call, scope *string, id string) (any, error) {
				return NoContent, svc.HealthChecks.Delete(c.Context(), id, scope)
			},
		},
		{name: "alert-events", scoped: true, read: Authenticated, write: Authenticated, summary: "alert events",
			item: itemOf[alerts.Alert](), updateBody: AlertPatch{}, query: alertQuery(nil), queryTypes: alertQueryTypes,
			list: func(c *Call, scope *string, cursor string, limit int) (any, string, error) {
				f, err := c.alertFilter()
				if err != nil {
					return nil, "", err
				}
				return svc.Alerts.List(c.Context(), f, scope, cursor, limit)
			},
			get: func(c *Call, scope *string, id string) (any, error) { return svc.Alerts.Get(c.Context(), id, scope) },
			update: func(c *Call, scope *string, id string) (any, error) {
				return s.patchAlert(c, scope, id)
			},
		},
	}
}

// decodeCheckChange decodes a health check change strictly and notes a null machine_id.
func (c *Call) decodeCheckChange() (monitoring.HealthCheckChange, error) {
	var ch monitoring.HealthCheckChange
	if err := c.Decode(&ch); err != nil {
		return ch, err
	}
	ch.ClearMachine = c.nulls()["machine_id"]
	return ch, nil
}

// alertFilter reads ?status=, ?severity=, ?kind= and ?since=.
func (c *Call) alertFilter() (alerts.AlertFilter, error) {
	f := alerts.AlertFilter{Status: c.Query("status"), Severity: c.Query("severity"), Kind: c.Query("kind")}
	var errs []apierr.FieldError
	if f.Status != "" && !alerts.ValidAlertStatus(f.Status) {
		errs = append(errs, apierr.Field("status", "must be firing, acknowledged or resolved"))
	}
	if f.Severity != "" && !alerts.ValidSeverity(f.Severity) {
		errs = append(errs, apierr.Field("severity", "must be info, warning or critical"))
	}
	if f.Kind != "" && !alerts.ValidAlertKind(f.Kind) {
		errs = append(errs, apierr.Field("kind", "must be one of %s", strings.Join(alerts.AlertKinds, ", ")))
	}
	if v := c.Query("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			errs = append(errs, apierr.Field("since", "must be an RFC 3339 time"))
		} else {
			t = t.UTC()
			f.Since = &t
		}
	}
	if len(errs) > 0 {
		return f, apierr.Invalid(errs...)
	}
	return f, nil
}

func (s *Server) monitoringOverview(c *Call) (any, error) {
	return s.svc.Monitoring.Overview(c.Context())
}

func (s *Server) listChecks(c *Call) (any, error) {
	limit, cursor, err := c.paging()
	if err != nil {
		return nil, err
	}
	var tenant *string
	if t := c.Query("tenant_id"); t != "" {
		tenant = &t
	}
	items, next, err := s.svc.HealthChecks.List(c.Context(), tenant, cursor, limit)
	if err != nil {
		return nil, err
	}
	return page(items, next), nil
}

func (s *Server) createCheck(c *Call) (any, error) {
	var b monitoring.HealthCheckSpec
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	hc, err := s.svc.HealthChecks.Create(c.Context(), b, nil)
	if err != nil {
		return nil, err
	}
	return Created(hc), nil
}

func (s *Server) getCheck(c *Call) (any, error) {
	return s.svc.HealthChecks.Get(c.Context(), c.Param("id"), nil)
}

func (s *Server) updateCheck(c *Call) (any, error) {
	ch, err := c.decodeCheckChange()
	if err != nil {
		return nil, err
	}
	return s.svc.HealthChecks.Update(c.Context(), c.Param("id"), ch, nil)
}

func (s *Server) deleteCheck(c *Call) (any, error) {
	return NoContent, s.svc.HealthChecks.Delete(c.Context(), c.Param("id"), nil)
}

func (s *Server) listAlerts(c *Call) (any, error) {
	limit, cursor, err := c.paging()
	if err != nil {
		return nil, err
	}
	f, err := c.alertFilter()
	if err != nil {
		return nil, err
	}
	items, next, err := s.svc.Alerts.List(c.Context(), f, nil, cursor, limit)
	if err != nil {
		return nil, err
	}
	return page(items, next), nil
}

func (s *Server) getAlert(c *Call) (any, error) {
	return s.svc.Alerts.Get(c.Context(), c.Param("id"), nil)
}

// updateAlert is PATCH /api/monitoring/alerts/events/:id: an operator acknowledges.
func (s *Server) updateAlert(c *Call) (any, error) {
	return s.patchAlert(c, nil, c.Param("id"))
}

// patchAlert applies an AlertPatch, the same on the monitoring and the resources
// route: acknowledging is the one change allowed.
func (s *Server) patchAlert(c *Call, scope *string, id string) (any, error) {
	var b AlertPatch
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	cur, err := s.svc.Alerts.Get(c.Context(), id, scope)
	if err != nil {
		return nil, err
	}
	if b.TenantID != nil && (cur.TenantID == nil || *b.TenantID != *cur.TenantID) {
		return nil, apierr.Invalid(apierr.Field("tenant_id", "is read-only"))
	}
	if b.Status == nil || *b.Status != alerts.AlertAcknowledged {
		return nil, apierr.Invalid(apierr.Field("status", "the only change allowed is status: acknowledged"))
	}
	return s.svc.Alerts.Acknowledge(c.Context(), id, scope)
}
