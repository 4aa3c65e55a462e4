package httpedge

import (
	"context"
	"encoding/base64"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// virtRoutes are the operator's hypervisor routes under prefix (/api/virt, and the
// driver's own name, /api/sim or /api/proxmox).
func (s *Server) virtRoutes(prefix string) []Route {
	tag := "hypervisor"
	tf := map[string]string{"timeframe": "hour (default), day, week, month or year"}
	page := pageQuery
	routes := []Route{
		{Method: "POST", Path: prefix + "/sync", Access: AdminOnly, Handler: s.sync, Tag: tag,
			Summary: "Reconcile the store with the hypervisor's inventory", Reply: machines.SyncResult{},
			Exempt: "a sync only brings the store in line with the hypervisor, so running it again under a new key is harmless"},
		{Method: "GET", Path: prefix + "/vms", Access: AdminOnly, Handler: s.listMachines, Tag: tag,
			Summary: "List machines", Reply: Page[machines.Machine]{}, Query: withPage(machineQuery), QueryTypes: machineQueryTypes},
		{Method: "GET", Path: prefix + "/vms/{id}", Access: AdminOnly, Handler: s.getMachine, Tag: tag,
			Summary: "One machine (by id or vmid)", Reply: machines.Machine{}},
		{Method: "POST", Path: prefix + "/vms/{id}/actions/{action}", Access: AdminOnly, Handler: s.machineAction, Tag: tag,
			Summary: "Run a power action on a machine",
			Description: "Power action: start, stop, shutdown, reboot, reset, suspend, resume (aliases restart, poweroff, kill, boot); another action is 400 listing the allowed ones. " +
				"The work runs as a task: the answer is 202 with the task, and its Location is the task to follow. A machine busy with another task is 409 operation_in_progress.",
			Reply: TaskReply{}, Status: fasthttp.StatusAccepted, PathTypes: powerActionPath, Stamped: true},
		{Method: "POST", Path: prefix + "/vms/{id}/migrate", Access: AdminOnly, Handler: s.migrate, Tag: tag,
			Summary: "Move a machine to another node", Body: MigrateRequest{}, Reply: TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true},
		{Method: "PATCH", Path: prefix + "/vms/{id}/config", Access: AdminOnly, Handler: s.configure, Tag: tag,
			Summary: "Change name, cores or memory", Body: ConfigRequest{}, Reply: TaskReply{}, Status: fasthttp.StatusAccepted, Patch: true},
		{Method: "PATCH", Path: prefix + "/vms/{id}/network", Access: AdminOnly, Handler: s.network, Tag: tag,
			Summary: "Change network interfaces", Body: NetworkRequest{}, Reply: TaskReply{}, Status: fasthttp.StatusAccepted},
		{Method: "POST", Path: prefix + "/vms/{id}/disks", Access: AdminOnly, Handler: s.addDisk, Tag: tag,
			Summary: "Attach a new disk; the task result names it", Body: DiskRequest{}, Reply: TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true},
		{Method: "POST", Path: prefix + "/vms/{id}/reinstall", Access: AdminOnly, Handler: s.reinstall, Tag: tag,
			Summary: "Rebuild the system disk from a template", Body: ReinstallRequest{}, Reply: TaskReply{}, Status: fasthttp.StatusAccepted, Stamped: true},
		{Method: "GET", Path: prefix + "/vms/{id}/console", Access: AdminOnly, Handler: s.console, Tag: tag,
			Summary: "A single-use ticket and the websocket of the machine's console",
			Description: "path is the console websocket's path with the ticket, to be joined to the origin the client uses (ws:// or wss://); " +
				"url is the absolute URL when the server has a public URL set (VMPLANE_PUBLIC_URL), else the same as path: the request's Host header is never used. " +
				"The ticket works once, for 60 s. A stopped machine has no console (409).",
			Reply: ConsoleReply{}},
		{Method: "GET", Path: prefix + "/vms/{id}/console/ws", Access: Public, Handler: s.consoleSocket, Tag: tag,
			Summary: "Open the console websocket",
			Description: "Upgrades to a websocket bridged to the machine's console (101 Switching Protocols). The ticket query parameter is the credential, not a bearer token: " +
				"a missing, used or expired ticket is 401; a request that is not a websocket upgrade (version 13, with a key) is 400 and does not spend the ticket.",
			Query: map[string]string{"ticket": "the ticket from GET .../console (single use, 60 s)"}, Status: fasthttp.StatusSwitchingProtocols,
			Errors: []int{fasthttp.StatusUnauthorized}},
		{Method: "GET", Path: prefix + "/vms/{id}/usage-graphs", Access: AdminOnly, Handler: s.machineUsage, Tag: tag,
			Summary: "A machine's usage graph", Reply: hypervisor.UsageGraph{}, Query: tf},
		{Method: "GET", Path: prefix + "/nodes", Access: AdminOnly, Handler: s.listNodes, Tag: tag,
			Summary: "List nodes", Reply: Page[machines.Node]{}, Query: page},
		{Method: "GET", Path: prefix + "/nodes/{id}", Access: AdminOnly, Handler: s.getNode, Tag: tag,
			Summary: "One node", Reply: machines.Node{}},
		{Method: "GET", Path: prefix + "/nodes/{id}/usage-graphs", Access: AdminOnly, Handler: s.nodeUsage, Tag: tag,
			Summary: "A node's usage graph", Reply: hypervisor.UsageGraph{}, Query: tf},
		{Method: "GET", Path: prefix + "/cluster/usage-graphs", Access: AdminOnly, Handler: s.clusterUsage, Tag: tag,
			Summary: "The cluster's usage graph: the graphs of the nodes that answered summed bucket by bucket; missing_nodes names the others", Reply: machines.ClusterUsage{}, Query: tf},
		{Method: "GET", Path: prefix + "/templates", Access: AdminOnly, Handler: s.listTemplates, Tag: tag,
			Summary: "OS templates known from the last sync", Reply: Page[hypervisor.Template]{}, Query: page},
	}
	for i := range routes {
		rt := &routes[i]
		rt.Description = describe(rt) + " Also served under /api/<driver>/" + strings.TrimPrefix(rt.Path, "/api/virt/") +
			" (/api/sim or /api/proxmox, after the deployment's driver): an alias of this operation, not listed in this document."
	}
	return routes
}

// powerActionPath types the {action} of the power routes: the actions and their aliases.
var powerActionPath = func() map[string]QueryType {
	var names []string
	for _, a := range hypervisor.PowerActions {
		names = append(names, string(a))
	}
	names = append(names, slices.Sorted(maps.Keys(machines.PowerActionAliases))...)
	return map[string]QueryType{"action": {Enum: names}}
}()

// Page is the shape of every list answer.
type Page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

func page[T any](items []T, next string) Page[T] {
	p := Page[T]{Items: items}
	if next != "" {
		p.NextCursor = &next
	}
	return p
}

// paging reads ?limit= (default 50, 1..500) and ?cursor=.
func (c *Call) paging() (int, string, error) {
	limit := 50
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			return 0, "", apierr.Invalid(apierr.Field("limit", "must be 1..500"))
		}
		limit = n
	}
	cursor := c.Query("cursor")
	if len(cursor) > 128 {
		return 0, "", apierr.Invalid(apierr.Field("cursor", "is not a cursor of this list"))
	}
	return limit, cursor, nil
}

