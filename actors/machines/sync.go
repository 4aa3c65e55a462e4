package machines

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// SyncResult is the answer of POST /api/virt/sync.
type SyncResult struct {
	Nodes      int          `json:"nodes"`
	Machines   SyncMachines `json:"machines"`
	DurationMS int64        `json:"duration_ms"`
}

// SyncMachines counts what a sync changed.
type SyncMachines struct {
	Added   int `json:"added"`
	Updated int `json:"updated"`
	Removed int `json:"removed"`
}

// Inventory reconciles the store with the hypervisor's inventory: nodes, machines and
// templates (the sync). It is not a cluster of vmplane members (package cluster).
//
// Every sync, the periodic one and each POST /api/virt/sync, is a request to one
// entity (kind "sync", id "inventory"), so in a cluster every sync runs on the member
// where that entity is active, one at a time: two reconciliations interleaved could
// adopt one vmid twice, and the periodic sync's leader and a request on another member
// would otherwise run side by side. The adoption's writes are also conditional on the
// vmid being unknown (adopt), which holds even if two members ever ran a sync at once.
type Inventory struct {
	sys  *system
	kind *kit.Kind
	// mu makes the syncs on this member one at a time. A second caller waits and then
	// runs its own, which finds nothing new.
	mu sync.Mutex
	// ctx bounds the syncs in flight, which Stop cancels and waits for (wg); stopped
	// refuses new ones. stopMu guards both.
	ctx     context.Context
	cancel  context.CancelFunc
	stopMu  sync.Mutex
	stopped bool
	wg      sync.WaitGroup
	// loop is the periodic sync (RunPeriodic), nil when none runs; loopMu guards it
	// (not mu, which a sync holds: Stop must not wait for the sync it cancels).
	loopMu sync.Mutex
	loop   *kit.Loop
}

// syncFailLogEvery is how often a periodic sync that keeps failing is logged again.
const syncFailLogEvery = 10 * time.Minute

// syncFanout bounds the entity requests one sync has in flight.
const syncFanout = 16

// syncEntityID is the one entity of the "sync" kind.
const syncEntityID = "inventory"

// runSync asks the sync entity for one sync that ends by Deadline.
type runSync struct{ Deadline time.Time }

// Patient implements kit.Patient: a sync of a large inventory takes as long as its
// caller allows, on whichever member runs it.
func (*runSync) Patient() {}

func startInventory(s *system) *Inventory {
	c := &Inventory{sys: s}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.kind = s.rt.StartKind("sync", 0, func(string) kit.Entity { return &syncEntity{c: c} }, nil)
	return c
}

// syncEntity runs the syncs asked of it, each on a goroutine that answers when it is
// done: a sync may take minutes, and must not hold one of the actors' workers.
type syncEntity struct{ c *Inventory }

func (e *syncEntity) Load() error { return nil }

func (e *syncEntity) Handle(ctx *kit.Ctx, msg any) {
	m, ok := msg.(*runSync)
	if !ok {
		if ctx.Answers() {
			ctx.Fail(apierr.New(apierr.ErrInternal, "unexpected message"))
		}
		return
	}
	c, reply := e.c, ctx.Later()
	c.stopMu.Lock()
	if c.stopped {
		c.stopMu.Unlock()
		ctx.Fail(apierr.New(apierr.ErrUnavailable, "vmplane is stopping"))
		return
	}
	c.wg.Add(1)
	c.stopMu.Unlock()
	go func() {
		defer c.wg.Done()
		var answer any
		defer func() { reply.Respond(answer) }()
		defer kit.Recover(c.sys.log, "sync", func(err error) { answer = apierr.From(err) })
		sctx, cancel := context.WithDeadline(c.ctx, m.Deadline)
		defer cancel()
		res, err := c.run(sctx)
		if err != nil {
			answer = apierr.From(err)
			return
		}
		answer = res
	}()
}

