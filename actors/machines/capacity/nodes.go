package capacity

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// Node is a hypervisor node as the API shows it. Its id is NodeID(location, name): the
// hypervisor's node name in the default location, name@location in the others.
type Node struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Status   string `json:"status"`
	CPUCores int    `json:"cpu_cores"`
	MemoryMB int    `json:"memory_mb"`
	DiskGB   int    `json:"disk_gb"`
	// StorageGB is the room for the machines' disks (the node's storages for disk
	// images); 0 when the hypervisor does not tell, and then the capacity arithmetic
	// does not bound by disk.
	StorageGB int       `json:"storage_gb"`
	Usage     NodeUsage `json:"usage"`
	UpdatedAt time.Time `json:"updated_at"`
	// Location is the hypervisor cluster the node is in ("default": the one the
	// settings configure). Name is the node's name there; ID is unique across
	// locations (NodeID).
	Location hvloc.ID `json:"location_id"`
}

// HypervisorName is the node's name in its location, which the hypervisor knows it
// by: its Name, or, for a record without one, its id.
func (n Node) HypervisorName() string {
	if n.Name != "" {
		return n.Name
	}
	return n.ID
}

// NodeUsage is a node's load at the last sync.
type NodeUsage struct {
	CPU       float64 `json:"cpu"` // fraction 0..1 of cpu_cores
	MemBytes  int64   `json:"mem_bytes"`
	DiskBytes int64   `json:"disk_bytes"`
}

// NodeVersion is the version of a node record's encoding.
const NodeVersion = 1

// NodeID is the id of the node named node in the location tagged loc (hvloc.Tag: ""
// for the default location): the node's name in the default location, so records
// written before locations existed keep their ids, and "name@location" in the others,
// because node names repeat across clusters (every Proxmox cluster may have a "pve1").
func NodeID(loc, node string) string {
	if loc == "" {
		return node
	}
	return node + "@" + loc
}

// NodeKey is the key of a node's record.
func NodeKey(id string) []byte { return persistence.Key("node", id) }

// Nodes is the service in front of the nodes kind.
type Nodes struct {
	kind       *kit.Kind
	rt         *kit.Runtime
	store      persistence.Store
	driver     hypervisor.Driver
	log        *zap.Logger
	alerts     *alerts.Alerts
	overcommit Overcommit
	allocated  func(ctx context.Context) (map[string]Size, error)
}

// Deps are what the nodes need from outside their package.
type Deps struct {
	Runtime *kit.Runtime
	Driver  hypervisor.Driver
	Alerts  *alerts.Alerts
	// Overcommit are the operator's ratios for the capacity arithmetic (Room); zero
	// ratios take DefaultOvercommit's.
	Overcommit Overcommit
	// Allocated answers what the machines allocate on each node (the machines'
	// Allocations): the machines live above, and are asked through it.
	Allocated func(ctx context.Context) (map[string]Size, error)
}

// Changed answers a request that may change an entity's record: whether it did. The
// machines' entities answer with it too (one wire name, machines.changed).
type Changed struct{ Changed bool }

type (
	getNode     struct{}
	observeNode struct{ N hypervisor.Node }
	vanishNode  struct{}
)

// StartNodes starts the nodes' kind.
func StartNodes(d Deps) *Nodes {
	n := &Nodes{rt: d.Runtime, store: d.Runtime.Store, driver: d.Driver, log: d.Runtime.Log, alerts: d.Alerts,
		overcommit: d.Overcommit.OrDefault(), allocated: d.Allocated}
	n.kind = n.rt.StartKind("nodes", 10*time.Minute, func(id string) kit.Entity { return &nodeEntity{sys: n, id: id} }, nil)
	return n
}

// Get returns one node.
func (n *Nodes) Get(ctx context.Context, id string) (Node, error) {
	if id == "" || len(id) > 64 {
		return Node{}, apierr.NotFound("node", id)
	}
	return kit.Ask[Node](ctx, n.kind, id, &getNode{})
}

// List returns the nodes in name order.
func (n *Nodes) List(ctx context.Context, cursor string, limit int) ([]Node, string, error) {
	return kit.ScanPage(ctx, n.store, persistence.Prefix("node"), cursor, limit, func(rec *Node) (Node, bool) { return *rec, true })
}

// Usage returns a usage graph of one node.
func (n *Nodes) Usage(ctx context.Context, id string, tf hypervisor.Timeframe, end time.Time) (hypervisor.UsageGraph, error) {
	nd, err := n.Get(ctx, id)
	if err != nil {
		return hypervisor.UsageGraph{}, err
	}
	return n.driver.Usage(ctx, hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: nd.Ref(), Timeframe: tf, End: end})
}

// Ref is the node as its location's hypervisor knows it: by its name there.
func (nd *Node) Ref() hypervisor.Ref {
	name := nd.Name
	if name == "" {
		name = nd.ID // a record written before nodes had names apart from their ids
	}
	return hypervisor.Ref{Node: name, Location: string(nd.Location)}
}

