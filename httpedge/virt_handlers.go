package httpedge

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// virtRoutes are the operator's hypervisor routes under prefix (/api/virt, and the
// driver's own name, /api/sim or /api/proxmox).
func (s *Server) virtRoutes(prefix string) []Route {
	tag := "hypervisor"
	tf := map[string]string{"timeframe": "hour (default), day, week, month or year"}
	page := map[string]string{"limit": "page size, 1..500 (default 50)", "cursor": "next_cursor of the previous page"}
	return []Route{
		{Method: "POST", Path: prefix + "/sync", Access: AdminOnly, Handler: s.sync, Tag: tag,
			Summary: "Reconcile the store with the hypervisor's inventory", Reply: actors.SyncResult{}},
		{Method: "GET", Path: prefix + "/vms", Access: AdminOnly, Handler: s.listMachines, Tag: tag,
			Summary: "List machines", Reply: Page[actors.Machine]{}, Query: page},
		{Method: "GET", Path: prefix + "/vms/{id}", Access: AdminOnly, Handler: s.getMachine, Tag: tag,
			Summary: "One machine (by id or vmid)", Reply: actors.Machine{}},
		{Method: "POST", Path: prefix + "/vms/{id}/actions/{action}", Access: AdminOnly, Handler: s.machineAction, Tag: tag,
			Summary: "Power action: start, stop, shutdown, reboot, reset, suspend, resume (aliases restart, poweroff, kill, boot)",
			Reply:   TaskReply{}, Status: fasthttp.StatusAccepted},
		{Method: "POST", Path: prefix + "/vms/{id}/migrate", Access: AdminOnly, Handler: s.migrate, Tag: tag,
			Summary: "Move a machine to another node", Body: MigrateRequest{}, Reply: TaskReply{}, Status: fasthttp.StatusAccepted},
		{Method: "PATCH", Path: prefix + "/vms/{id}/config", Access: AdminOnly, Handler: s.configure, Tag: tag,
			Summary: "Change name, cores or memory", Body: ConfigRequest{}, Reply: TaskReply{}, Status: fasthttp.StatusAccepted},
		{Method: "PATCH", Path: prefix + "/vms/{id}/network", Access: AdminOnly, Handler: s.network, Tag: tag,
			Summary: "Change network interfaces", Body: NetworkRequest{}, Reply: TaskReply{}, Status: fasthttp.StatusAccepted},
		{Method: "POST", Path: prefix + "/vms/{id}/disks", Access: AdminOnly, Handler: s.addDisk, Tag: tag,
			Summary: "Attach a new disk; the task result names it", Body: DiskRequest{}, Reply: TaskReply{}, Status: fasthttp.StatusAccepted},
		{Method: "POST", Path: prefix + "/vms/{id}/reinstall", Access: AdminOnly, Handler: s.reinstall, Tag: tag,
			Summary: "Rebuild the system disk from a template", Body: ReinstallRequest{}, Reply: TaskReply{}, Status: fasthttp.StatusAccepted},
		{Method: "GET", Path: prefix + "/vms/{id}/console", Access: AdminOnly, Handler: s.console, Tag: tag,
			Summary: "A single-use ticket and the websocket URL of the machine's console", Reply: ConsoleReply{}},
		{Method: "GET", Path: prefix + "/vms/{id}/console/ws", Access: Public, Handler: s.consoleSocket, Tag: tag,
			Summary: "The console websocket (the ticket query parameter is the credential; 101 on success)",
			Query:   map[string]string{"ticket": "the ticket from GET .../console (single use, 60 s)"}, Status: fasthttp.StatusSwitchingProtocols},
		{Method: "GET", Path: prefix + "/vms/{id}/usage-graphs", Access: AdminOnly, Handler: s.machineUsage, Tag: tag,
			Summary: "A machine's usage graph", Reply: hypervisor.UsageGraph{}, Query: tf},
		{Method: "GET", Path: prefix + "/nodes", Access: AdminOnly, Handler: s.listNodes, Tag: tag,
			Summary: "List nodes", Reply: Page[actors.Node]{}, Query: page},
		{Method: "GET", Path: prefix + "/nodes/{id}", Access: AdminOnly, Handler: s.getNode, Tag: tag,
			Summary: "One node", Reply: actors.Node{}},
		{Method: "GET", Path: prefix + "/nodes/{id}/usage-graphs", Access: AdminOnly, Handler: s.nodeUsage, Tag: tag,
			Summary: "A node's usage graph", Reply: hypervisor.UsageGraph{}, Query: tf},
		{Method: "GET", Path: prefix + "/cluster/usage-graphs", Access: AdminOnly, Handler: s.clusterUsage, Tag: tag,
			Summary: "The cluster's usage graph: the nodes' graphs summed bucket by bucket", Reply: hypervisor.UsageGraph{}, Query: tf},
		{Method: "GET", Path: prefix + "/templates", Access: AdminOnly, Handler: s.listTemplates, Tag: tag,
			Summary: "OS templates known from the last sync", Reply: Page[hypervisor.Template]{}},
	}
}

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
	Task actors.Task `json:"task"`
}

