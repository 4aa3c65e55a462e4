package monitoring

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
)

// Defaults of MonitoringOptions.
const (
	DefaultNodeUsageThreshold = 0.9
	DefaultNodeUsageFor       = 10 * time.Minute
)

// MonitoringOptions configure the alerts that watch the cluster.
type MonitoringOptions struct {
	// NodeUsageThreshold is the fraction (0..1] of a node's cpu or memory above which
	// the node counts as busy (default 0.9).
	NodeUsageThreshold float64
	// NodeUsageFor is how long a node must stay busy before node_usage_high fires
	// (default 10 minutes).
	NodeUsageFor time.Duration
	// NodeUsageEvery is how often node usage is evaluated (default a quarter of
	// NodeUsageFor, within 100 ms..30 s). The node records it reads are refreshed by
	// the sync, so the sync interval bounds how fresh the figures are.
	NodeUsageEvery time.Duration
	// HypervisorEvery is how often the hypervisor is pinged for the
	// hypervisor_unavailable alert (default DefaultHypervisorEvery).
	HypervisorEvery time.Duration
}

// Monitoring watches the cluster for alerts that no entity raises itself: failed tasks
// (from the event bus) and nodes busy for too long (from the node records), and
// computes the operators' overview.
type Monitoring struct {
	sys  *system
	opts MonitoringOptions

	mu      sync.Mutex
	stopped bool
	sub     *events.Subscription
	done    chan struct{}
	wg      sync.WaitGroup
	// loops are the periodic watchers (node usage, the hypervisor).
	loops []*kit.Loop
}

func startMonitoring(s *system, opts MonitoringOptions) *Monitoring {
	if opts.NodeUsageThreshold <= 0 || opts.NodeUsageThreshold > 1 {
		opts.NodeUsageThreshold = DefaultNodeUsageThreshold
	}
	if opts.NodeUsageFor <= 0 {
		opts.NodeUsageFor = DefaultNodeUsageFor
	}
	if opts.NodeUsageEvery <= 0 {
		opts.NodeUsageEvery = min(max(opts.NodeUsageFor/4, 100*time.Millisecond), 30*time.Second)
	}
	m := &Monitoring{sys: s, opts: opts, done: make(chan struct{})}
	if err := m.reconcileNodes(); err != nil {
		m.sys.log.Warn("node alerts not reconciled", zap.Error(err))
	}
	m.wg.Add(1)
	go m.watchTasks()
	m.loops = append(m.loops, m.watchUsage())
	if l := m.watchHypervisor(); l != nil {
		m.loops = append(m.loops, l)
	}
	return m
}

// Stop ends the watchers and waits for them.
func (m *Monitoring) Stop() {
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return
	}
	m.stopped = true
	if m.sub != nil {
		m.sub.Close()
	}
	m.mu.Unlock()
	close(m.done)
	for _, l := range m.loops {
		l.Stop()
	}
	m.wg.Wait()
}

// watchTasks follows the event bus: a failed machine task raises task_failed on its
// machine; a later successful task on the machine, or its deletion, resolves it. A
// subscription the bus cut off (this watcher fell behind) resumes from the last event
// seen, out of the bus's backlog. In a cluster it follows this member's events only
// (SubscribeLocal): each task's alert is raised once, by the member that ran the task.
func (m *Monitoring) watchTasks() {
	defer m.wg.Done()
	// This watcher is the only one to raise and resolve task_failed, so it knows which
	// machines have one open, and a successful task (the common case) costs no message.
	ctx, cancel := m.sys.rt.Work()
	open, err := m.openConditions(ctx, alerts.AlertTaskFailed)
	cancel()
	if err != nil {
		m.sys.log.Warn("task alerts not loaded", zap.Error(err))
		open = map[string]bool{}
	}
	var last uint64
	for {
		m.mu.Lock()
		if m.stopped {
			m.mu.Unlock()
			return
		}
		backlog, sub, gone := m.sys.Events.SubscribeLocal(last)
		m.sub = sub
		m.mu.Unlock()
		if gone {
			m.sys.log.Warn("task alerts missed events that left the backlog", zap.Uint64("after_event", last))
		}
		for _, ev := range backlog {
			m.onEvent(ev, open)
			last = ev.ID
		}
		for ev := range sub.C {
			m.onEvent(ev, open)
			last = ev.ID
		}
		select {
		case <-m.done:
			return
		case <-time.After(10 * time.Millisecond):
			// Cut off, or the bus closed under us: subscribe again, without spinning.
		}
	}
}

