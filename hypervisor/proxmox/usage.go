package proxmox

import (
	"context"
	"net/url"
	"sort"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
)

// Usage reads rrddata (cf=AVERAGE) of a machine (GET .../qemu/{vmid}/rrddata) or a node
// (GET /nodes/{n}/rrddata) and returns exactly the buckets Proxmox has, oldest first,
// with every value nullable. Machine values: cpu (fraction of maxcpu), maxcpu, mem,
// maxmem, netin/netout and diskread/diskwrite (already bytes/s). Node values: cpu,
// maxcpu, memused, memtotal, netin/netout; Proxmox keeps no disk IO per node, so those
// are nil. Proxmox always answers the window ending now: a non-zero q.End only drops
// buckets after it. ResolutionSeconds is the spacing of the answer's own timestamps
// (see spacing): PVE 8 and PVE 9 keep different layouts.
func (d *Driver) Usage(ctx context.Context, q hypervisor.UsageQuery) (hypervisor.UsageGraph, error) {
	if err := ctx.Err(); err != nil {
		return hypervisor.UsageGraph{}, hypervisor.ContextError(err)
	}
	step, _, ok := q.Timeframe.Resolution()
	if !ok {
		return hypervisor.UsageGraph{}, invalid("timeframe", "must be one of hour, day, week, month, year")
	}
	query := url.Values{"timeframe": {string(q.Timeframe)}, "cf": {"AVERAGE"}}
	var path string
	isNode := false
	switch q.Scope {
	case hypervisor.ScopeMachine:
		l, err := d.locateLive(ctx, q.Ref.VMID)
		if err != nil {
			return hypervisor.UsageGraph{}, err
		}
		path = l.path() + "/rrddata"
	case hypervisor.ScopeNode:
		view, err := d.resources(ctx)
		if err != nil {
			return hypervisor.UsageGraph{}, err
		}
		if _, ok := view.nodes[q.Ref.Node]; !ok {
			return hypervisor.UsageGraph{}, hypervisor.NewError(hypervisor.ErrNodeNotFound, "node %q does not exist", q.Ref.Node)
		}
		if !view.online(q.Ref.Node) {
			return hypervisor.UsageGraph{}, hypervisor.NewError(hypervisor.ErrNodeOffline, "node %s is offline", q.Ref.Node)
		}
		path = "/nodes/" + url.PathEscape(q.Ref.Node) + "/rrddata"
		isNode = true
	default:
		return hypervisor.UsageGraph{}, invalid("scope", "must be machine or node")
	}
	var raw []pveconf.RRDPoint
	if err := d.get(ctx, path, query, &raw); err != nil {
		return hypervisor.UsageGraph{}, err
	}
	g := hypervisor.UsageGraph{Timeframe: q.Timeframe, ResolutionSeconds: int(step / time.Second), Points: make([]hypervisor.UsagePoint, 0, len(raw))}
	for _, p := range raw {
		secs := p.Time.Ptr()
		if secs == nil {
			continue // a bucket without a time cannot be placed
		}
		at := time.Unix(int64(*secs), 0).UTC()
		if !q.End.IsZero() && at.After(q.End) {
			continue
		}
		up := hypervisor.UsagePoint{Time: at, CPU: p.CPU.Ptr(), CPUCores: p.MaxCPU.Ptr(), NetInBps: p.NetIn.Ptr(), NetOutBps: p.NetOut.Ptr()}
		if isNode {
			up.MemBytes, up.MemTotalBytes = p.MemUsed.Ptr(), p.MemTotal.Ptr()
		} else {
			up.MemBytes, up.MemTotalBytes = p.Mem.Ptr(), p.MaxMem.Ptr()
			up.DiskReadBps, up.DiskWriteBps = p.DiskRead.Ptr(), p.DiskWrite.Ptr()
		}
		g.Points = append(g.Points, up)
	}
	sort.SliceStable(g.Points, func(i, j int) bool { return g.Points[i].Time.Before(g.Points[j].Time) })
	if real := spacing(g.Points); real > 0 {
		g.ResolutionSeconds = int(real / time.Second)
	}
	return g, nil
}

// spacing is the bucket width of a series, read from its own timestamps: the most
// common gap between neighbours (the smallest on a tie), or 0 with fewer than two
// points. Proxmox's RRA layout differs by version (PVE 9: 1,440 one-minute points a
// day; before: 70 points 30 minutes apart), so the width is never taken from a table
// of what a version is assumed to keep; only a series too short to tell falls back
// to the PVE 9 table.
func spacing(ps []hypervisor.UsagePoint) time.Duration {
	count := map[time.Duration]int{}
	var best time.Duration
	for i := 1; i < len(ps); i++ {
		gap := ps[i].Time.Sub(ps[i-1].Time)
		if gap <= 0 {
			continue
		}
		count[gap]++
		if c, b := count[gap], count[best]; best == 0 || c > b || c == b && gap < best {
			best = gap
		}
	}
	return best
}
