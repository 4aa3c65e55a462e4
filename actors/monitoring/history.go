package monitoring

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// The cluster's usage history is one record per UTC day, usage-day/<YYYY-MM-DD>,
// holding for each resource the average and the maximum of that day's samples and the
// capacity. Keys sort by date, so a date range is one short scan.
//
// Two writers fill it, both on the history sampler's goroutine, so a day's record is
// never written by two at once:
//   - the sampler: every interval (default hourly, and once at start) it reads the
//     driver's inventory and folds the cluster's current usage into today's record;
//   - the backfill: once per start, days before today that have no record are
//     computed from the nodes' year usage graphs (6-hour buckets), summed over nodes
//     bucket by bucket and averaged per day, so that the forecast has months of
//     history on its first day (and a stopped server's gap is filled). Usage graphs
//     carry no disk space, so backfilled days have cpu and memory only; the disk
//     history starts with the sampler.
//
// The forecast uses each day's average; the maximum is kept for a later look at peaks.
//
// Units: cpu in cores used (the nodes' cpu fraction × cores, summed), memory and disk
// in bytes; capacity in the same unit (cores, memory_mb × 2^20, disk_gb × 2^30).
// Capacity counts every node the hypervisor reports, online or not: an offline node's
// capacity comes back with it, and so do its machines.

// Resources of the usage history and the forecast.
const (
	ResourceCPU    = "cpu"
	ResourceMemory = "memory"
	ResourceDisk   = "disk"
)

// ForecastHistoryDays is how many days of history the forecast shows and fits.
const ForecastHistoryDays = 90

// HistoryRetention is how long a day's record is kept: a year of backfill plus margin.
const HistoryRetention = 400 * 24 * time.Hour

// MaxForecastHorizon is the longest horizon the forecast looks ahead, in days.
const MaxForecastHorizon = 365

// UsageDay is the cluster's usage on one UTC day.
type UsageDay struct {
	Date string `json:"date"` // YYYY-MM-DD
	// Source is "sample" for a day the sampler saw, "backfill" for one computed from
	// the usage graphs.
	Source string       `json:"source"`
	CPU    *ResourceDay `json:"cpu,omitempty"`
	Memory *ResourceDay `json:"memory,omitempty"`
	Disk   *ResourceDay `json:"disk,omitempty"`
}

// ResourceDay is one resource's usage over a day.
type ResourceDay struct {
	Avg      float64 `json:"avg"`
	Max      float64 `json:"max"`
	Capacity float64 `json:"capacity"`
	Samples  int     `json:"samples"`
}

// add folds one sample into the day: a running mean, so the record stays small.
func (r *ResourceDay) add(used, capacity float64) {
	r.Samples++
	r.Avg += (used - r.Avg) / float64(r.Samples)
	if r.Samples == 1 || used > r.Max {
		r.Max = used
	}
	r.Capacity = capacity
}

// resource returns the day's record of one resource (nil when the day has none).
func (d *UsageDay) resource(name string) *ResourceDay {
	switch name {
	case ResourceCPU:
		return d.CPU
	case ResourceMemory:
		return d.Memory
	case ResourceDisk:
		return d.Disk
	}
	return nil
}

const usageDayVersion = 1

// UsageDayKey is the store key of a day's usage record.
func UsageDayKey(date string) []byte { return persistence.Key("usage-day", date) }

// EncodeUsageDay returns the stored form of a day's usage record, for tools and tests
// that write history directly.
func EncodeUsageDay(d UsageDay) ([]byte, error) { return persistence.Encode(usageDayVersion, d) }

// History samples the cluster's usage into the daily history and forecasts from it.
type History struct {
	sys      *system
	interval time.Duration
	// mu serialises the writers of day records (the timer, and Sample or Backfill
	// called directly).
	mu sync.Mutex
	// loop samples at every interval (nil: no sampling).
	loop *kit.Loop
}

// startHistory starts the sampler when interval is positive and there is a driver.
func startHistory(s *system, interval time.Duration) *History {
	h := &History{sys: s, interval: interval}
	if interval > 0 && s.driver != nil {
		backfilled := false
		// Backfill once (again at the next tick if it failed: the hypervisor down),
		// then sample at start and at every interval.
		h.loop = s.rt.EveryOnOne("usage history sample", interval, true, func(base context.Context, now time.Time) {
			ctx, cancel := context.WithTimeout(base, max(h.interval, time.Minute))
			defer cancel()
			if !backfilled {
				n, err := h.Backfill(ctx, now)
				if err != nil {
					if base.Err() == nil {
						h.sys.log.Warn("usage history backfill failed", zap.Error(err))
					}
				} else {
					backfilled = true
					if n > 0 {
						h.sys.log.Info("usage history backfilled", zap.Int("days", n))
					}
				}
			}
			if err := h.Sample(ctx, now); err != nil && base.Err() == nil {
				h.sys.log.Warn("usage history sample failed", zap.Error(err))
			}
		})
	}
	return h
}