// Sync reads the inventory and brings nodes and machines in line: machines the
// hypervisor has and we do not are added (without a tenant), changed ones updated, and
// ones it no longer has removed. Running it twice changes nothing the second time. It
// runs on the member where the sync entity is active (see Inventory), by ctx's deadline
// (kit.DefaultTimeout when it has none).
func (c *Inventory) Sync(ctx context.Context) (SyncResult, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(kit.DefaultTimeout)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	return kit.Ask[SyncResult](ctx, c.kind, syncEntityID, &runSync{Deadline: deadline})
}

// run is one sync, on the member where the sync entity is active.
func (c *Inventory) run(ctx context.Context) (SyncResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	inv, err := c.sys.driver.Inventory(ctx)
	if err != nil {
		return SyncResult{}, err
	}
	var res SyncResult
	res.Nodes = len(inv.Nodes)

	// Nodes.
	seenNodes := map[string]bool{}
	for _, n := range inv.Nodes {
		seenNodes[n.ID] = true
		if _, err := kit.Ask[changed](ctx, c.sys.Nodes.kind, n.ID, &observeNode{N: n}); err != nil {
			return res, err
		}
	}
	var goneNodes []string
	err = c.sys.store.Scan(ctx, persistence.Prefix("node"), nil, 0, func(k, _ []byte) error {
		if id := string(k[len(persistence.Prefix("node")):]); !seenNodes[id] {
			goneNodes = append(goneNodes, id)
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	for _, id := range goneNodes {
		if _, err := kit.Ask[changed](ctx, c.sys.Nodes.kind, id, &vanishNode{}); err != nil {
			return res, err
		}
	}

	if err := c.syncTemplates(ctx, inv.Templates); err != nil {
		return res, err
	}

	// Machines, matched by vmid.
	known := map[int]string{}
	prefix := persistence.Prefix("vm-vmid")
	err = c.sys.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		vmid, err := strconv.Atoi(string(k[len(prefix):]))
		if err == nil {
			known[vmid] = string(v)
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	type job struct {
		id  string
		msg any
		// confirm: the inventory's state differs from the record's; the machine's live
		// state is read before anything changes (see Sync).
		confirm bool
	}
	// The inventory's states may lag (Proxmox's resource list is up to a pvestatd
	// cycle old): they describe the machines as of inv.AsOf at the earliest.
	asOf := inv.AsOf
	if asOf.IsZero() {
		asOf = start
	}
	downNodes := map[string]bool{}
	for _, n := range inv.Nodes {
		if n.Status == hypervisor.NodeOffline {
			downNodes[n.ID] = true
		}
	}
	jobs := make([]job, 0, len(inv.Machines))
	var fresh []hypervisor.Machine
	for _, hm := range inv.Machines {
		if id, ok := known[hm.VMID]; ok {
			delete(known, hm.VMID)
			// A machine on an offline node keeps its last known record: the hypervisor
			// has only a summary of it (Proxmox: "unknown" status, no config), which
			// would wipe its interfaces and disks until the node is back.
			if downNodes[hm.Node] {
				continue
			}
			// Only machines that differ are messaged: waking every machine's actor on
			// each sync would keep a hundred thousand of them in memory for nothing.
			same, stateDiffers := c.unchanged(ctx, id, hm)
			if same {
				continue
			}
			jobs = append(jobs, job{id: id, msg: &observe{M: hm, At: asOf}, confirm: stateDiffers})
		} else {
			fresh = append(fresh, hm)
		}
	}
	for _, id := range known {
		// Which machines exist is current as of the read (Proxmox: its cluster
		// filesystem), unlike their states, so start, not asOf, dates an absence.
		jobs = append(jobs, job{id: id, msg: &vanish{At: start.UTC()}})
	}
	added, err := c.adopt(ctx, fresh)
	res.Machines.Added = added
	if err != nil {
		return res, err
	}
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, syncFanout)
	for _, j := range jobs {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			defer kit.Recover(c.sys.log, "sync of machine "+j.id, func(err error) {
				mu.Lock()
				defer mu.Unlock()
				if firstErr == nil {
					firstErr = err
				}
			})
			if j.confirm {
				// The list and our record disagree on the state: the list may be stale
				// (a task may have just stopped the machine), so the machine's live
				// state (Proxmox: status/current) decides, as of the moment it is read.
				o := j.msg.(*observe)
				at := time.Now()
				if live, err := c.sys.driver.Machine(ctx, hypervisor.Ref{VMID: o.M.VMID, Node: o.M.Node}); err == nil {
					j.msg = &observe{M: live, At: at}
				}
			}
			r, err := kit.Ask[changed](ctx, c.sys.Machines.kind, j.id, j.msg)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				if firstErr == nil {
					firstErr = err
				}
			case !r.Changed:
			default:
				if _, gone := j.msg.(*vanish); gone {
					res.Machines.Removed++
				} else {
					res.Machines.Updated++
				}
			}
		}()
	}
	wg.Wait()
	res.DurationMS = time.Since(start).Milliseconds()
	return res, firstErr
}

// adoptBatch is how many new machines' records one durable batch writes.
const adoptBatch = 256

// adoptTries bounds how often one batch of adoptions is written again after some of
// its machines were recorded meanwhile by someone else.
const adoptTries = 3

// adopt records machines found on the hypervisor, without a tenant. No actor exists
// for a new record yet, so the records are written here in batches, as a tenant's
// create writes its new machine's record, and no actor is woken: a first sync of a
// large cluster does not hold every machine in memory. Each adoption requires its
// vm-vmid/<vmid> index key to be absent, in the same transaction as the record: a
// vmid is adopted once even if two syncs ever overlap (on two members of a cluster, or
// with a create that recorded its vmid since the inventory was read). A batch refused
// for that is written again without the machines now known.
func (c *Inventory) adopt(ctx context.Context, ms []hypervisor.Machine) (int, error) {
	if len(ms) == 0 {
		return 0, nil
	}
	// While a create runs, the hypervisor already has its machine but our record does
	// not know its vmid yet: adopting now would make a second, tenantless record of
	// it. Unknown machines wait for a sync with no create in flight.
	if busy, err := c.createsInFlight(ctx); err != nil || busy {
		return 0, err
	}
	added := 0
	for start := 0; start < len(ms); start += adoptBatch {
		chunk := ms[start:min(start+adoptBatch, len(ms))]
		for try := 1; ; try++ {
			recs, err := c.adoptChunk(chunk)
			if err == nil {
				for _, m := range recs {
					Publish(c.sys.Events, m, "sync", "")
				}
				added += len(recs)
				break
			}
			if !persistence.IsConditionFailed(err) || try == adoptTries {
				return added, err
			}
			// Some vmids were recorded since the inventory was read: leave them out.
			if chunk, err = c.unknown(ctx, chunk); err != nil {
				return added, err
			}
		}
	}
	return added, nil
}

// adoptChunk writes the records of machines in one batch, each on the condition that
// its vmid is still unknown, and returns them.
func (c *Inventory) adoptChunk(chunk []hypervisor.Machine) ([]Machine, error) {
	if len(chunk) == 0 {
		return nil, nil
	}
	b := new(persistence.Batch)
	recs := make([]Machine, 0, len(chunk))
	now := time.Now().UTC()
	for _, hm := range chunk {
		rec := record{Machine: Machine{ID: persistence.NewID(), CreatedAt: now, UpdatedAt: now}}
		applyObserved(&rec.Machine, hm)
		val, err := persistence.Encode(recordVersion, &rec)
		if err != nil {
			return nil, err
		}
		b.Put(machineKey(rec.ID), val).Put(vmidKey(hm.VMID), []byte(rec.ID)).Require(persistence.IfAbsent(vmidKey(hm.VMID)))
		recs = append(recs, rec.Machine)
	}
	if err := c.sys.rt.Commit(b); err != nil {
		return nil, err
	}
	return recs, nil
}

// unknown returns the machines of ms whose vmid has no record.
func (c *Inventory) unknown(ctx context.Context, ms []hypervisor.Machine) ([]hypervisor.Machine, error) {
	out := ms[:0:0]
	for _, hm := range ms {
		_, err := c.sys.store.Get(ctx, vmidKey(hm.VMID))
		switch {
		case errors.Is(err, persistence.ErrNotFound):
			out = append(out, hm)
		case err != nil:
			return nil, err
		}
	}
	return out, nil
}

// createsInFlight reports whether a machine create task is still open.
func (c *Inventory) createsInFlight(ctx context.Context) (bool, error) {
	prefix := persistence.Prefix("task-open")
	found := false
	err := c.sys.store.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
		t, err := loadTask(ctx, c.sys.store, string(k[len(prefix):]))
		if err == nil && t.Type == "vm.create" && !t.Finished() {
			found = true
			return kit.ErrStopScan
		}
		return nil
	})
	if err != nil && !errors.Is(err, kit.ErrStopScan) {
		return false, err
	}
	return found, nil
}