// onEvent raises or resolves task_failed; open holds the machines with one open.
func (m *Monitoring) onEvent(ev events.Event, open map[string]bool) {
	// A panic costs this event, not the watcher.
	defer kit.Recover(m.sys.log, "task alert watcher", nil)
	switch ev.Type {
	case events.EventTask:
		var t tasks.Task
		if json.Unmarshal(ev.Data, &t) != nil || t.TargetType != "machine" || t.TargetID == "" {
			return
		}
		switch t.Status {
		case tasks.TaskFailed:
			msg := fmt.Sprintf("task %s (%s) failed", t.Type, t.ID)
			if t.Error != nil {
				msg += ": " + *t.Error
			}
			// One line per failed task (a user's request or a schedule's run), with
			// its reason, for the operator reading the log.
			m.sys.log.Info("task failed", zap.String("task_id", t.ID), zap.String("type", t.Type),
				zap.String("machine_id", t.TargetID), zap.Stringp("tenant_id", t.TenantID), zap.Stringp("error", t.Error))
			machine := t.TargetID
			m.sys.Alerts.Notify(alerts.AlertRaise{Kind: alerts.AlertTaskFailed, Severity: alerts.SeverityWarning, TargetType: "machine",
				TargetID: t.TargetID, TenantID: t.TenantID, MachineID: &machine, Message: msg})
			open[t.TargetID] = true
		case tasks.TaskSucceeded:
			if open[t.TargetID] || m.openElsewhere(alerts.AlertTaskFailed, t.TargetID) {
				m.sys.Alerts.Clear(alerts.AlertTaskFailed, t.TargetID)
				delete(open, t.TargetID)
			}
		}
	case events.EventMachineDeleted:
		var d struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(ev.Data, &d) == nil {
			m.sys.log.Info("machine deleted", zap.String("machine_id", d.ID))
		}
		if json.Unmarshal(ev.Data, &d) == nil && (open[d.ID] || m.openElsewhere(alerts.AlertTaskFailed, d.ID)) {
			m.sys.Alerts.Clear(alerts.AlertTaskFailed, d.ID)
			delete(open, d.ID)
		}
	}
}

// openElsewhere reports, in a cluster, whether kind's alert on target is open though
// this member's watcher did not raise it: the watcher of the member that ran the
// failed task did, and the machine has moved here since. On a single node open says
// it all, and nothing is read.
func (m *Monitoring) openElsewhere(kind, target string) bool {
	if !m.sys.store.Shared() {
		return false
	}
	ctx, cancel := m.sys.rt.Work()
	defer cancel()
	return m.sys.Alerts.IsOpen(ctx, kind, target)
}

// openConditions returns the targets of kind's open alerts.
func (m *Monitoring) openConditions(ctx context.Context, kind string) (map[string]bool, error) {
	return m.sys.Alerts.OpenTargets(ctx, kind)
}

// reconcileNodes makes the node_offline alerts match the node records at start: the
// node entities raise and resolve them as statuses change, and this repairs a change
// that a crash lost between the two writes.
func (m *Monitoring) reconcileNodes() error {
	ctx, cancel := m.sys.rt.Work()
	defer cancel()
	open, err := m.openConditions(ctx, alerts.AlertNodeOffline)
	if err != nil {
		return err
	}
	nodes, _, err := m.sys.Nodes.List(ctx, "", 0)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		offline := n.Status == string(hypervisor.NodeOffline)
		if offline != open[n.ID] {
			m.sys.Alerts.NodeStatus(n.ID, n.Status)
		}
		delete(open, n.ID)
	}
	for id := range open {
		m.sys.Alerts.NodeStatus(id, "")
	}
	return nil
}