// TaskReply is the 202 answer of slow work.
type TaskReply struct {
	Task machines.Task `json:"task"`
}

func accepted(t machines.Task) Reply {
	return Accepted(TaskReply{Task: t}, "/api/tasks/"+t.ID)
}

// MigrateRequest is the body of POST .../migrate.
type MigrateRequest struct {
	TargetNode string `json:"target_node" openapi:"required,minLength=1,limit=hypervisor.name"`
	// Online defaults to whether the machine is running.
	Online *bool `json:"online,omitempty"`
}

// ConfigRequest is the body of PATCH .../config.
type ConfigRequest struct {
	Name     *string `json:"name,omitempty" openapi:"limit=machine.name"`
	CPUCores *int    `json:"cpu_cores,omitempty" openapi:"limit=machine.cores"`
	MemoryMB *int    `json:"memory_mb,omitempty" openapi:"limit=machine.memory_mb"`
}

// NetworkRequest is the body of PATCH .../network.
type NetworkRequest struct {
	Interfaces []hypervisor.InterfaceChange `json:"interfaces" openapi:"required,minItems=1,limit=hypervisor.interfaces"`
}

// DiskRequest is the body of POST .../disks.
type DiskRequest struct {
	SizeGB  int    `json:"size_gb" openapi:"required,limit=machine.disk_gb"`
	Storage string `json:"storage,omitempty" openapi:"minLength=1,limit=hypervisor.name"`
}