// unchanged reports whether the stored record of a machine already shows what the
// hypervisor reports (or a task owns it, when the task's end will tell), and whether
// the power state is what differs. The record is what the machine's actor holds: it
// writes before it changes its state.
func (c *Inventory) unchanged(ctx context.Context, id string, hm hypervisor.Machine) (same, stateDiffers bool) {
	rec, err := persistence.Load[record](ctx, c.sys.store, machineKey(id))
	if err != nil {
		return false, false // let the actor decide
	}
	if rec.TaskID != nil {
		return true, false
	}
	next := rec.Machine
	applyObserved(&next, hm)
	return machineEqual(&next, &rec.Machine), next.Status != rec.Status
}

// RunPeriodic syncs at every interval until Stop, which cancels a sync in flight: its
// driver calls must not hold up a shutdown.
func (c *Inventory) RunPeriodic(interval time.Duration) {
	// A sync that keeps failing (the hypervisor is down: hypervisor_unavailable says
	// so) is logged when it starts failing and then every syncFailLogEvery, not at
	// every interval.
	var failingSince, logged time.Time
	loop := c.sys.rt.EveryOnOne("periodic sync", interval, false, func(ctx context.Context, _ time.Time) {
		res, err := c.periodicSync(ctx, interval)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if now := time.Now(); failingSince.IsZero() || now.Sub(logged) >= syncFailLogEvery {
				if failingSince.IsZero() {
					failingSince = now
				}
				logged = now
				c.sys.log.Warn("periodic sync failed", zap.Error(err),
					zap.Duration("failing_for", now.Sub(failingSince).Round(time.Second)))
			}
			return
		}
		if !failingSince.IsZero() {
			c.sys.log.Info("periodic sync works again", zap.Duration("failed_for", time.Since(failingSince).Round(time.Second)))
			failingSince = time.Time{}
		}
		if res.Machines != (SyncMachines{}) {
			c.sys.log.Info("periodic sync", zap.Int("added", res.Machines.Added),
				zap.Int("updated", res.Machines.Updated), zap.Int("removed", res.Machines.Removed))
		}
	})
	c.loopMu.Lock()
	c.loop = loop
	c.loopMu.Unlock()
}

