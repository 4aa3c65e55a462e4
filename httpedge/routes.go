// Package httpedge is vmplane's HTTP edge: the fasthttp server, middleware (request id,
// panic recovery, body limit, rate limits, JWT check, idempotency, metrics), strict
// JSON answers, the mapping of typed errors to problem JSON, and the route table as
// data, assembled here from the areas' routes (packages virt, clientarea, monitor,
// resources and accounts; what they share is in package api) with the system's own
// routes (health, metrics, the OpenAPI document generated from the table by package
// openapi, events, backup).
package httpedge

import (
	"slices"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/cluster"
	"github.com/vmplane/vmplane/httpedge/accounts"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/clientarea"
	"github.com/vmplane/vmplane/httpedge/monitor"
	"github.com/vmplane/vmplane/httpedge/resources"
	"github.com/vmplane/vmplane/httpedge/virt"
)

// routeTable is every route of the API, as data: method, path, who may call it, the
// handler and its documentation. The OpenAPI document is generated from this table,
// in this order: the system's routes, the account routes, the task route, then each
// area's routes (package api holds what they share).
func (s *Server) routeTable() []api.Route {
	routes := []api.Route{
		{Method: "GET", Path: "/api/health", Access: api.Public, Handler: s.health, Tag: "system",
			Summary: "Liveness and dependency health", Reply: HealthReply{}, Also: map[int]any{fasthttp.StatusServiceUnavailable: HealthReply{}},
			Description: "Answers 200 with status ok when the store and the hypervisor are healthy, and 503 with status degraded and the failing checks otherwise (also while the server shuts down). Needs no token. On a cluster member it answers from what the member already knows (its lease, the last probe of etcd) and never waits on etcd."},
		{Method: "GET", Path: "/api/openapi.json", Access: api.Public, Handler: s.openapi, Tag: "system",
			Summary: "This API's OpenAPI 3.1 document", Reply: api.RawBody{ContentType: "application/json"}},
		{Method: "GET", Path: "/metrics", Access: api.Public, Handler: s.prometheus, Tag: "system",
			Summary: "Prometheus metrics", Reply: api.RawBody{ContentType: "text/plain"},
			Description: "Metrics in the Prometheus text exposition format (Content-Type text/plain with version=0.0.4 and charset parameters). Needs no token; expose it only where scrapers can reach it."},
	}
	routes = append(routes, accounts.Routes(accounts.Options{Services: s.svc, Tokens: s.tokens, Log: s.log, Limited: s.metrics.limited, Issuer: s.opts.TOTPIssuer, PublicURL: s.opts.PublicURL, OIDC: s.opts.OIDC})...)
	routes = append(routes, api.Route{Method: "GET", Path: "/api/tasks/{id}", Access: api.Authenticated, Handler: s.getTask, Tag: "tasks",
		Summary: "One task (a tenant user sees only its tenant's)", Reply: tasks.Task{}})
	if s.opts.SeparateMetrics { // served on a listener of its own (MetricsServer)
		routes = slices.DeleteFunc(routes, func(r api.Route) bool { return r.Path == "/metrics" })
	}
	routes = append(routes, virt.Routes("/api/virt", s.svc, s.opts.PublicURL, s.opts.RescueISO)...)
	routes = append(routes, clientarea.Routes(clientarea.Options{Services: s.svc, PublicURL: s.opts.PublicURL, TenantDelete: s.opts.TenantDelete,
		RequirePlans: s.opts.RequirePlans, RescueISO: s.opts.RescueISO})...)
	routes = append(routes, s.eventRoutes()...)
	routes = append(routes, monitor.Routes(s.svc)...)
	routes = append(routes, resources.Routes(s.svc, s.opts.TenantDelete, s.opts.RequirePlans)...)
	routes = append(routes, s.adminRoutes()...)
	routes = append(routes, s.auditRoutes()...)
	// The same routes answer under the driver's own name: /api/sim/..., /api/proxmox/...
	// They are not documented (the /api/virt routes say so in their descriptions): a
	// generated client would get two of everything, named after one deployment's driver.
	if s.svc.System != nil && s.svc.System.Driver() != nil {
		if name := s.svc.System.Driver().Name(); name != "virt" && name != "" {
			alias := virt.Routes("/api/"+name, s.svc, s.opts.PublicURL, s.opts.RescueISO)
			for i := range alias {
				alias[i].Hidden = true
			}
			routes = append(routes, alias...)
		}
	}
	return routes
}

// HealthReply is the body of GET /api/health.
type HealthReply struct {
	Status  string        `json:"status"`
	Version string        `json:"version"`
	UptimeS int64         `json:"uptime_s"`
	Checks  actors.Health `json:"checks"`
	// Cluster is present on a cluster member only.
	Cluster *ClusterHealth `json:"cluster,omitempty"`
}

// ClusterHealth is the cluster as one member sees it.
type ClusterHealth struct {
	Node  string `json:"node"`
	Store string `json:"store" openapi:"enum=etcd"`
	// Lease is the member's lease: held (renewed in time), unconfirmed (etcd away, or
	// not yet saying whether it survived an outage) or lost. Only held is healthy.
	Lease   string                 `json:"lease" openapi:"enum=held|unconfirmed|lost"`
	Members []cluster.MemberStatus `json:"members"`
}

func (s *Server) health(c *api.Call) (any, error) {
	h := s.svc.System.Health(c.Context())
	r := HealthReply{Status: "ok", Version: s.opts.Version, UptimeS: int64(time.Since(s.started).Seconds()), Checks: h}
	member := true
	if m := s.opts.Cluster; m != nil {
		lease := m.LeaseStatus()
		r.Cluster = &ClusterHealth{Node: m.Name(), Store: "etcd", Lease: lease, Members: m.Members()}
		member = lease == cluster.LeaseHeld
	}
	if !h.OK() || s.closing.Load() || !member {
		r.Status = "degraded"
		return api.Reply{Status: fasthttp.StatusServiceUnavailable, Body: r}, nil
	}
	return r, nil
}

// MetricsServer serves GET /metrics, and nothing else (404), for a listener apart from
// the API's (Options.SeparateMetrics): metrics can then stay on a private address
// while the API is public. Requests to it are not counted in the API's metrics.
func (s *Server) MetricsServer() *fasthttp.Server {
	return &fasthttp.Server{
		Name:                         "vmplane",
		ReadTimeout:                  s.opts.HeaderTimeout,
		WriteTimeout:                 30 * time.Second,
		IdleTimeout:                  s.opts.IdleTimeout,
		NoDefaultContentType:         true,
		DisablePreParseMultipartForm: true,
		Logger:                       zap.NewStdLog(s.log.Named("metrics")),
		Handler: func(rc *fasthttp.RequestCtx) {
			switch {
			case string(rc.Path()) != "/metrics":
				rc.Error("404 not found: this listener serves /metrics only\n", fasthttp.StatusNotFound)
			case !rc.IsGet() && !rc.IsHead():
				rc.Response.Header.Set("Allow", "GET, HEAD")
				rc.Error("405 method not allowed\n", fasthttp.StatusMethodNotAllowed)
			default:
				s.metrics.handler(rc)
			}
		},
	}
}

func (s *Server) prometheus(c *api.Call) (any, error) {
	s.metrics.handler(c.RequestCtx())
	return nil, nil
}

func (s *Server) getTask(c *api.Call) (any, error) {
	return s.svc.Tasks.Get(c.Context(), c.Param("id"), c.Scope())
}