func accepted(t actors.Task) Reply {
	return Accepted(TaskReply{Task: t}, "/api/tasks/"+t.ID)
}

// MigrateRequest is the body of POST .../migrate.
type MigrateRequest struct {
	TargetNode string `json:"target_node"`
	// Online defaults to whether the machine is running.
	Online *bool `json:"online,omitempty"`
}

// ConfigRequest is the body of PATCH .../config.
type ConfigRequest struct {
	Name     *string `json:"name,omitempty"`
	CPUCores *int    `json:"cpu_cores,omitempty"`
	MemoryMB *int    `json:"memory_mb,omitempty"`
}

// NetworkRequest is the body of PATCH .../network.
type NetworkRequest struct {
	Interfaces []hypervisor.InterfaceChange `json:"interfaces"`
}

// DiskRequest is the body of POST .../disks.
type DiskRequest struct {
	SizeGB  int    `json:"size_gb"`
	Storage string `json:"storage,omitempty"`
}

// ReinstallRequest is the body of POST .../reinstall.
type ReinstallRequest struct {
	TemplateID string   `json:"template_id"`
	Password   string   `json:"password,omitempty"`
	SSHKeys    []string `json:"ssh_keys,omitempty"`
}

// ConsoleReply is the answer of GET .../console.
type ConsoleReply struct {
	Type      string    `json:"type"`
	URL       string    `json:"url"`
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
	return s.sys.Cluster.Sync(c.Context())
}

func (s *Server) listMachines(c *Call) (any, error) {
	limit, cursor, err := c.paging()
	if err != nil {
		return nil, err
	}
	items, next, err := s.sys.Machines.List(c.Context(), cursor, limit, nil)
	if err != nil {
		return nil, err
	}
	return page(items, next), nil
}

func (s *Server) getMachine(c *Call) (any, error) {
	return s.sys.Machines.Get(c.Context(), c.Param("id"), c.scope())
}

func (s *Server) startOp(c *Call, op actors.Operation) (any, error) {
	t, err := s.sys.Machines.Start(c.Context(), c.Param("id"), op, c.scope())
	if err != nil {
		return nil, err
	}
	return accepted(t), nil
}

func (s *Server) machineAction(c *Call) (any, error) {
	action, err := actors.ParsePowerAction(c.Param("action"))
	if err != nil {
		return nil, err
	}
	return s.startOp(c, actors.Operation{Type: actors.OpPower, Action: action})
}

func (s *Server) migrate(c *Call) (any, error) {
	var req MigrateRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	op := actors.Operation{Type: actors.OpMigrate, TargetNode: req.TargetNode, AutoOnline: req.Online == nil}
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
	return s.startOp(c, actors.Operation{Type: actors.OpConfig,
		Config: &hypervisor.ConfigChange{Name: req.Name, CPUCores: req.CPUCores, MemoryMB: req.MemoryMB}})
}

func (s *Server) network(c *Call) (any, error) {
	var req NetworkRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return s.startOp(c, actors.Operation{Type: actors.OpNetwork, Interfaces: req.Interfaces})
}

func (s *Server) addDisk(c *Call) (any, error) {
	var req DiskRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return s.startOp(c, actors.Operation{Type: actors.OpAddDisk, DiskSizeGB: req.SizeGB, DiskStorage: req.Storage})
}

func (s *Server) reinstall(c *Call) (any, error) {
	var req ReinstallRequest
	if err := c.Decode(&req); err != nil {
		return nil, err
	}
	return s.startOp(c, actors.Operation{Type: actors.OpReinstall,
		Reinstall: &hypervisor.ReinstallSpec{TemplateID: req.TemplateID, Password: req.Password, SSHKeys: req.SSHKeys}})
}

func (s *Server) getTask(c *Call) (any, error) {
	return s.sys.Tasks.Get(c.Context(), c.Param("id"), c.scope())
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
	return s.sys.Machines.Usage(c.Context(), c.Param("id"), tf, c.scope())
}