// watchUsage evaluates node usage on a timer.
func (m *Monitoring) watchUsage() *kit.Loop {
	ctx, cancel := m.sys.rt.Work()
	open, err := m.openConditions(ctx, alerts.AlertNodeUsageHigh)
	cancel()
	if err != nil {
		m.sys.log.Warn("node usage alerts not loaded", zap.Error(err))
		open = map[string]bool{}
	}
	since := map[string]time.Time{}
	return m.sys.rt.EveryOnOne("node usage evaluation", m.opts.NodeUsageEvery, false, func(_ context.Context, now time.Time) {
		if err := m.evaluateUsage(now, open, since); err != nil {
			m.sys.log.Warn("node usage not evaluated", zap.Error(err))
		}
	})
}

// evaluateUsage raises node_usage_high for a node whose cpu or memory has been above
// the threshold at every evaluation for NodeUsageFor, and resolves it once the node is
// below again (or offline, or gone: no figures, and node_offline says the rest).
// open and since are the evaluator's memory: nodes alerted, and since when each busy
// node has been busy.
func (m *Monitoring) evaluateUsage(now time.Time, open map[string]bool, since map[string]time.Time) (err error) {
	// A panic costs this evaluation, not the watcher.
	defer kit.Recover(m.sys.log, "node usage evaluation", func(e error) { err = e })
	nodes, _, err := m.sys.Nodes.List(context.Background(), "", 0)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, n := range nodes {
		seen[n.ID] = true
		what, frac := nodeBusiest(n)
		if n.Status != string(hypervisor.NodeOnline) || frac <= m.opts.NodeUsageThreshold {
			delete(since, n.ID)
			if open[n.ID] {
				m.sys.Alerts.Clear(alerts.AlertNodeUsageHigh, n.ID)
				delete(open, n.ID)
			}
			continue
		}
		first, ok := since[n.ID]
		if !ok {
			since[n.ID], first = now, now
		}
		if !open[n.ID] && now.Sub(first) >= m.opts.NodeUsageFor {
			m.sys.Alerts.Notify(alerts.AlertRaise{Kind: alerts.AlertNodeUsageHigh, Severity: alerts.SeverityWarning, TargetType: "node", TargetID: n.ID,
				Message: fmt.Sprintf("node %s %s usage is %.0f%%, above %.0f%% for %s", n.ID, what, frac*100,
					m.opts.NodeUsageThreshold*100, m.opts.NodeUsageFor)})
			open[n.ID] = true
		}
	}
	for id := range since {
		if !seen[id] {
			delete(since, id)
		}
	}
	for id := range open {
		if !seen[id] {
			m.sys.Alerts.Clear(alerts.AlertNodeUsageHigh, id)
			delete(open, id)
		}
	}
	return nil
}

// nodeBusiest names a node's busier resource, cpu or memory, and its fraction in use.
func nodeBusiest(n capacity.Node) (string, float64) {
	memFrac := 0.0
	if n.MemoryMB > 0 {
		memFrac = float64(n.Usage.MemBytes) / (float64(n.MemoryMB) * (1 << 20))
	}
	if n.Usage.CPU >= memFrac {
		return "cpu", n.Usage.CPU
	}
	return "memory", memFrac
}

// MonitoringOverview is the operators' summary of the cluster. Capacity counts the
// online nodes: an offline node reports no figures.
type MonitoringOverview struct {
	Nodes        OverviewNodes    `json:"nodes"`
	Machines     OverviewMachines `json:"machines"`
	Alerts       OverviewAlerts   `json:"alerts"`
	HealthChecks OverviewChecks   `json:"health_checks"`
	Capacity     OverviewCapacity `json:"capacity"`
}

// OverviewNodes counts nodes by status.
type OverviewNodes struct {
	Total   int `json:"total"`
	Online  int `json:"online"`
	Offline int `json:"offline"`
}

// OverviewMachines counts machines by status; other is provisioning, migrating and
// suspended.
type OverviewMachines struct {
	Total   int `json:"total"`
	Running int `json:"running"`
	Stopped int `json:"stopped"`
	Error   int `json:"error"`
	Other   int `json:"other"`
}

// OverviewAlerts counts open alert events: firing (not acknowledged), the critical
// ones among them, and acknowledged ones.
type OverviewAlerts struct {
	Firing       int `json:"firing"`
	Critical     int `json:"critical"`
	Acknowledged int `json:"acknowledged"`
}

// OverviewChecks counts health checks by their latest status; a disabled check counts
// in total and disabled only.
type OverviewChecks struct {
	Total    int `json:"total"`
	Passing  int `json:"passing"`
	Failing  int `json:"failing"`
	Unknown  int `json:"unknown"`
	Disabled int `json:"disabled"`
}