// ReinstallRequest is the body of POST .../reinstall.
type ReinstallRequest struct {
	TemplateID string   `json:"template_id" openapi:"required,minLength=1,limit=id"`
	Password   string   `json:"password,omitempty" openapi:"limit=machine.password"`
	SSHKeys    []string `json:"ssh_keys,omitempty" openapi:"limit=machine.ssh_keys,items.limit=machine.ssh_key"`
}

// ConsoleReply is the answer of GET .../console. URL is absolute (ws:// or wss://) only
// when the server has a public URL configured; otherwise it equals Path, a path with
// the ticket that the client joins to the origin it reached the server at.
type ConsoleReply struct {
	Type      string    `json:"type"`
	URL       string    `json:"url"`
	Path      string    `json:"path"`
	Ticket    string    `json:"ticket"`
	ExpiresAt time.Time `json:"expires_at"`
}

// scope is the tenant a caller is confined to; nil for operators.
func (c *Call) scope() *string {
	if c.IsAdmin() {
		return nil
	}
	if c.Principal == nil || c.Principal.TenantID == nil {
		none := ""
		return &none
	}
	t := *c.Principal.TenantID
	return &t
}

func (s *Server) sync(c *Call) (any, error) {
	return s.svc.Inventory.Sync(c.Context())
}

func (s *Server) listMachines(c *Call) (any, error) {
	limit, cursor, err := c.paging()
	if err != nil {
		return nil, err
	}
	var tenant *string
	if t := c.Query("tenant_id"); t != "" {
		tenant = &t
	}
	items, next, err := s.listMachinesOf(c, tenant, cursor, limit)
	if err != nil {
		return nil, err
	}
	return page(items, next), nil
}

func (s *Server) getMachine(c *Call) (any, error) {
	return s.svc.Machines.Get(c.Context(), c.Param("id"), c.scope())
}

func (s *Server) startOp(c *Call, op machines.Operation) (any, error) {
	t, err := s.svc.Machines.Start(c.Context(), c.Param("id"), op, c.scope())
	if err != nil {
		return nil, err
	}
	return accepted(t), nil
}

func (s *Server) machineAction(c *Call) (any, error) {
	action, err := machines.ParsePowerAction(c.Param("action"))
	if err != nil {
		return nil, err
	}
	return s.startOp(c, machines.Operation{Type: machines.OpPower, Action: action})
}

func (s *Server) migrate(c *Call) (any, error) {
	var req MigrateRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	op := machines.Operation{Type: machines.OpMigrate, TargetNode: req.TargetNode, AutoOnline: req.Online == nil}
	if req.Online != nil {
		op.Online = *req.Online
	}
	return s.startOp(c, op)
}

func (s *Server) configure(c *Call) (any, error) {
	var req ConfigRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return s.startOp(c, machines.Operation{Type: machines.OpConfig,
		Config: &hypervisor.ConfigChange{Name: req.Name, CPUCores: req.CPUCores, MemoryMB: req.MemoryMB}})
}

func (s *Server) network(c *Call) (any, error) {
	var req NetworkRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return s.startOp(c, machines.Operation{Type: machines.OpNetwork, Interfaces: req.Interfaces})
}

func (s *Server) addDisk(c *Call) (any, error) {
	var req DiskRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return s.startOp(c, machines.Operation{Type: machines.OpAddDisk, DiskSizeGB: req.SizeGB, DiskStorage: req.Storage})
}

func (s *Server) reinstall(c *Call) (any, error) {
	var req ReinstallRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return s.startOp(c, machines.Operation{Type: machines.OpReinstall,
		Reinstall: &hypervisor.ReinstallSpec{TemplateID: req.TemplateID, Password: req.Password, SSHKeys: req.SSHKeys}})
}