func (s *Server) nodeUsage(c *Call) (any, error) {
	tf, err := c.timeframe()
	if err != nil {
		return nil, err
	}
	return s.sys.Nodes.Usage(c.Context(), c.Param("id"), tf, time.Time{})
}

func (s *Server) clusterUsage(c *Call) (any, error) {
	tf, err := c.timeframe()
	if err != nil {
		return nil, err
	}
	return s.sys.Cluster.Usage(c.Context(), tf)
}

func (s *Server) listNodes(c *Call) (any, error) {
	limit, cursor, err := c.paging()
	if err != nil {
		return nil, err
	}
	items, next, err := s.sys.Nodes.List(c.Context(), cursor, limit)
	if err != nil {
		return nil, err
	}
	return page(items, next), nil
}

func (s *Server) getNode(c *Call) (any, error) {
	return s.sys.Nodes.Get(c.Context(), c.Param("id"))
}

func (s *Server) listTemplates(c *Call) (any, error) {
	items, err := s.sys.Cluster.Templates(c.Context())
	if err != nil {
		return nil, err
	}
	return page(items, ""), nil
}

func (s *Server) console(c *Call) (any, error) {
	t, err := s.sys.Consoles.Issue(c.Context(), c.Param("id"), c.scope())
	if err != nil {
		return nil, err
	}
	// The path keeps the prefix the caller used (/api/virt or /api/<driver>).
	path := strings.TrimSuffix(string(c.rc.Path()), "/console") + "/console/ws"
	path = strings.Replace(path, "/vms/"+c.Param("id")+"/", "/vms/"+t.MachineID+"/", 1)
	url := s.websocketBase(c) + path + "?ticket=" + t.Ticket
	return ConsoleReply{Type: t.Type, URL: url, Ticket: t.Ticket, ExpiresAt: t.ExpiresAt}, nil
}

// hostRE is what a Host header may be for it to appear in a URL we hand out.
var hostRE = regexp.MustCompile(`^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$`)

// websocketBase is the ws:// or wss:// origin of this server as the caller reached it:
// the configured public URL when there is one, else the request's Host (if it is a
// plain host[:port]); with neither, an empty base leaves a path the client resolves.
func (s *Server) websocketBase(c *Call) string {
	if u := s.opts.PublicURL; u != "" {
		u = strings.TrimSuffix(u, "/")
		u = strings.Replace(u, "https://", "wss://", 1)
		return strings.Replace(u, "http://", "ws://", 1)
	}
	host := string(c.rc.Host())
	if !hostRE.MatchString(host) {
		return ""
	}
	scheme := "ws"
	if c.rc.IsTLS() || (s.fromTrustedProxy(c.rc) && strings.EqualFold(c.Header("X-Forwarded-Proto"), "https")) {
		scheme = "wss"
	}
	return scheme + "://" + host
}

func (s *Server) fromTrustedProxy(rc *fasthttp.RequestCtx) bool {
	return len(s.opts.TrustedProxies) > 0 && trusted(s.opts.TrustedProxies, rc.RemoteIP())
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
		len(h.Peek("Sec-WebSocket-Key")) == 0 {
		return nil, apierr.New(apierr.ErrInvalidRequest, "this route needs a websocket upgrade (version 13, with a key)")
	}
	con, err := s.sys.Consoles.Redeem(c.Context(), c.Param("id"), c.Query("ticket"))
	if err != nil {
		return nil, err
	}
	log := c.Log()
	err = consoleUpgrader.Upgrade(c.rc, func(ws *websocket.Conn) {
		// fasthttp runs this on a goroutine of its own, outside the edge's recovery.
		defer actors.Recover(log, "console session", nil)
		bridgeConsole(log, ws, con)
		log.Debug("console session ended")
	})
	if err != nil {
		con.Close()
		return nil, apierr.New(apierr.ErrInvalidRequest, "websocket upgrade failed")
	}
	return upgraded{}, nil
}

// bridgeConsole copies between a websocket and a console until either ends. It returns
// only when both directions have stopped: fasthttp reuses the hijacked connection once
// the hijack handler returns, so no goroutine may touch the socket after that.
func bridgeConsole(log *zap.Logger, ws *websocket.Conn, con hypervisor.Console) {
	var wg sync.WaitGroup
	wg.Add(1)
	// Deferred, so that a panic in the driver's console still ends both directions.
	defer func() {
		con.Close() // unblocks the console reader
		wg.Wait()
		ws.Close()
	}()
	go func() { // console → websocket; the only writer of ws
		defer wg.Done()
		// Wake the websocket reader below, however this direction ends.
		defer func() { _ = ws.SetReadDeadline(time.Now()) }()
		defer actors.Recover(log, "console session", nil)
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