// OverviewCapacity is what the online nodes have and use.
type OverviewCapacity struct {
	CPU    OverviewCPU    `json:"cpu"`
	Memory OverviewMemory `json:"memory"`
	Disk   OverviewDisk   `json:"disk"`
}

// OverviewCPU is cpu capacity in cores; ratio is used/total (0 with no capacity).
type OverviewCPU struct {
	TotalCores int     `json:"total_cores"`
	UsedCores  float64 `json:"used_cores"`
	Ratio      float64 `json:"ratio"`
}

// OverviewMemory is memory capacity in MiB.
type OverviewMemory struct {
	TotalMB int     `json:"total_mb"`
	UsedMB  float64 `json:"used_mb"`
	Ratio   float64 `json:"ratio"`
}

// OverviewDisk is disk capacity in GiB.
type OverviewDisk struct {
	TotalGB int     `json:"total_gb"`
	UsedGB  float64 `json:"used_gb"`
	Ratio   float64 `json:"ratio"`
}

// Overview summarises the cluster from the records the actors keep: nodes and their
// usage as of the last sync, machines, open alerts and the health checks' live status.
func (m *Monitoring) Overview(ctx context.Context) (MonitoringOverview, error) {
	var o MonitoringOverview
	nodes, _, err := m.sys.Nodes.List(ctx, "", 0)
	if err != nil {
		return o, err
	}
	var usedCores, usedMB, usedGB float64
	for _, n := range nodes {
		o.Nodes.Total++
		if n.Status != string(hypervisor.NodeOnline) {
			o.Nodes.Offline++
			continue
		}
		o.Nodes.Online++
		o.Capacity.CPU.TotalCores += n.CPUCores
		o.Capacity.Memory.TotalMB += n.MemoryMB
		o.Capacity.Disk.TotalGB += n.DiskGB
		usedCores += n.Usage.CPU * float64(n.CPUCores)
		usedMB += float64(n.Usage.MemBytes) / (1 << 20)
		usedGB += float64(n.Usage.DiskBytes) / (1 << 30)
	}
	c := &o.Capacity
	c.CPU.UsedCores, c.CPU.Ratio = monRound2(usedCores), monRatio(usedCores, float64(c.CPU.TotalCores))
	c.Memory.UsedMB, c.Memory.Ratio = monRound2(usedMB), monRatio(usedMB, float64(c.Memory.TotalMB))
	c.Disk.UsedGB, c.Disk.Ratio = monRound2(usedGB), monRatio(usedGB, float64(c.Disk.TotalGB))

	ms, _, err := m.sys.Machines.List(ctx, "", 0, nil)
	if err != nil {
		return o, err
	}
	for _, mc := range ms {
		o.Machines.Total++
		switch mc.Status {
		case machines.StatusRunning:
			o.Machines.Running++
		case machines.StatusStopped:
			o.Machines.Stopped++
		case machines.StatusError:
			o.Machines.Error++
		default:
			o.Machines.Other++
		}
	}

	open, err := m.sys.Alerts.OpenAlerts(ctx)
	if err != nil {
		return o, err
	}
	for _, a := range open {
		switch a.Status {
		case alerts.AlertFiring:
			o.Alerts.Firing++
			if a.Severity == alerts.SeverityCritical {
				o.Alerts.Critical++
			}
		case alerts.AlertAcknowledged:
			o.Alerts.Acknowledged++
		}
	}

	checks, _, err := m.sys.HealthChecks.List(ctx, nil, "", 0)
	if err != nil {
		return o, err
	}
	for _, hc := range checks {
		o.HealthChecks.Total++
		switch {
		case !hc.Enabled:
			o.HealthChecks.Disabled++
		case hc.Last.Status == CheckPassing:
			o.HealthChecks.Passing++
		case hc.Last.Status == CheckFailing:
			o.HealthChecks.Failing++
		default:
			o.HealthChecks.Unknown++
		}
	}
	return o, nil
}

func monRatio(used, total float64) float64 {
	if total <= 0 {
		return 0
	}
	return math.Round(used/total*10000) / 10000
}

func monRound2(v float64) float64 { return math.Round(v*100) / 100 }
