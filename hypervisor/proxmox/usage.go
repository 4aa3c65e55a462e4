package proxmox

import (
	"bytes"
	"context"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
)

// nullFloat is an RRD value that may be missing: empty buckets come with only "time",
// and Proxmox has sent numbers as strings in some versions. go-proxmox's RRDData uses
// plain floats, which would turn gaps into zeros, so the driver decodes points itself.
type nullFloat struct {
	v  float64
	ok bool
}

func (n *nullFloat) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(b, `"`)
	if len(b) == 0 || string(b) == "null" {
		*n = nullFloat{}
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		*n = nullFloat{} // an unreadable value is a gap, not a failed graph
		return nil
	}
	*n = nullFloat{v: f, ok: true}
	return nil
}

func (n nullFloat) ptr() *float64 {
	if !n.ok {
		return nil
	}
	v := n.v
	return &v
}

// rrdPoint is one rrddata bucket of a VM or a node.
type rrdPoint struct {
	Time nullFloat `json:"time"`
	// VM and node
	CPU    nullFloat `json:"cpu"`
	MaxCPU nullFloat `json:"maxcpu"`
	NetIn  nullFloat `json:"netin"`
	NetOut nullFloat `json:"netout"`
	// VM
	Mem       nullFloat `json:"mem"`
	MaxMem    nullFloat `json:"maxmem"`
	DiskRead  nullFloat `json:"diskread"`
	DiskWrite nullFloat `json:"diskwrite"`
	// node
	MemUsed  nullFloat `json:"memused"`
	MemTotal nullFloat `json:"memtotal"`
}

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
	var raw []rrdPoint
	if err := d.get(ctx, path, query, &raw); err != nil {
		return hypervisor.UsageGraph{}, err
	}
	g := hypervisor.UsageGraph{Timeframe: q.Timeframe, ResolutionSeconds: int(step / time.Second), Points: make([]hypervisor.UsagePoint, 0, len(raw))}
	for _, p := range raw {
		if !p.Time.ok {
			continue // a bucket without a time cannot be placed
		}
		at := time.Unix(int64(p.Time.v), 0).UTC()
		if !q.End.IsZero() && at.After(q.End) {
			continue
		}
		up := hypervisor.UsagePoint{Time: at, CPU: p.CPU.ptr(), CPUCores: p.MaxCPU.ptr(), NetInBps: p.NetIn.ptr(), NetOutBps: p.NetOut.ptr()}
		if isNode {
			up.MemBytes, up.MemTotalBytes = p.MemUsed.ptr(), p.MemTotal.ptr()
		} else {
			up.MemBytes, up.MemTotalBytes = p.Mem.ptr(), p.MaxMem.ptr()
			up.DiskReadBps, up.DiskWriteBps = p.DiskRead.ptr(), p.DiskWrite.ptr()
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