func (s *Server) getTask(c *Call) (any, error) {
	return s.svc.Tasks.Get(c.Context(), c.Param("id"), c.scope())
}

func (c *Call) timeframe() (hypervisor.Timeframe, error) {
	v := c.Query("timeframe")
	if v == "" {
		return hypervisor.TimeframeHour, nil
	}
	tf := hypervisor.Timeframe(v)
	if _, _, ok := tf.Resolution(); !ok {
		names := make([]string, len(hypervisor.Timeframes))
		for i, t := range hypervisor.Timeframes {
			names[i] = string(t)
		}
		e := apierr.Invalid(apierr.Field("timeframe", "must be one of %s", strings.Join(names, ", ")))
		e.Allowed = names
		return "", e
	}
	return tf, nil
}

func (s *Server) machineUsage(c *Call) (any, error) {
	tf, err := c.timeframe()
	if err != nil {
		return nil, err
	}
	return s.svc.Machines.Usage(c.Context(), c.Param("id"), tf, c.scope())
}

func (s *Server) nodeUsage(c *Call) (any, error) {
	tf, err := c.timeframe()
	if err != nil {
		return nil, err
	}
	return s.svc.Nodes.Usage(c.Context(), c.Param("id"), tf, time.Time{})
}

func (s *Server) clusterUsage(c *Call) (any, error) {
	tf, err := c.timeframe()
	if err != nil {
		return nil, err
	}
	return s.svc.Inventory.Usage(c.Context(), tf)
}

func (s *Server) listNodes(c *Call) (any, error) {
	limit, cursor, err := c.paging()
	if err != nil {
		return nil, err
	}
	items, next, err := s.svc.Nodes.List(c.Context(), cursor, limit)
	if err != nil {
		return nil, err
	}
	return page(items, next), nil
}

func (s *Server) getNode(c *Call) (any, error) {
	return s.svc.Nodes.Get(c.Context(), c.Param("id"))
}

func (s *Server) listTemplates(c *Call) (any, error) {
	limit, cursor, err := c.paging()
	if err != nil {
		return nil, err
	}
	items, next, err := s.svc.Inventory.TemplatePage(c.Context(), cursor, limit)
	if err != nil {
		return nil, err
	}
	return page(items, next), nil
}

func (s *Server) console(c *Call) (any, error) {
	p := c.Principal
	t, err := s.svc.Consoles.Issue(c.Context(), c.Param("id"), c.scope(),
		machines.ConsoleSession{UserID: p.Subject, SessionID: p.SessionID, Gen: p.Gen})
	if err != nil {
		return nil, err
	}
	// The path keeps the prefix of the route the caller used (/api/virt or
	// /api/<driver>) and names the machine by its id, however the caller named it.
	route, _ := c.rc.UserValue(uvRoute).(string)
	path := strings.Replace(route, "{id}", url.PathEscape(t.MachineID), 1) + "/ws?ticket=" + url.QueryEscape(t.Ticket)
	// Nothing the request carries (Host, X-Forwarded-*) goes into a URL that carries
	// the ticket: whoever caches or logs the answer would send the ticket there.
	u := path
	if base := s.websocketBase(); base != "" {
		u = base + path
	}
	return ConsoleReply{Type: t.Type, URL: u, Path: path, Ticket: t.Ticket, ExpiresAt: t.ExpiresAt}, nil
}

// websocketBase is the ws:// or wss:// form of the configured public URL; "" without
// one.
func (s *Server) websocketBase() string {
	u := strings.TrimSuffix(s.opts.PublicURL, "/")
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		return "wss://" + rest
	}
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		return "ws://" + rest
	}
	return ""
}

// validWebsocketKey reports a Sec-WebSocket-Key the upgrader accepts (RFC 6455 4.1:
// 16 bytes in base64).
func validWebsocketKey(k []byte) bool {
	n, err := base64.StdEncoding.Decode(make([]byte, base64.StdEncoding.DecodedLen(len(k))), k)
	return err == nil && n == 16
}

// upgraded tells writeResult that the connection now belongs to a websocket.
type upgraded struct{}

