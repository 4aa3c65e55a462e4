package tenants

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
)

// Overview is the client area's summary of a tenant.
type Overview struct {
	Machines   MachineCounts `json:"machines"`
	Usage      Usage         `json:"usage"`
	Quota      Quota         `json:"quota"`
	AlertsOpen int           `json:"alerts_open"`
	Backups    int           `json:"backups"`
	// MissingNodes lists the offline nodes that hold some of the tenant's machines:
	// their status is the last one known, not the hypervisor's of now.
	MissingNodes []string `json:"missing_nodes"`
}

// MachineCounts counts a tenant's machines by status.
type MachineCounts struct {
	Total   int `json:"total"`
	Running int `json:"running"`
	Stopped int `json:"stopped"`
}

// Overview summarises a tenant: its machines, usage against quota, open alerts and backups.
func (t *Tenants) Overview(ctx context.Context, tenant string) (Overview, error) {
	ten, err := t.Get(ctx, tenant)
	if err != nil {
		return Overview{}, err
	}
	u, err := t.Usage(ctx, tenant)
	if err != nil {
		return Overview{}, err
	}
	o := Overview{Usage: u, Quota: ten.Quota}
	ms, _, err := t.sys.Machines.ListTenant(ctx, tenant, "", 0)
	if err != nil {
		return Overview{}, err
	}
	offline, err := t.sys.Nodes.Offline(ctx)
	if err != nil {
		return Overview{}, err
	}
	o.MissingNodes = []string{}
	for _, m := range ms {
		o.Machines.Total++
		switch m.Status {
		case machines.StatusRunning:
			o.Machines.Running++
		case machines.StatusStopped:
			o.Machines.Stopped++
		}
		// Node records of other locations are name@location (capacity.NodeID).
		if node := capacity.NodeID(string(m.Location), m.Node); offline[node] && !slices.Contains(o.MissingNodes, node) {
			o.MissingNodes = append(o.MissingNodes, node)
		}
	}
	sort.Strings(o.MissingNodes)
	if t.sys.Alerts != nil {
		if o.AlertsOpen, err = t.sys.Alerts.OpenCount(ctx, tenant); err != nil {
			return Overview{}, err
		}
	}
	if o.Backups, err = t.sys.Backups.Count(ctx, tenant, 0); err != nil {
		return Overview{}, err
	}
	return o, nil
}

// TrendPoint is one day of a tenant's consumption.
type TrendPoint struct {
	Date          string  `json:"date"` // YYYY-MM-DD, UTC
	CPUCoreHours  float64 `json:"cpu_core_hours"`
	MemoryGBHours float64 `json:"memory_gb_hours"`
	NetInBytes    float64 `json:"net_in_bytes"`
	NetOutBytes   float64 `json:"net_out_bytes"`
}

// Trends is a tenant's daily consumption, oldest day first.
type Trends struct {
	Days   int          `json:"days"`
	Points []TrendPoint `json:"points"`
	// MissingMachines lists the machines whose usage could not be read (their node
	// is offline, or the hypervisor did not answer for them): the sums leave them out.
	MissingMachines []string `json:"missing_machines"`
	// MissingNodes lists the nodes of those machines.
	MissingNodes []string `json:"missing_nodes"`
}

// UsageTrends computes a tenant's daily consumption over the last days from the
// driver's usage graphs of its machines: core-hours are cpu × cores × bucket hours,
// GB-hours memory × bucket hours, bytes the rates × bucket seconds. The bucket width
// is each graph's own (resolution_seconds, read from its timestamps), because
// hypervisors keep different layouts (Proxmox VE 9: 30-minute buckets a month;
// before 9: 12 hours). The month graph covers 30 days; longer spans use the year
// graph. A machine whose graph cannot be read (its node is offline) is left out of
// the sums and named in MissingMachines, its node in MissingNodes; only the caller's
// own cancellation fails the answer.
func (t *Tenants) UsageTrends(ctx context.Context, tenant string, days int, now time.Time) (Trends, error) {
	if _, err := t.Get(ctx, tenant); err != nil {
		return Trends{}, err
	}
	ms, _, err := t.sys.Machines.ListTenant(ctx, tenant, "", 0)
	if err != nil {
		return Trends{}, err
	}
	tf := hypervisor.TimeframeMonth
	if days > 30 {
		tf = hypervisor.TimeframeYear
	}
	step, _, _ := tf.Resolution()
	now = now.UTC()
	first := now.Truncate(24*time.Hour).AddDate(0, 0, -(days - 1))
	byDate := map[string]*TrendPoint{}
	points := make([]TrendPoint, days)
	for i := range points {
		points[i].Date = first.AddDate(0, 0, i).Format("2006-01-02")
		byDate[points[i].Date] = &points[i]
	}
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		missing  []string
		missingN = map[string]bool{}
	)
	sem := make(chan struct{}, 8)
	for _, m := range ms {
		if m.VMID == 0 {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			// A read that panics leaves its machine out, as one that fails.
			defer kit.Recover(t.sys.log, "machine usage read", func(error) {
				mu.Lock()
				defer mu.Unlock()
				missing = append(missing, m.ID)
				missingN[capacity.NodeID(string(m.Location), m.Node)] = true
			})
			g, err := t.sys.driver.Usage(ctx, hypervisor.UsageQuery{Scope: hypervisor.ScopeMachine,
				Ref: m.Ref(), Timeframe: tf, End: now})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.sys.log.Debug("usage trends: machine left out", zap.String("machine_id", m.ID), zap.Error(err))
				missing = append(missing, m.ID)
				missingN[capacity.NodeID(string(m.Location), m.Node)] = true
				return
			}
			width := step
			if g.ResolutionSeconds > 0 {
				width = time.Duration(g.ResolutionSeconds) * time.Second
			}
			hours, secs := width.Hours(), width.Seconds()
			for _, p := range g.Points {
				d, ok := byDate[p.Time.UTC().Format("2006-01-02")]
				if !ok {
					continue
				}
				if p.CPU != nil && p.CPUCores != nil {
					d.CPUCoreHours += *p.CPU * *p.CPUCores * hours
				}
				if p.MemBytes != nil {
					d.MemoryGBHours += *p.MemBytes / (1 << 30) * hours
				}
				if p.NetInBps != nil {
					d.NetInBytes += *p.NetInBps * secs
				}
				if p.NetOutBps != nil {
					d.NetOutBytes += *p.NetOutBps * secs
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Trends{}, hypervisor.ContextError(err)
	}
	sort.Slice(points, func(i, j int) bool { return points[i].Date < points[j].Date })
	out := Trends{Days: days, Points: points, MissingMachines: []string{}, MissingNodes: []string{}}
	out.MissingMachines = append(out.MissingMachines, missing...)
	sort.Strings(out.MissingMachines)
	for n := range missingN {
		out.MissingNodes = append(out.MissingNodes, n)
	}
	sort.Strings(out.MissingNodes)
	return out, nil
}
