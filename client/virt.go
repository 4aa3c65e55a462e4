package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strings"
)

// The calls below are the operators' view of the hypervisor (/api/virt): nodes,
// inventory sync, and the machine operations beyond power and resize.

// migration is the body of MigrateMachine.
type migration struct {
	TargetNode string `json:"target_node"`
	Online     *bool  `json:"online,omitempty"`
}

// networkChange is the body of SetInterfaces.
type networkChange struct {
	Interfaces []InterfaceChange `json:"interfaces"`
}

// SyncInventory reads the hypervisor's inventory now and says what changed
// (operators); Sync is the same without the answer.
func (c *Client) SyncInventory(ctx context.Context) (*SyncResult, error) {
	return callFor[SyncResult](ctx, c, http.MethodPost, "/api/virt/sync", nil, nil)
}

// NodesPage reads one page of the hypervisor's nodes (operators).
func (c *Client) NodesPage(ctx context.Context, opt ListOptions) (Page[Node], error) {
	return getPage[Node](ctx, c, "/api/resources/nodes", opt.values())
}

// Nodes yields every node (operators).
func (c *Client) Nodes(ctx context.Context, opt ListOptions) iter.Seq2[Node, error] {
	return all(ctx, opt, c.NodesPage)
}

// GetNode reads one node (operators).
func (c *Client) GetNode(ctx context.Context, id string) (*Node, error) {
	return getRecord[Node](ctx, c, "/api/resources/nodes/"+esc(id))
}

// Console types: the serial terminal, and the graphical console (RFB, for noVNC) of
// a machine with a display (Machine.Display).
const (
	ConsoleSerial = "serial"
	ConsoleVNC    = "vnc"
)

// ConsoleTicket gets a ticket for a running machine's console of type typ
// (ConsoleSerial, "" too, or ConsoleVNC) (operators); a stopped machine has none, nor
// has a machine without a display a vnc one (ErrInvalidState).
func (c *Client) ConsoleTicket(ctx context.Context, id, typ string) (*Console, error) {
	q := url.Values{}
	if typ != "" {
		q.Set("type", typ)
	}
	return callFor[Console](ctx, c, http.MethodGet, "/api/virt/vms/"+esc(id)+"/console", q, nil)
}

// MigrateMachine moves a machine to the node target and returns the task (operators).
// online nil migrates a running machine live and a stopped one offline.
func (c *Client) MigrateMachine(ctx context.Context, id, target string, online *bool) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, path: "/api/virt/vms/" + esc(id) + "/migrate",
		body: migration{TargetNode: target, Online: online}})
}

// ConfigureMachine changes a machine's name, cores or memory and returns the task
// (operators; a tenant's user resizes with ResizeMachine and renames with
// UpdateMachine).
func (c *Client) ConfigureMachine(ctx context.Context, id string, cfg MachineConfig) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPatch, path: "/api/virt/vms/" + esc(id) + "/config", body: cfg})
}

// SetInterfaces changes network interfaces of a machine and returns the task
// (operators).
func (c *Client) SetInterfaces(ctx context.Context, id string, changes ...InterfaceChange) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPatch, path: "/api/virt/vms/" + esc(id) + "/network",
		body: networkChange{Interfaces: changes}})
}

// AddDisk attaches a new disk to a machine and returns the task, whose result names
// the disk (operators).
func (c *Client) AddDisk(ctx context.Context, id string, d DiskSpec) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, path: "/api/virt/vms/" + esc(id) + "/disks", body: d})
}

// ReinstallMachine rebuilds a machine's system disk from a template and returns the
// task (operators).
func (c *Client) ReinstallMachine(ctx context.Context, id string, r Reinstall) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, path: "/api/virt/vms/" + esc(id) + "/reinstall", body: r})
}

// VirtMachineAction starts a power action on any machine, by id or vmid, through the
// operators' hypervisor route, which also takes the aliases boot, kill, poweroff and
// restart; MachineAction is the tenant-scoped route.
func (c *Client) VirtMachineAction(ctx context.Context, id, action string) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, path: "/api/virt/vms/" + esc(id) + "/actions/" + esc(action)})
}

// ConsoleURL is the websocket URL of a console ticket: con.URL when the server gave an
// absolute one, else con.Path joined to the member the client speaks to now, as
// ws:// (or wss:// for https). A websocket library dials it; the ticket in its query
// is the credential, no bearer token is needed.
func (c *Client) ConsoleURL(con *Console) string {
	if strings.HasPrefix(con.URL, "ws://") || strings.HasPrefix(con.URL, "wss://") {
		return con.URL
	}
	base := c.c.bases[int(c.c.cur.Load())%len(c.c.bases)]
	if rest, ok := strings.CutPrefix(base, "https://"); ok {
		base = "wss://" + rest
	} else {
		base = "ws://" + strings.TrimPrefix(base, "http://")
	}
	return base + con.Path
}
