// Package monitor holds the operator's monitoring routes, /api/monitoring/...: the
// overview, health checks, alert events and the insights (faulty deployments, the
// cluster forecast); the resources routes of health checks and alert events share its
// alert filter and patch.
package monitor

import (
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/monitoring"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
)

// handlers serve the routes from the services they call.
type handlers struct{ svc api.Services }

// Routes are the monitoring routes, then the insights.
func Routes(svc api.Services) []api.Route {
	h := &handlers{svc: svc}
	return append(h.monitoringRoutes(), h.insightRoutes()...)
}

// monitoringRoutes are the operator's monitoring routes: overview, health checks, alerts.
func (h *handlers) monitoringRoutes() []api.Route {
	tag := "monitoring"
	page := api.PageQuery
	checkList := api.WithPage(map[string]string{"tenant_id": "only this tenant's checks"})
	return []api.Route{
		{Method: "GET", Path: "/api/monitoring/overview", Access: api.AdminOnly, Handler: h.monitoringOverview, Tag: tag,
			Summary: "Nodes, machines, open alerts, health checks and capacity of the online nodes, from live state",
			Reply:   monitoring.MonitoringOverview{}},
		{Method: "GET", Path: "/api/monitoring/health-checks", Access: api.AdminOnly, Handler: h.listChecks, Tag: tag,
			Summary: "Health checks with their latest result, in creation order", Reply: api.Page[monitoring.HealthCheck]{}, Query: checkList},
		{Method: "POST", Path: "/api/monitoring/health-checks", Access: api.AdminOnly, Handler: h.createCheck, Tag: tag,
			Summary: "Create a health check (any target); it starts probing at once", Body: monitoring.HealthCheckSpec{},
			Reply: monitoring.HealthCheck{}, Status: fasthttp.StatusCreated, Stamped: true},
		{Method: "GET", Path: "/api/monitoring/health-checks/{id}", Access: api.AdminOnly, Handler: h.getCheck, Tag: tag,
			Summary: "One health check with its recent results", Reply: monitoring.HealthCheck{}},
		{Method: "PATCH", Path: "/api/monitoring/health-checks/{id}", Access: api.AdminOnly, Handler: h.updateCheck, Tag: tag,
			Summary: "Change a health check; a new type, target or expected status starts it afresh", Body: monitoring.HealthCheckChange{}, Patch: true,
			Reply: monitoring.HealthCheck{}},
		{Method: "DELETE", Path: "/api/monitoring/health-checks/{id}", Access: api.AdminOnly, Handler: h.deleteCheck, Tag: tag,
			Summary: "Delete a health check: it stops probing and its alert resolves", Status: fasthttp.StatusNoContent},
		{Method: "GET", Path: "/api/monitoring/alerts/events", Access: api.AdminOnly, Handler: h.listAlerts, Tag: tag,
			Summary: "Alert events in creation order (oldest first), filtered", Reply: api.Page[alerts.Alert]{}, Query: AlertQuery(page), QueryTypes: AlertQueryTypes},
		{Method: "GET", Path: "/api/monitoring/alerts/events/{id}", Access: api.AdminOnly, Handler: h.getAlert, Tag: tag,
			Summary: "One alert event", Reply: alerts.Alert{}},
		{Method: "PATCH", Path: "/api/monitoring/alerts/events/{id}", Access: api.AdminOnly, Handler: h.updateAlert, Tag: tag,
			Summary: "Acknowledge an alert event",
			Description: "Acknowledges an open alert event with {\"status\": \"acknowledged\"}, as the resources route does; " +
				"it stays open until its condition clears. Another status is 400.",
			Body: AlertPatch{}, Patch: true, Reply: alerts.Alert{}},
	}
}

