package httpedge

import (
	"slices"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/cluster"
)

// routeTable is every route of the API, as data: method, path, who may call it, the
// handler and its documentation. The OpenAPI document is generated from this table.
func (s *Server) routeTable() []Route {
	routes := []Route{
		{Method: "GET", Path: "/api/health", Access: Public, Handler: s.health, Tag: "system",
			Summary: "Liveness and dependency health", Reply: HealthReply{}, Also: map[int]any{fasthttp.StatusServiceUnavailable: HealthReply{}},
			Description: "Answers 200 with status ok when the store and the hypervisor are healthy, and 503 with status degraded and the failing checks otherwise (also while the server shuts down). Needs no token. On a cluster member it answers from what the member already knows (its lease, the last probe of etcd) and never waits on etcd."},
		{Method: "GET", Path: "/api/openapi.json", Access: Public, Handler: s.openapi, Tag: "system",
			Summary: "This API's OpenAPI 3.1 document", Reply: RawBody{ContentType: "application/json"}},
		{Method: "GET", Path: "/metrics", Access: Public, Handler: s.prometheus, Tag: "system",
			Summary: "Prometheus metrics", Reply: RawBody{ContentType: "text/plain"},
			Description: "Metrics in the Prometheus text exposition format (Content-Type text/plain with version=0.0.4 and charset parameters). Needs no token; expose it only where scrapers can reach it."},

		{Method: "POST", Path: "/api/auth/login", Access: Public, Handler: s.login, Tag: "auth",
			Summary: "Log in with e-mail and password", Body: LoginRequest{}, Reply: TokenReply{}, Errors: []int{fasthttp.StatusUnauthorized},
			Description: "Answers an access token, a refresh token and the user. A missing or empty e-mail or password is 400 naming the field; a wrong e-mail or password is 401 invalid_credentials (the two are not told apart). " +
				"Only failed logins count against the login limits: per e-mail and client address (429), and per e-mail over all addresses, beyond which an address with no failures is answered after a delay. " +
				"A login being checked holds a reservation that a success gives back; one for which such reservations hold the budget failures left waits for them (at most 10 s, then 429). " +
				"A 429's detail names the limit that refused, and its Retry-After and RateLimit headers are that limit's."},
		{Method: "POST", Path: "/api/auth/refresh", Access: Public, Handler: s.refresh, Tag: "auth",
			Summary: "Rotate a refresh token for a new token pair", Body: RefreshRequest{}, Reply: TokenReply{}, Errors: []int{fasthttp.StatusUnauthorized},
			Description: "Spends the refresh token and answers a new access and refresh token. A missing refresh_token is 400; an unknown, spent or expired one is 401 invalid_refresh_token, and reusing a spent one ends the whole login."},
		{Method: "GET", Path: "/api/auth/me", Access: Authenticated, Handler: s.me, Tag: "auth",
			Summary: "The calling user", Reply: auth.User{}},
		{Method: "POST", Path: "/api/auth/logout", Access: Authenticated, Handler: s.logout, Tag: "auth",
			Summary: "End a login: its refresh tokens and its access tokens", Body: RefreshRequest{}, Status: fasthttp.StatusNoContent,
			Exempt: "a logout creates nothing: once it applied, its retry's access token is revoked (401), and a logout can always be sent again with a new key"},

		{Method: "POST", Path: "/api/auth/password", Access: Authenticated, Handler: s.changePassword, Tag: "auth",
			Summary: "Change the caller's own password", Body: PasswordChange{}, Reply: TokenReply{},
			Description: "Checks current_password (a wrong one is 400 naming it, and counts against the login limits of the caller's e-mail, as a failed login does: 429 past them), sets new_password, and ends every other session of the user at once. The caller's session stays: the answer is its new access token (every access token issued before the change ends) and its refresh token, which goes on working.",
			Exempt:      "the answer is a token pair, which an idempotency record must not keep; after an unknown outcome, sign in with the new password"},
		{Method: "GET", Path: "/api/auth/sessions", Access: Authenticated, Handler: s.listSessions, Tag: "auth",
			Summary: "The caller's sessions (logins that have not ended), newest first", Reply: Page[auth.SessionInfo]{}, Query: pageQuery,
			Description: "Each login: when it was opened and last renewed (a sign-in or a refresh), when it expires, the client address and user agent it was opened from, and how (method). The session of the asking token is marked current."},
		{Method: "DELETE", Path: "/api/auth/sessions/{id}", Access: Authenticated, Handler: s.endSession, Tag: "auth",
			Summary: "End one of the caller's sessions: its refresh tokens and, at once, its access tokens", Status: fasthttp.StatusNoContent,
			Description: "Ending the asking token's own session is a logout. A session that has ended already, or is another user's, is 404."},

		{Method: "GET", Path: "/api/tasks/{id}", Access: Authenticated, Handler: s.getTask, Tag: "tasks",
			Summary: "One task (a tenant user sees only its tenant's)", Reply: machines.Task{}},
	}
	if s.opts.SeparateMetrics { // served on a listener of its own (MetricsServer)
		routes = slices.DeleteFunc(routes, func(r Route) bool { return r.Path == "/metrics" })
	}
	routes = append(routes, s.virtRoutes("/api/virt")...)
	routes = append(routes, s.clientRoutes()...)
	routes = append(routes, s.scheduleRoutes()...)
	routes = append(routes, s.eventRoutes()...)
	routes = append(routes, s.monitoringRoutes()...)
	routes = append(routes, s.insightRoutes()...)
	routes = append(routes, s.resourceRoutes()...)
	routes = append(routes, s.adminRoutes()...)
	// The same routes answer under the driver's own name: /api/sim/..., /api/proxmox/...
	// They are not documented (the /api/virt routes say so in their descriptions): a
	// generated client would get two of everything, named after one deployment's driver.
	if s.svc.System != nil && s.svc.System.Driver() != nil {
		if name := s.svc.System.Driver().Name(); name != "virt" && name != "" {
			alias := s.virtRoutes("/api/" + name)
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

func (s *Server) health(c *Call) (any, error) {
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
		return Reply{Status: fasthttp.StatusServiceUnavailable, Body: r}, nil
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

func (s *Server) prometheus(c *Call) (any, error) {
	s.metrics.handler(c.rc)
	return nil, nil
}
