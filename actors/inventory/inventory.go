// Package inventory is the sync: it reconciles the store with the hypervisor's
// inventory (nodes, machines, templates), one sync at a time on the member where its
// one entity is active, periodically and on demand (POST /api/virt/sync). It owns the
// templates, hypervisor-owned reference data that only the sync writes, and sums the
// nodes' usage graphs into the cluster's. Machine and node records stay machines': the
// sync asks there (Machines.Observe, Vanish, Adopt; Nodes.Observe, Vanish), so it sits
// above machines. It is not a cluster of vmplane members (package cluster).
package inventory

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// SyncResult is the answer of POST /api/virt/sync.
type SyncResult struct {
	Nodes    int          `json:"nodes"`
	Machines SyncMachines `json:"machines"`
	// Backups counts the records of archives taken outside vmplane that the sync
	// adopted, and of those gone from the hypervisor that it removed.
	Backups    SyncBackups `json:"backups"`
	DurationMS int64       `json:"duration_ms"`
	// Unavailable names the locations whose inventory could not be read: their
	// records were left as they were (absent: every location answered).
	Unavailable []string `json:"locations_unavailable,omitempty"`
}

// SyncBackups counts what a sync changed of the backup records.
type SyncBackups struct {
	Adopted int `json:"adopted"`
	Removed int `json:"removed"`
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
// vmid being unknown (Machines.Adopt), which holds even if two members ever ran a sync
// at once.
type Inventory struct {
	rt       *kit.Runtime
	store    persistence.Store
	driver   hypervisor.Driver
	log      *zap.Logger
	machines *machines.Machines
	nodes    *capacity.Nodes
	backups  *machines.Backups
	tasks    *tasks.Tasks
	traffic  func(ctx context.Context, at time.Time, counters map[string]hypervisor.TrafficCounters) error
	// locationGone is Deps.LocationGone.
	locationGone func(ctx context.Context, tag string) (bool, error)
	kind         *kit.Kind
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

// syncPage is how many machines a sync reads at a time from a driver that pages them
// (hypervisor.MachinePager): four adoption batches' worth. A variable for the tests.
var syncPage = 4096

// syncEntityID is the one entity of the "sync" kind.
const syncEntityID = "inventory"

// runSync asks the sync entity for one sync that ends by Deadline.
type runSync struct{ Deadline time.Time }

// Deps are what the sync needs from outside its package.
type Deps struct {
	Runtime  *kit.Runtime
	Driver   hypervisor.Driver
	Machines *machines.Services
	// Traffic is handed the network counters of each sync's inventory, by machine id,
	// with the moment they were read (nil: none counted). Its failure fails no sync.
	Traffic func(ctx context.Context, at time.Time, counters map[string]hypervisor.TrafficCounters) error
	// LocationGone says whether the location tagged tag was deleted (nil: none ever
	// is). A sync drops the node and template records of a deleted location, which no
	// sync reaches again; those of a location that is only silent stay as they were.
	LocationGone func(ctx context.Context, tag string) (bool, error)
}

// Start starts the sync's kind; RunPeriodic starts its periodic sync.
func Start(d Deps) *Inventory {
	c := &Inventory{rt: d.Runtime, store: d.Runtime.Store, driver: d.Driver, log: d.Runtime.Log,
		machines: d.Machines.Machines, nodes: d.Machines.Nodes, backups: d.Machines.Backups, tasks: d.Machines.Tasks,
		traffic: d.Traffic, locationGone: d.LocationGone}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.kind = d.Runtime.StartKind("sync", 0, func(string) kit.Entity { return &syncEntity{c: c} }, nil)
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
		defer kit.Recover(c.log, "sync", func(err error) { answer = apierr.From(err) })
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

// run is one sync, on the member where the sync entity is active. Every location's
// inventory is read at once; each location that answers is reconciled, and one that
// does not is left as it was: none of its machines, nodes, templates or backups is
// marked gone for its silence (its records keep their last state, and its nodes raise
// no alert for it), and the result names it. The sync fails only when no location
// answers.
func (c *Inventory) run(ctx context.Context) (SyncResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	start := time.Now()
	all := hvloc.InventoriesOf(ctx, c.driver)
	var (
		res      SyncResult
		answered []hvloc.LocationInventory
		failed   []error
	)
	for _, li := range all {
		if li.Err != nil {
			res.Unavailable = append(res.Unavailable, hvloc.Name(li.Location))
			failed = append(failed, &hvloc.LocationError{Location: li.Location, Err: li.Err})
			continue
		}
		answered = append(answered, li)
	}
	if len(answered) == 0 {
		if len(all) == 1 {
			return SyncResult{}, all[0].Err // one cluster: its own error, as before locations
		}
		return SyncResult{}, errors.Join(failed...)
	}
	if len(failed) > 0 {
		c.log.Warn("sync: locations did not answer; their records stay as they were",
			zap.Strings("locations", res.Unavailable), zap.Error(errors.Join(failed...)))
	}
	gone := c.goneLocations()
	if err := c.syncNodes(ctx, answered, gone, &res); err != nil {
		return res, err
	}
	if err := c.syncTemplates(ctx, answered, gone); err != nil {
		return res, err
	}
	var firstErr error
	for _, li := range answered {
		if err := c.syncMachines(ctx, li, start, &res); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	res.DurationMS = time.Since(start).Milliseconds()
	return res, firstErr
}

// goneLocations is a sync's question whether a location was deleted: asked once per
// location a record names, as the default location, never deleted, is not.
func (c *Inventory) goneLocations() func(ctx context.Context, tag string) (bool, error) {
	known := map[string]bool{}
	return func(ctx context.Context, tag string) (bool, error) {
		if tag == "" || c.locationGone == nil {
			return false, nil
		}
		if g, ok := known[tag]; ok {
			return g, nil
		}
		g, err := c.locationGone(ctx, tag)
		if err == nil {
			known[tag] = g
		}
		return g, err
	}
}

// syncNodes brings the node records of the locations that answered in line with their
// inventories; a node of a location that did not answer keeps its record, unless the
// location was deleted (gone).
func (c *Inventory) syncNodes(ctx context.Context, answered []hvloc.LocationInventory, gone func(context.Context, string) (bool, error), res *SyncResult) error {
	seen := map[string]bool{}
	reached := map[string]bool{}
	for _, li := range answered {
		reached[li.Location] = true
		res.Nodes += len(li.Inventory.Nodes)
		for _, n := range li.Inventory.Nodes {
			n.Location = li.Location
			seen[capacity.NodeID(n.Location, n.ID)] = true
			if _, err := c.nodes.Observe(ctx, n); err != nil {
				return err
			}
		}
	}
	known, err := c.nodes.Known(ctx)
	if err != nil {
		return err
	}
	for id, loc := range known {
		if seen[id] {
			continue
		}
		if !reached[loc] {
			if g, err := gone(ctx, loc); err != nil || !g {
				continue // silent, or not known to be gone: kept
			}
		}
		if _, err := c.nodes.Vanish(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// syncMachines reconciles the machines of one location that answered, matched by
// vmid within it, then its backups.
func (c *Inventory) syncMachines(ctx context.Context, li hvloc.LocationInventory, start time.Time, res *SyncResult) error {
	inv := li.Inventory
	vmids, err := c.machines.VMIDs(ctx, li.Location)
	if err != nil {
		return err
	}
	c.countTraffic(ctx, start, inv.Traffic, vmids)
	// Read after the inventory, so that no digest is older than it (see Unchanged).
	digests, err := c.machines.ObservedDigests(ctx)
	if err != nil {
		return err
	}
	type job struct {
		id string
		// m is the machine as the inventory shows it, as of at; nil: the hypervisor
		// no longer has it, as of at.
		m  *hypervisor.Machine
		at time.Time
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
	// Neither the jobs nor the machines to adopt copy the inventory: jobs are only the
	// machines that differ (none on a restart with nothing changed), and the new
	// machines of a page are moved to its front, the page being the driver's copy
	// handed over. A driver that pages its machines (the sim) hands over syncPage at a
	// time, each page adopted before the next is read: a million machines' inventory
	// held at once was 400–630 MB of the sync's heap, a second copy of the sim's fleet.
	var jobs []job
	err = li.MachinePages(ctx, syncPage, func(page []hypervisor.Machine) error {
		nFresh := 0
		for _, hm := range page {
			if id, ok := vmids.Take(hm.VMID); ok {
				// A machine on an offline node keeps its last known record: the hypervisor
				// has only a summary of it (Proxmox: "unknown" status, no config), which
				// would wipe its interfaces and disks until the node is back.
				if downNodes[hm.Node] {
					continue
				}
				// Only machines that differ are messaged: waking every machine's actor on
				// each sync would keep a hundred thousand of them in memory for nothing.
				same, stateDiffers := c.machines.Unchanged(ctx, id, hm, digests)
				if same {
					continue
				}
				jobs = append(jobs, job{id: id, m: &hm, at: asOf, confirm: stateDiffers})
			} else {
				// nFresh is at most the index of hm: this overwrites only machines already seen.
				page[nFresh] = hm
				nFresh++
			}
		}
		added, err := c.machines.Adopt(ctx, page[:nFresh])
		res.Machines.Added += added
		return err
	})
	if err != nil {
		return err
	}
	for _, id := range vmids.NotTaken() {
		// Which machines exist is current as of the read (Proxmox: its cluster
		// filesystem), unlike their states, so start, not asOf, dates an absence.
		jobs = append(jobs, job{id: id, at: start.UTC()})
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
			defer kit.Recover(c.log, "sync of machine "+j.id, func(err error) {
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
				at := time.Now()
				ref := hypervisor.Ref{VMID: j.m.VMID, Node: j.m.Node, Location: li.Location}
				if live, err := c.driver.Machine(ctx, ref); err == nil {
					live.Location = li.Location
					j.m, j.at = &live, at
				}
			}
			var changed bool
			var err error
			if j.m != nil {
				changed, err = c.machines.Observe(ctx, j.id, *j.m, j.at)
			} else {
				changed, err = c.machines.Vanish(ctx, j.id, j.at)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				if firstErr == nil {
					firstErr = err
				}
			case !changed:
			default:
				if j.m == nil {
					res.Machines.Removed++
				} else {
					res.Machines.Updated++
				}
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && inv.BackupsListed {
		// After the machines: an archive's machine adopted just now is known.
		var a, r int
		a, r, firstErr = c.adoptBackups(ctx, li.Location, inv.Backups)
		res.Backups.Adopted += a
		res.Backups.Removed += r
	}
	return firstErr
}

// RunPeriodic syncs at every interval until Stop, which cancels a sync in flight: its
// driver calls must not hold up a shutdown.
func (c *Inventory) RunPeriodic(interval time.Duration) {
	// A sync that keeps failing (the hypervisor is down: hypervisor_unavailable says
	// so) is logged when it starts failing and then every syncFailLogEvery, not at
	// every interval.
	var failingSince, logged time.Time
	loop := c.rt.EveryOnOne("periodic sync", interval, false, func(ctx context.Context, _ time.Time) {
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
				c.log.Warn("periodic sync failed", zap.Error(err),
					zap.Duration("failing_for", now.Sub(failingSince).Round(time.Second)))
			}
			return
		}
		if !failingSince.IsZero() {
			c.log.Info("periodic sync works again", zap.Duration("failed_for", time.Since(failingSince).Round(time.Second)))
			failingSince = time.Time{}
		}
		if res.Machines != (SyncMachines{}) {
			c.log.Info("periodic sync", zap.Int("added", res.Machines.Added),
				zap.Int("updated", res.Machines.Updated), zap.Int("removed", res.Machines.Removed))
		}
	})
	c.loopMu.Lock()
	c.loop = loop
	c.loopMu.Unlock()
}

// periodicSync is one sync of RunPeriodic: a panic fails it, the next one runs.
func (c *Inventory) periodicSync(base context.Context, interval time.Duration) (res SyncResult, err error) {
	defer kit.Recover(c.log, "periodic sync", func(e error) { err = e })
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
