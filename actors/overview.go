package actors

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Overview is the client area's summary of a tenant.
type Overview struct {
	Machines   MachineCounts `json:"machines"`
	Usage      Usage         `json:"usage"`
	Quota      Quota         `json:"quota"`
	AlertsOpen int           `json:"alerts_open"`
	Backups    int           `json:"backups"`
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
	for _, m := range ms {
		o.Machines.Total++
		switch m.Status {
		case StatusRunning:
			o.Machines.Running++
		case StatusStopped:
			o.Machines.Stopped++
		}
	}
	count := func(prefix []byte) (int, error) {
		n := 0
		err := t.sys.store.Scan(prefix, nil, 0, func(_, _ []byte) error { n++; return nil })
		return n, err
	}
	if o.AlertsOpen, err = count(persistence.Prefix("alert-open", tenant)); err != nil {
		return Overview{}, err
	}
	if o.Backups, err = count(persistence.Prefix("backup", tenant)); err != nil {
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
}

// UsageTrends computes a tenant's daily consumption over the last days from the
// driver's usage graphs of its machines: core-hours are cpu × cores × bucket hours,
// GB-hours memory × bucket hours, bytes the rates × bucket seconds. The month graph
// (30-minute buckets) covers 30 days; longer spans use the year graph (6-hour buckets).
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
		firstErr error
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
			defer Recover(t.sys.log, "machine usage read", func(err error) {
				mu.Lock()
				defer mu.Unlock()
				if firstErr == nil {
					firstErr = err
				}
			})
			g, err := t.sys.driver.Usage(ctx, hypervisor.UsageQuery{Scope: hypervisor.ScopeMachine,
				Ref: hypervisor.Ref{VMID: m.VMID, Node: m.Node}, Timeframe: tf, End: now})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			hours, secs := step.Hours(), step.Seconds()
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
	if firstErr != nil {
		return Trends{}, firstErr
	}
	sort.Slice(points, func(i, j int) bool { return points[i].Date < points[j].Date })
	return Trends{Days: days, Points: points}, nil
}