var consoleUpgrader = websocket.FastHTTPUpgrader{
	// The single-use ticket is the credential, not cookies, so cross-origin pages gain
	// nothing from a browser's ambient authority here.
	CheckOrigin:     func(*fasthttp.RequestCtx) bool { return true },
	ReadBufferSize:  4096,
	WriteBufferSize: 4096,
}

func (s *Server) consoleSocket(c *Call) (any, error) {
	// The whole handshake is checked before the ticket is spent: a malformed upgrade
	// must not burn a single-use ticket.
	h := &c.rc.Request.Header
	if !websocket.FastHTTPIsWebSocketUpgrade(c.rc) || string(h.Peek("Sec-WebSocket-Version")) != "13" ||
		!validWebsocketKey(h.Peek("Sec-WebSocket-Key")) {
		return nil, apierr.New(apierr.ErrInvalidRequest, "this route needs a websocket upgrade (version 13, with a key of 16 bytes in base64)")
	}
	con, who, err := s.svc.Consoles.Redeem(c.Context(), c.Param("id"), c.Query("ticket"))
	if err != nil {
		return nil, err
	}
	log := c.Log()
	// The session outlives its request (and the request's context): each check is
	// bounded by Authorize's own timeout.
	live := func() bool {
		return s.svc.Users.Authorize(context.Background(), who.UserID, who.SessionID, who.Gen) == nil
	}
	err = consoleUpgrader.Upgrade(c.rc, func(ws *websocket.Conn) {
		// fasthttp runs this on a goroutine of its own, outside the edge's recovery.
		defer kit.Recover(log, "console session", nil)
		bridgeConsole(log, ws, con, live, consoleSessionCheck)
		log.Debug("console session ended")
	})
	if err != nil {
		con.Close()
		return nil, apierr.New(apierr.ErrInvalidRequest, "websocket upgrade failed")
	}
	return upgraded{}, nil
}

// consoleSessionCheck is how often an open console asks whether the login that opened
// it still stands: a logout, or a deleted, disabled or changed user, ends the console
// within this time. A check is a map lookup.
const consoleSessionCheck = time.Second

// bridgeConsole copies between a websocket and a console until either ends, or until
// live, asked every check, says the login that opened it has ended. It returns only
// when every goroutine has stopped: fasthttp reuses the hijacked connection once the
// hijack handler returns, so no goroutine may touch the socket after that.
func bridgeConsole(log *zap.Logger, ws *websocket.Conn, con hypervisor.Console, live func() bool, check time.Duration) {
	var wg sync.WaitGroup
	wg.Add(2)
	stop := make(chan struct{})
	// Deferred, so that a panic in the driver's console still ends both directions.
	defer func() {
		close(stop)
		con.Close() // unblocks the console reader
		wg.Wait()
		ws.Close()
	}()
	go func() { // the login's watch; WriteControl may run beside the writer below
		defer wg.Done()
		defer kit.Recover(log, "console session watch", nil)
		t := time.NewTicker(check)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if live() {
					continue
				}
				log.Info("console closed: its login ended")
				_ = ws.WriteControl(websocket.CloseMessage,
					websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "session ended"), time.Now().Add(time.Second))
				con.Close()
				_ = ws.SetReadDeadline(time.Now())
				return
			}
		}
	}()
	go func() { // console → websocket; the only writer of ws
		defer wg.Done()
		// Wake the websocket reader below, however this direction ends.
		defer func() { _ = ws.SetReadDeadline(time.Now()) }()
		defer kit.Recover(log, "console session", nil)
		buf := make([]byte, 4096)
		for {
			n, err := con.Read(buf)
			if n > 0 {
				kind := websocket.BinaryMessage
				if utf8.Valid(buf[:n]) {
					kind = websocket.TextMessage
				}
				if werr := ws.WriteMessage(kind, buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				_ = ws.WriteControl(websocket.CloseMessage,
					websocket.FormatCloseMessage(websocket.CloseNormalClosure, "console closed"), time.Now().Add(time.Second))
				break
			}
		}
	}()
	for { // websocket → console
		_, data, err := ws.ReadMessage()
		if err != nil {
			break
		}
		if _, err := con.Write(data); err != nil {
			break
		}
	}
}