// Stop ends the sampler and waits for it.
func (h *History) Stop() { h.loop.Stop() }

// clusterNow is the cluster's usage and capacity per resource, from the inventory.
type clusterNow struct {
	used, capacity map[string]float64
}

// nodes lists the nodes of every location that answers (each tagged with its
// location), so that one location down does not cost the others' history; the
// locations that did not answer are logged as missing (their usage and capacity are
// not counted). Only when none answers is it an error.
func (h *History) nodes(ctx context.Context, what string) ([]hypervisor.Node, error) {
	var nodes []hypervisor.Node
	var missing []string
	var firstErr error
	answered := 0
	for _, li := range hvloc.InventoriesOf(ctx, h.sys.driver) {
		if li.Err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, hypervisor.ContextError(cerr)
			}
			missing = append(missing, hvloc.Name(li.Location))
			if firstErr == nil {
				firstErr = li.Err
			}
			continue
		}
		answered++
		nodes = append(nodes, li.Inventory.Nodes...)
	}
	if firstErr != nil && answered == 0 {
		return nil, firstErr
	}
	if len(missing) > 0 {
		h.sys.log.Warn("usage history "+what+" without some locations: their usage and capacity are not counted",
			zap.Strings("missing_locations", missing))
	}
	return nodes, nil
}

func (h *History) measure(ctx context.Context) (clusterNow, error) {
	nodes, err := h.nodes(ctx, "sampled")
	if err != nil {
		return clusterNow{}, err
	}
	c := clusterNow{used: map[string]float64{}, capacity: map[string]float64{}}
	for _, n := range nodes {
		// An offline node reports no cpu or memory use; its disks stay allocated.
		c.used[ResourceCPU] += n.CPU * float64(n.CPUCores)
		c.used[ResourceMemory] += float64(n.MemBytes)
		c.used[ResourceDisk] += float64(n.DiskBytes)
		c.capacity[ResourceCPU] += float64(n.CPUCores)
		c.capacity[ResourceMemory] += float64(n.MemoryMB) * (1 << 20)
		c.capacity[ResourceDisk] += float64(n.DiskGB) * (1 << 30)
	}
	return c, nil
}

// Sample reads the cluster's usage now and folds it into the record of now's day.
func (h *History) Sample(ctx context.Context, now time.Time) error {
	if h.sys.driver == nil {
		return apierr.New(apierr.ErrUnavailable, "no hypervisor driver")
	}
	c, err := h.measure(ctx)
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	date := dayOf(now).Format(time.DateOnly)
	day, _, err := h.day(ctx, date)
	if err != nil {
		return err
	}
	day.Date, day.Source = date, "sample"
	for _, r := range []struct {
		name string
		rec  **ResourceDay
	}{{ResourceCPU, &day.CPU}, {ResourceMemory, &day.Memory}, {ResourceDisk, &day.Disk}} {
		if *r.rec == nil {
			*r.rec = &ResourceDay{}
		}
		(*r.rec).add(c.used[r.name], c.capacity[r.name])
	}
	b := new(persistence.Batch)
	if err := putUsageDay(b, day, now); err != nil {
		return err
	}
	return h.sys.store.Commit(ctx, b)
}