// periodicSync is one sync of RunPeriodic: a panic fails it, the next one runs.
func (c *Inventory) periodicSync(base context.Context, interval time.Duration) (res SyncResult, err error) {
	defer kit.Recover(c.sys.log, "periodic sync", func(e error) { err = e })
	ctx, cancel := context.WithTimeout(base, interval)
	defer cancel()
	return c.Sync(ctx)
}

// Stop ends the periodic sync, if it runs, cancels the syncs in flight on this member
// and waits for them; a sync asked of this member afterwards is refused.
func (c *Inventory) Stop() {
	c.loopMu.Lock()
	loop := c.loop
	c.loop = nil
	c.loopMu.Unlock()
	loop.Stop()
	c.stopMu.Lock()
	c.stopped = true
	c.stopMu.Unlock()
	c.cancel()
	c.wg.Wait()
}

// Usage returns a usage graph of one machine.
func (m *Machines) Usage(ctx context.Context, id string, tf hypervisor.Timeframe, tenant *string) (hypervisor.UsageGraph, error) {
	ref, err := m.Ref(ctx, id, tenant)
	if err != nil {
		return hypervisor.UsageGraph{}, err
	}
	return m.sys.driver.Usage(ctx, hypervisor.UsageQuery{Scope: hypervisor.ScopeMachine, Ref: ref.Ref, Timeframe: tf})
}

