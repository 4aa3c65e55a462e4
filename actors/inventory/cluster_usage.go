package inventory

import (
	"context"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/hypervisor"
)

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
	nodes, _, err := c.nodes.List(ctx, "", 0)
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
			defer kit.Recover(c.log, "usage of node "+n.ID, func(err error) { errs[i] = err })
			graphs[i], errs[i] = c.nodes.Usage(ctx, n.ID, tf, end)
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
			c.log.Debug("cluster usage: node left out", zap.String("node", nodes[i].ID), zap.Error(err))
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