// AlertQuery declares the filters of the alert lists, with the parameters of page.
func AlertQuery(page map[string]string) map[string]string {
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

// AlertQueryTypes types the alert status filter (status means another thing elsewhere).
var AlertQueryTypes = map[string]api.QueryType{"status": {Enum: []string{"firing", "acknowledged", "resolved"}}}

// AlertPatch is the body of PATCH /api/resources/alert-events/:id: the one change a
// client may make is acknowledging.
type AlertPatch struct {
	// Status must be "acknowledged".
	Status *string `json:"status" openapi:"required,enum=acknowledged"`
	// TenantID is read-only; it may only name the event's own tenant.
	TenantID *string `json:"tenant_id,omitempty" openapi:"limit=id"`
}

// DecodeCheckChange decodes a health check change strictly and notes a null machine_id.
func DecodeCheckChange(c *api.Call) (monitoring.HealthCheckChange, error) {
	var ch monitoring.HealthCheckChange
	if err := c.Decode(&ch); err != nil {
		return ch, err
	}
	ch.ClearMachine = c.Nulls()["machine_id"]
	return ch, nil
}

// AlertFilter reads ?status=, ?severity=, ?kind= and ?since=.
func AlertFilter(c *api.Call) (alerts.AlertFilter, error) {
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

func (h *handlers) monitoringOverview(c *api.Call) (any, error) {
	return h.svc.Monitoring.Overview(c.Context())
}

func (h *handlers) listChecks(c *api.Call) (any, error) {
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	var tenant *string
	if t := c.Query("tenant_id"); t != "" {
		tenant = &t
	}
	items, next, err := h.svc.HealthChecks.List(c.Context(), tenant, cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(items, next), nil
}

func (h *handlers) createCheck(c *api.Call) (any, error) {
	var b monitoring.HealthCheckSpec
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	hc, err := h.svc.HealthChecks.Create(c.Context(), b, nil)
	if err != nil {
		return nil, err
	}
	return api.Created(hc), nil
}

func (h *handlers) getCheck(c *api.Call) (any, error) {
	return h.svc.HealthChecks.Get(c.Context(), c.Param("id"), nil)
}

func (h *handlers) updateCheck(c *api.Call) (any, error) {
	ch, err := DecodeCheckChange(c)
	if err != nil {
		return nil, err
	}
	return h.svc.HealthChecks.Update(c.Context(), c.Param("id"), ch, nil)
}

func (h *handlers) deleteCheck(c *api.Call) (any, error) {
	return api.NoContent, h.svc.HealthChecks.Delete(c.Context(), c.Param("id"), nil)
}

func (h *handlers) listAlerts(c *api.Call) (any, error) {
	limit, cursor, err := c.Paging()
	if err != nil {
		return nil, err
	}
	f, err := AlertFilter(c)
	if err != nil {
		return nil, err
	}
	items, next, err := h.svc.Alerts.List(c.Context(), f, nil, cursor, limit)
	if err != nil {
		return nil, err
	}
	return api.PageOf(items, next), nil
}

func (h *handlers) getAlert(c *api.Call) (any, error) {
	return h.svc.Alerts.Get(c.Context(), c.Param("id"), nil)
}

// updateAlert is PATCH /api/monitoring/alerts/events/:id: an operator acknowledges.
func (h *handlers) updateAlert(c *api.Call) (any, error) {
	return PatchAlert(c, h.svc.Alerts, nil, c.Param("id"))
}

// PatchAlert applies an AlertPatch, the same on the monitoring and the resources
// route: acknowledging is the one change allowed.
func PatchAlert(c *api.Call, as api.Alerts, scope *string, id string) (any, error) {
	var b AlertPatch
	if err := c.Decode(&b); err != nil {
		return nil, err
	}
	cur, err := as.Get(c.Context(), id, scope)
	if err != nil {
		return nil, err
	}
	if b.TenantID != nil && (cur.TenantID == nil || *b.TenantID != *cur.TenantID) {
		return nil, apierr.Invalid(apierr.Field("tenant_id", "is read-only"))
	}
	if b.Status == nil || *b.Status != alerts.AlertAcknowledged {
		return nil, apierr.Invalid(apierr.Field("status", "the only change allowed is status: acknowledged"))
	}
	return as.Acknowledge(c.Context(), id, scope)
}

// insightRoutes are the operator's insights: faulty deployments and the cluster forecast.
func (h *handlers) insightRoutes() []api.Route {
	tag := "monitoring"
	return []api.Route{
		{Method: "GET", Path: "/api/monitoring/insights/faulty-deployments", Access: api.AdminOnly, Handler: h.faultyDeployments, Tag: tag,
			Summary:     "Machines whose deployment looks faulty",
			Description: "Machines whose deployment failed, that crash-loop, fail tasks repeatedly or fail their health checks right after deployment. For operators (role admin); other users get 403.",
			Reply:       monitoring.FaultyDeployments{}},
		{Method: "GET", Path: "/api/monitoring/insights/cluster-forecast", Access: api.AdminOnly, Handler: h.clusterForecast, Tag: tag,
			Summary: "Daily cpu, memory and disk usage, its least-squares trend, and the day it reaches capacity",
			Reply:   monitoring.ClusterForecast{},
			Query:   map[string]string{"horizon_days": "how far ahead to look for exhaustion, 1..365 days (default 30)"}},
	}
}

func (h *handlers) faultyDeployments(c *api.Call) (any, error) {
	return h.svc.Insights.FaultyDeployments(c.Context())
}

func (h *handlers) clusterForecast(c *api.Call) (any, error) {
	horizon := 30
	if v := c.Query("horizon_days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > monitoring.MaxForecastHorizon {
			return nil, apierr.Invalid(apierr.Field("horizon_days", "must be a whole number of days, 1..%d", monitoring.MaxForecastHorizon))
		}
		horizon = n
	}
	return h.svc.History.Forecast(c.Context(), horizon, time.Now())
}