// Usage returns a usage graph of one node.
func (n *Nodes) Usage(ctx context.Context, id string, tf hypervisor.Timeframe, end time.Time) (hypervisor.UsageGraph, error) {
	if _, err := n.Get(ctx, id); err != nil {
		return hypervisor.UsageGraph{}, err
	}
	return n.sys.driver.Usage(ctx, hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: id}, Timeframe: tf, End: end})
}

// ClusterUsage is the cluster's usage graph: the sum over the nodes that answered.
// MissingNodes names the nodes left out (offline, or their usage could not be read),
// as Proxmox's own summary view sums what it has.
type ClusterUsage struct {
	hypervisor.UsageGraph
	// MissingNodes lists the nodes whose usage is not in the sums; empty when every
	// node answered.
	MissingNodes []string `json:"missing_nodes"`
}

// Usage sums the usage graphs of every node bucket by bucket. Proxmox has no cluster
// graph; every node is asked for the same end time, and buckets are matched by their
// time. Sizes and rates are sums; cpu, a fraction of cpu_cores, is the cores-weighted
// mean, so that cpu × cpu_cores of the cluster equals the sum over nodes. A bucket
// where every node has a gap stays a gap. A node that is offline, or whose graph
// cannot be read, is left out and named in MissingNodes: one node down does not
// take the cluster graph with it. Only when no node answers is the answer an error.
func (c *Inventory) Usage(ctx context.Context, tf hypervisor.Timeframe) (ClusterUsage, error) {
	nodes, _, err := c.sys.Nodes.List(ctx, "", 0)
	if err != nil {
		return ClusterUsage{}, err
	}
	step, _, _ := tf.Resolution()
	end := time.Now().UTC()
	graphs := make([]hypervisor.UsageGraph, len(nodes))
	errs := make([]error, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		if n.Status == string(hypervisor.NodeOffline) {
			errs[i] = hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s is offline", n.ID)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer kit.Recover(c.sys.log, "usage of node "+n.ID, func(err error) { errs[i] = err })
			graphs[i], errs[i] = c.sys.Nodes.Usage(ctx, n.ID, tf, end)
		}()
	}
	wg.Wait()
	out := ClusterUsage{UsageGraph: hypervisor.UsageGraph{Timeframe: tf, ResolutionSeconds: int(step.Seconds()), Points: []hypervisor.UsagePoint{}},
		MissingNodes: []string{}}
	if err := ctx.Err(); err != nil {
		return out, hypervisor.ContextError(err)
	}
	var firstErr error
	answered := 0
	for i, err := range errs {
		if err != nil {
			out.MissingNodes = append(out.MissingNodes, nodes[i].ID)
			c.sys.log.Debug("cluster usage: node left out", zap.String("node", nodes[i].ID), zap.Error(err))
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if answered == 0 && graphs[i].ResolutionSeconds > 0 {
			// The nodes' own spacing (PVE 8 and 9 keep different layouts).
			out.ResolutionSeconds = graphs[i].ResolutionSeconds
		}
		answered++
	}
	if answered == 0 && firstErr != nil {
		return out, firstErr
	}
	type acc struct {
		p           hypervisor.UsagePoint
		cpuWeighted float64
		cpuCores    float64
		cpuSeen     bool
	}
	byTime := map[time.Time]*acc{}
	var times []time.Time
	for i, g := range graphs {
		if errs[i] != nil {
			continue
		}
		for _, q := range g.Points {
			a, ok := byTime[q.Time]
			if !ok {
				a = &acc{p: hypervisor.UsagePoint{Time: q.Time}}
				byTime[q.Time] = a
				times = append(times, q.Time)
			}
			p := &a.p
			p.CPUCores = addPtr(p.CPUCores, q.CPUCores)
			p.MemBytes = addPtr(p.MemBytes, q.MemBytes)
			p.MemTotalBytes = addPtr(p.MemTotalBytes, q.MemTotalBytes)
			p.NetInBps = addPtr(p.NetInBps, q.NetInBps)
			p.NetOutBps = addPtr(p.NetOutBps, q.NetOutBps)
			p.DiskReadBps = addPtr(p.DiskReadBps, q.DiskReadBps)
			p.DiskWriteBps = addPtr(p.DiskWriteBps, q.DiskWriteBps)
			if q.CPU != nil && q.CPUCores != nil {
				a.cpuWeighted += *q.CPU * *q.CPUCores
				a.cpuCores += *q.CPUCores
				a.cpuSeen = true
			}
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	out.Points = make([]hypervisor.UsagePoint, 0, len(times))
	for _, t := range times {
		a := byTime[t]
		if a.cpuSeen && a.cpuCores > 0 {
			a.p.CPU = kit.Ptr(a.cpuWeighted / a.cpuCores)
		}
		out.Points = append(out.Points, a.p)
	}
	return out, nil
}

func addPtr(a, b *float64) *float64 {
	switch {
	case b == nil:
		return a
	case a == nil:
		return kit.Ptr(*b)
	}
	return kit.Ptr(*a + *b)
}

func TemplateKey(id string) []byte { return persistence.Key("template", id) }

const templateVersion = 1

// syncTemplates makes the stored templates those of the hypervisor. Templates are
// hypervisor-owned reference data with no actor: only sync, run by the one sync entity
// and serialised by mu, writes them.
func (c *Inventory) syncTemplates(ctx context.Context, ts []hypervisor.Template) error {
	b := new(persistence.Batch)
	seen := map[string]bool{}
	for _, t := range ts {
		seen[t.ID] = true
		val, err := persistence.Encode(templateVersion, t)
		if err != nil {
			return err
		}
		if old, err := c.sys.store.Get(ctx, TemplateKey(t.ID)); err == nil && string(old) == string(val) {
			continue
		}
		b.Put(TemplateKey(t.ID), val)
	}
	err := c.sys.store.Scan(ctx, persistence.Prefix("template"), nil, 0, func(k, _ []byte) error {
		if !seen[string(k[len(persistence.Prefix("template")):])] {
			b.Del(append([]byte{}, k...))
		}
		return nil
	})
	if err != nil || len(b.Ops) == 0 {
		return err
	}
	return c.sys.rt.Commit(b)
}

// Templates lists the OS templates known from the last sync.
func (c *Inventory) Templates(ctx context.Context) ([]hypervisor.Template, error) {
	out, _, err := c.TemplatePage(ctx, "", 0)
	return out, err
}

// TemplatePage returns a page of the OS templates known from the last sync, by id,
// after the cursor (limit 0: all).
func (c *Inventory) TemplatePage(ctx context.Context, cursor string, limit int) ([]hypervisor.Template, string, error) {
	return kit.ScanPage(ctx, c.sys.store, persistence.Prefix("template"), cursor, limit,
		func(t *hypervisor.Template) (hypervisor.Template, bool) { return *t, true })
}

// Template returns one OS template.
func (c *Inventory) Template(ctx context.Context, id string) (hypervisor.Template, error) {
	val, err := c.sys.store.Get(ctx, TemplateKey(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return hypervisor.Template{}, apierr.NotFound("template", id)
	}
	if err != nil {
		return hypervisor.Template{}, err
	}
	var t hypervisor.Template
	_, err = persistence.Decode(val, &t)
	return t, err
}