// Offline returns the nodes whose last known status is offline.
func (n *Nodes) Offline(ctx context.Context) (map[string]bool, error) {
	nodes, _, err := n.List(ctx, "", 0)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, nd := range nodes {
		if nd.Status == string(hypervisor.NodeOffline) {
			out[nd.ID] = true
		}
	}
	return out, nil
}

// nodeEntity is one node's actor, the one writer of its record.
type nodeEntity struct {
	sys *Nodes
	id  string
	rec *Node
}

func (e *nodeEntity) Load() error {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	var err error
	e.rec, err = kit.LoadOptional[Node](ctx, e.sys.store, NodeKey(e.id))
	return err
}

func (e *nodeEntity) Handle(ctx *kit.Ctx, msg any) {
	switch m := msg.(type) {
	case *observeNode:
		ctx.Respond(Changed{Changed: e.observe(m.N)})
		return
	}
	if e.rec == nil {
		ctx.Fail(apierr.NotFound("node", e.id))
		return
	}
	switch msg.(type) {
	case *getNode:
		ctx.Respond(*e.rec)
	case *vanishNode:
		if err := e.sys.rt.Commit(new(persistence.Batch).Del(NodeKey(e.id))); err != nil {
			ctx.Fail(err)
			return
		}
		e.rec = nil
		e.sys.alerts.NodeStatus(e.id, "") // gone: its alerts end with it
		ctx.Respond(Changed{Changed: true})
	default:
		ctx.Fail(apierr.New(apierr.ErrInternal, "unexpected message"))
	}
}

func (e *nodeEntity) observe(hn hypervisor.Node) bool {
	next := Node{ID: e.id, Name: hn.ID, Location: hvloc.ID(hn.Location), Status: string(hn.Status), CPUCores: hn.CPUCores, MemoryMB: hn.MemoryMB,
		DiskGB: hn.DiskGB, StorageGB: hn.StorageGB, Usage: NodeUsage{CPU: hn.CPU, MemBytes: hn.MemBytes, DiskBytes: hn.DiskBytes}}
	if e.rec != nil {
		prev := *e.rec
		prev.UpdatedAt = time.Time{}
		if prev == next {
			return false
		}
	}
	next.UpdatedAt = time.Now().UTC()
	val, err := persistence.Encode(NodeVersion, next)
	if err != nil {
		return false
	}
	if err := e.sys.rt.Commit(new(persistence.Batch).Put(NodeKey(e.id), val)); err != nil {
		e.sys.log.Error("cannot record node", zap.String("node", e.id), zap.Error(err))
		return false
	}
	if e.rec == nil || e.rec.Status != next.Status {
		// Told, not asked: the alert's write does not hold up this mailbox.
		e.sys.alerts.NodeStatus(e.id, next.Status)
	}
	e.rec = &next
	return true
}

// Absent implements kit.Absence.
func (e *nodeEntity) Absent() bool { return e.rec == nil }

// The runtime finds these behaviours by interface: the compiler checks them, since a
// misnamed method would silently turn them off.
var (
	_ kit.Absence = (*nodeEntity)(nil)
)

// Known returns the ids of the nodes on record, each with its location's tag ("": the
// default): the sync removes the nodes of the locations that answered alone.
func (n *Nodes) Known(ctx context.Context) (map[string]string, error) {
	ids := map[string]string{}
	prefix := persistence.Prefix("node")
	var rec struct {
		Location hvloc.ID `json:"location_id"`
	}
	err := n.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		rec.Location = ""
		if _, err := persistence.Decode(v, &rec); err != nil {
			return nil // a corrupt record is reported where it is read
		}
		ids[string(k[len(prefix):])] = string(rec.Location)
		return nil
	})
	return ids, err
}

// Observe brings a node's record in line with what the hypervisor reports of it (its
// name hn.ID in the location hn.Location: the record NodeID(hn.Location, hn.ID)), and
// reports whether it changed.
func (n *Nodes) Observe(ctx context.Context, hn hypervisor.Node) (bool, error) {
	r, err := kit.Ask[Changed](ctx, n.kind, NodeID(hn.Location, hn.ID), &observeNode{N: hn})
	return r.Changed, err
}

// Vanish removes the record of a node the hypervisor no longer has.
func (n *Nodes) Vanish(ctx context.Context, id string) (bool, error) {
	r, err := kit.Ask[Changed](ctx, n.kind, id, &vanishNode{})
	return r.Changed, err
}

// In a cluster a node's entity may be active on another member than the one that asks
// it (the sync, the edge's reads): its messages and answers travel as JSON (kit.Wire),
// under the names they had when the nodes lived in the machines package.
func init() {
	kit.Wire("machines.getNode", 1, (*getNode)(nil))
	kit.Wire("machines.observeNode", 1, (*observeNode)(nil))
	kit.Wire("machines.vanishNode", 1, (*vanishNode)(nil))
	kit.Wire("machines.Node", 1, Node{})
	kit.Wire("machines.changed", 1, Changed{})
}