// Backfill computes the days before now's day that have no record from the nodes' year
// usage graphs and stores them; it returns how many days it wrote.
func (h *History) Backfill(ctx context.Context, now time.Time) (int, error) {
	if h.sys.driver == nil {
		return 0, apierr.New(apierr.ErrUnavailable, "no hypervisor driver")
	}
	buckets, err := h.yearBuckets(ctx, now)
	if err != nil {
		return 0, err
	}
	type acc struct{ cpu, mem ResourceDay }
	days := map[string]*acc{}
	var order []string
	today := dayOf(now)
	for _, p := range buckets {
		d := dayOf(p.time)
		if !d.Before(today) {
			continue // today belongs to the sampler, which sees it whole
		}
		date := d.Format(time.DateOnly)
		a := days[date]
		if a == nil {
			a = &acc{}
			days[date] = a
			order = append(order, date)
		}
		if p.cpuSeen {
			a.cpu.add(p.cpuUsed, p.cores)
		}
		if p.memSeen {
			a.mem.add(p.mem, p.memTotal)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	have := map[string]bool{}
	if len(order) > 0 {
		first, _ := time.Parse(time.DateOnly, order[0])
		stored, err := h.Days(ctx, first, today)
		if err != nil {
			return 0, err
		}
		for _, d := range stored {
			have[d.Date] = true
		}
	}
	b := new(persistence.Batch)
	n := 0
	for _, date := range order {
		a := days[date]
		if have[date] || (a.cpu.Samples == 0 && a.mem.Samples == 0) {
			continue
		}
		day := UsageDay{Date: date, Source: "backfill"}
		if a.cpu.Samples > 0 {
			day.CPU = &a.cpu
		}
		if a.mem.Samples > 0 {
			day.Memory = &a.mem
		}
		if err := putUsageDay(b, day, now); err != nil {
			return 0, err
		}
		n++
	}
	if len(b.Ops) == 0 {
		return 0, nil
	}
	if err := h.sys.store.Commit(ctx, b); err != nil {
		return 0, err
	}
	return n, nil
}

// usageBucket is one 6-hour bucket of the cluster's usage, summed over nodes.
type usageBucket struct {
	time                          time.Time
	cpuUsed, cores, mem, memTotal float64
	cpuSeen, memSeen              bool
}

// yearBuckets sums the nodes' year usage graphs bucket by bucket, as Inventory.Usage
// does, but over the nodes the driver lists rather than the node records: on a first
// start the records do not exist until the first sync, and the backfill must not wait
// for one. Every node is asked for the same end time so that the buckets line up.
func (h *History) yearBuckets(ctx context.Context, now time.Time) ([]usageBucket, error) {
	nodes, err := h.nodes(ctx, "backfilled")
	if err != nil {
		return nil, err
	}
	// Buckets are matched by their time, not their index: graphs of nodes that differ in
	// length (a node added later, another Proxmox version) still line up. A node that is
	// offline or does not answer is left out, as Inventory.Usage does, so that one node
	// down does not cost the whole history; only when none answers is it an error.
	byTime := map[time.Time]*usageBucket{}
	var times []time.Time
	var missing []string
	var firstErr error
	answered := 0
	for _, n := range nodes {
		// Named as the node records name them: name@location outside the default.
		id := capacity.NodeID(n.Location, n.ID)
		if n.Status == hypervisor.NodeOffline {
			missing = append(missing, id)
			continue
		}
		g, err := h.sys.driver.Usage(ctx, hypervisor.UsageQuery{Scope: hypervisor.ScopeNode,
			Ref: hypervisor.Ref{Node: n.ID, Location: n.Location}, Timeframe: hypervisor.TimeframeYear, End: now})
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, hypervisor.ContextError(cerr)
			}
			missing = append(missing, id)
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		answered++
		for _, p := range g.Points {
			b := byTime[p.Time]
			if b == nil {
				b = &usageBucket{time: p.Time}
				byTime[p.Time] = b
				times = append(times, p.Time)
			}
			if p.CPU != nil && p.CPUCores != nil {
				b.cpuUsed += *p.CPU * *p.CPUCores
				b.cores += *p.CPUCores
				b.cpuSeen = true
			}
			if p.MemBytes != nil && p.MemTotalBytes != nil {
				b.mem += *p.MemBytes
				b.memTotal += *p.MemTotalBytes
				b.memSeen = true
			}
		}
	}
	if answered == 0 && firstErr != nil {
		return nil, firstErr
	}
	if len(missing) > 0 {
		h.sys.log.Warn("usage history backfilled without some nodes: their past usage and capacity are not counted",
			zap.Strings("missing_nodes", missing))
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	out := make([]usageBucket, len(times))
	for i, t := range times {
		out[i] = *byTime[t]
	}
	return out, nil
}

// putUsageDay adds a day's record to b, to expire HistoryRetention after that day.
func putUsageDay(b *persistence.Batch, day UsageDay, now time.Time) error {
	d, err := time.Parse(time.DateOnly, day.Date)
	if err != nil {
		return apierr.New(apierr.ErrInternal, "usage day with a bad date %q", day.Date)
	}
	ttl := d.Add(HistoryRetention).Sub(now)
	if ttl <= 0 {
		return nil
	}
	val, err := EncodeUsageDay(day)
	if err != nil {
		return err
	}
	b.PutTTL(UsageDayKey(day.Date), val, ttl)
	return nil
}

// day reads one day's record; a missing day is an empty record and found false.
func (h *History) day(ctx context.Context, date string) (UsageDay, bool, error) {
	val, err := h.sys.store.Get(ctx, UsageDayKey(date))
	if errors.Is(err, persistence.ErrNotFound) {
		return UsageDay{}, false, nil
	}
	if err != nil {
		return UsageDay{}, false, err
	}
	var d UsageDay
	if _, err := persistence.Decode(val, &d); err != nil {
		return UsageDay{}, false, err
	}
	return d, true, nil
}

// Days returns the stored days from first to last (dates, inclusive), oldest first.
func (h *History) Days(ctx context.Context, first, last time.Time) ([]UsageDay, error) {
	from, to := dayOf(first).Format(time.DateOnly), dayOf(last).Format(time.DateOnly)
	prefix := persistence.Prefix("usage-day")
	// Scan strictly after the day before the first, which starts at the first.
	after := UsageDayKey(dayOf(first).AddDate(0, 0, -1).Format(time.DateOnly))
	var out []UsageDay
	err := h.sys.store.Scan(ctx, prefix, after, 0, func(k, v []byte) error {
		date := string(k[len(prefix):])
		if date < from {
			return nil
		}
		if date > to {
			return kit.ErrStopScan
		}
		var d UsageDay
		if _, err := persistence.Decode(v, &d); err != nil {
			return err
		}
		out = append(out, d)
		return nil
	})
	if err != nil && !errors.Is(err, kit.ErrStopScan) {
		return nil, err
	}
	return out, nil
}

// ClusterForecast is the answer of GET /api/monitoring/insights/cluster-forecast.
type ClusterForecast struct {
	HorizonDays int                `json:"horizon_days"`
	Resources   []ResourceForecast `json:"resources"`
}

// ResourceForecast is one resource's usage, trend and the day it runs out.
type ResourceForecast struct {
	Resource string `json:"resource"` // cpu, memory, disk
	// Unit of used, capacity, trend_per_day and the points: cores or bytes.
	Unit string `json:"unit"`
	// Used and Capacity are the latest day's (its average usage so far).
	Used     float64 `json:"used"`
	Capacity float64 `json:"capacity"`
	// TrendPerDay is the least-squares slope of the points.
	TrendPerDay float64 `json:"trend_per_day"`
	// ExhaustedAt is the day (YYYY-MM-DD) usage reaches capacity within the horizon.
	ExhaustedAt *string         `json:"exhausted_at"`
	Points      []ForecastPoint `json:"points"`
}

// ForecastPoint is one day's average usage.
type ForecastPoint struct {
	Date string  `json:"date"`
	Used float64 `json:"used"`
}

// Forecast fits each resource's daily history of the last ForecastHistoryDays days up
// to now and reports when it reaches capacity within horizonDays (1..365). Used and
// capacity are the latest day's; a resource without history reports zeros and no date.
func (h *History) Forecast(ctx context.Context, horizonDays int, now time.Time) (ClusterForecast, error) {
	if horizonDays < 1 || horizonDays > MaxForecastHorizon {
		return ClusterForecast{}, apierr.Invalid(apierr.Field("horizon_days", "must be 1..%d", MaxForecastHorizon))
	}
	today := dayOf(now)
	days, err := h.Days(ctx, today.AddDate(0, 0, -(ForecastHistoryDays-1)), today)
	if err != nil {
		return ClusterForecast{}, err
	}
	out := ClusterForecast{HorizonDays: horizonDays, Resources: []ResourceForecast{}}
	for _, res := range []struct{ name, unit string }{{ResourceCPU, "cores"}, {ResourceMemory, "bytes"}, {ResourceDisk, "bytes"}} {
		f := ResourceForecast{Resource: res.name, Unit: res.unit, Points: []ForecastPoint{}}
		var series []DailyUsage
		for i := range days {
			r := days[i].resource(res.name)
			if r == nil || r.Samples == 0 {
				continue
			}
			d, err := time.Parse(time.DateOnly, days[i].Date)
			if err != nil {
				continue
			}
			series = append(series, DailyUsage{Date: d, Used: r.Avg})
			f.Points = append(f.Points, ForecastPoint{Date: days[i].Date, Used: r.Avg})
			f.Used, f.Capacity = r.Avg, r.Capacity
		}
		t := FitTrend(series, today)
		f.TrendPerDay = t.PerDay
		if len(series) > 0 {
			if at := Exhaustion(t, f.Used, f.Capacity, today, horizonDays); at != nil {
				f.ExhaustedAt = kit.Ptr(at.Format(time.DateOnly))
			}
		}
		out.Resources = append(out.Resources, f)
	}
	return out, nil
}
