package sim

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/fleet"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
)

// The usage model.
//
// Every value comes from one deterministic function of (seed, machine, time) at minute
// resolution. A bucket of any timeframe is the exact average of that function's minutes
// inside it, so an hour graph and a day graph agree minute for minute, and a 30-minute
// or 6-hour bucket equals the mean of the minute (or 30-minute) buckets it covers.
// Buckets of 60 s, 30 min and 6 h are aligned to the Unix epoch and so never straddle a
// UTC day, which is what makes the averages cheap to compute in closed form:
//
//	activity(t) = dayBase(day) · (curve(t) + 0.25 · noise(t))
//	dayBase     = growth(day) · dayJitter(day) · weekday(day)
//
//   - curve is a smooth daily rhythm (mean 1, 0.25 at night, a plateau of ~1.39 in the
//     working hours around a per-machine peak between 11:00 and 17:00 UTC) whose integral
//     is analytic, so a bucket's average needs no sampling.
//   - weekday is 1 on working days and 0.6 on Saturdays and Sundays.
//   - growth rises linearly from 1 at creation by a per-machine 0.2–2 % a week, capped
//     at 1.6: the slow trend the cluster forecast extrapolates.
//   - dayJitter is ±10 % per day, so days differ.
//   - noise has three scales. The minute part sums to exactly zero over each 30-minute
//     block and the 30-minute part over each 6-hour block (both are differences of a
//     hashed sequence pinned to zero at block ends), so coarse buckets simply drop the
//     finer parts and stay exact. |noise| ≤ 0.7, so activity never goes negative.
//
// Each metric has its own noise stream around the shared curve:
//
//	cpu        = level · activity                (level 0.05–0.25 per machine; ≤ 0.7)
//	mem_bytes  = total · (memBase·growth + level·activity/2)   (always < total)
//	net, disk  = per-machine scale · activity    (bytes/s)
//
// Power state: a machine's recorded history decides each minute (its state at the end of
// the minute, so a start shows in the current bucket at once). Stopped minutes are all
// zero, as Proxmox reports a stopped VM; suspended minutes keep the memory and zero the
// rest. Buckets that end before the machine was created, and buckets that start after
// now, are gaps (every field nil). cpu_cores and mem_total_bytes are the machine's
// current configuration: the sim keeps no history of resizes.
//
// A node is the sum of the machines on it now (migrations do not move history) plus a
// constant host overhead (nodeOverhead*), with cpu and memory capped at the node's
// capacity. Machines that no longer exist drop out of their node's past as well.

// Host overhead of a node, added to the sum of its machines.
const (
	nodeOverheadCPU      = 0.02          // fraction of the node's cores
	nodeOverheadMemBytes = 2 << 30       // the host's own 2 GiB
	nodeOverheadNetBps   = 2 << 10       // cluster chatter, each direction
	nodeOverheadDiskBps  = 4 << 10       // logs and RRD writes, each direction
	minuteNanos          = int64(60e9)   // one minute in nanoseconds
	daySeconds           = int64(86_400) // one UTC day
)

// Shape of the daily curve: 1 + curveA1·cos(θ) − curveA2·cos(2θ), θ = 2π(x − peak).
const (
	curveA1    = 0.55
	curveA2    = 0.20
	curveMin   = 1 - curveA1 - curveA2 // the curve's minimum, at the peak's antipode
	noiseScale = curveMin              // noise relative to dayBase; |noise| ≤ 0.7
)

// usageModel holds the seed every series derives from.
type usageModel struct {
	seed uint64
}

// profile is a machine's seeded character: how busy, when, and how it grows.
type profile struct {
	level      float64 // cpu fraction at activity 1
	peak       float64 // day fraction of the busiest hour (UTC)
	growth     float64 // growth per week
	memBase    float64 // share of memory used regardless of load
	netIn      float64 // bytes/s at activity 1
	netOutRate float64 // net out relative to net in
	diskRead   float64 // bytes/s at activity 1
	diskWrite  float64 // disk write relative to disk read
}

func (u usageModel) profile(vmid int) profile {
	r := func(i uint64) float64 { return unit(mix(u.seed, tagProfile, uint64(vmid), i)) }
	return profile{
		level:      0.05 + 0.20*r(1),
		peak:       (14 + 3*(2*r(2)-1)) / 24,
		growth:     0.002 + 0.018*r(3),
		memBase:    0.20 + 0.20*r(4),
		netIn:      20e3 * math.Pow(100, r(5)), // 20 kB/s .. 2 MB/s, log-uniform
		netOutRate: 0.3 + 2.7*r(6),
		diskRead:   10e3 * math.Pow(500, r(7)), // 10 kB/s .. 5 MB/s
		diskWrite:  0.2 + 1.8*r(8),
	}
}

// series is what the model needs of one machine, copied out under the driver's lock,
// with its per-machine hash keys and trigonometry computed once: node graphs evaluate
// thousands of machines per bucket, so the inner loop does one hash per noise cell and
// no trigonometry at all.
type series struct {
	vmid       int
	prof       profile
	createdAt  int64 // unix nanoseconds
	createdDay int64
	cores      float64
	memBytes   float64
	history    []world.Change
	dayKey     uint64
	noiseKeys  [metrics][3]uint64 // per metric: minute, 30-minute and 6-hour cells
	peakSin    [2]float64         // sin(2πp), sin(4πp) of the peak p
	peakCos    [2]float64
}

// metrics is the number of noise streams: cpu, mem, net in/out, disk read/write.
const metrics = 6

// values are one bucket's metrics.
type values struct {
	cpu, mem, netIn, netOut, diskRead, diskWrite float64
}

func (v *values) add(o values) {
	v.cpu += o.cpu
	v.mem += o.mem
	v.netIn += o.netIn
	v.netOut += o.netOut
	v.diskRead += o.diskRead
	v.diskWrite += o.diskWrite
}

func (v *values) scale(f float64) {
	v.cpu *= f
	v.mem *= f
	v.netIn *= f
	v.netOut *= f
	v.diskRead *= f
	v.diskWrite *= f
}

// seriesOf snapshots a machine for the model. copyHistory must be set when the series
// is used after the driver's lock is released.
func (d *Driver) seriesOf(m *fleet.Machine, copyHistory bool) series {
	h := m.History
	if copyHistory {
		h = append([]world.Change(nil), h...)
	}
	created := m.CreatedAt.UnixNano()
	s := series{
		vmid:       m.VMID,
		prof:       d.usage.profile(m.VMID),
		createdAt:  created,
		createdDay: floorDiv(created, daySeconds*1e9),
		cores:      float64(m.CPUCores),
		memBytes:   float64(m.MemoryMB) * (1 << 20),
		history:    h,
		dayKey:     mix(d.seed, tagDay, uint64(m.VMID)),
	}
	for k := range s.noiseKeys {
		for i, tag := range []uint64{tagNoise1, tagNoise30, tagNoise360} {
			s.noiseKeys[k][i] = mix(d.seed, tag, uint64(m.VMID), uint64(k))
		}
	}
	for i := range 2 {
		s.peakSin[i], s.peakCos[i] = math.Sincos(float64(i+1) * 2 * math.Pi * s.prof.peak)
	}
	return s
}

// cell is the hash of one noise cell: a splitmix64 step from the stream's key.
func cell(key uint64, c int64) uint64 { return fmix(key + uint64(c)*0x9e3779b97f4a7c15) }

// stateAt returns the state in force just before instant t (unix ns), "" before creation.
func (s *series) stateAt(t int64) (hypervisor.State, int) {
	i := sort.Search(len(s.history), func(i int) bool { return s.history[i].At >= t })
	if i == 0 {
		return "", 0
	}
	return s.history[i-1].State, i
}

// edge is a bucket boundary as a day fraction x, with the sines and cosines of 2πx and
// 4πx that the curve's integral needs.
type edge struct {
	x        float64
	sin, cos [2]float64
}

func edgeAt(x float64) edge {
	e := edge{x: x}
	for i := range 2 {
		e.sin[i], e.cos[i] = math.Sincos(float64(i+1) * 2 * math.Pi * x)
	}
	return e
}

// span is one aligned bucket with what every machine shares: its day, the weekday
// factor and its edges.
type span struct {
	start, step int64 // unix seconds
	day         int64
	weekday     float64
	a, b        edge
}

func newSpan(start, step int64) span {
	day := floorDiv(start, daySeconds)
	sod := start - day*daySeconds
	return span{
		start:   start,
		step:    step,
		day:     day,
		weekday: weekday(day),
		a:       edgeAt(float64(sod) / float64(daySeconds)),
		b:       edgeAt(float64(sod+step) / float64(daySeconds)),
	}
}

// bucket returns the machine's average over the span and false for a gap.
func (u usageModel) bucket(s *series, sp *span) (values, bool) {
	end := sp.start + sp.step
	if end*1e9 <= s.createdAt {
		return values{}, false
	}
	first, last := sp.start/60, end/60 // minutes [first, last)
	state, i := s.stateAt((first + 1) * minuteNanos)
	if _, j := s.stateAt(last * minuteNanos); i == j {
		return masked(s.running(sp), state), true
	}
	// The power state changed inside the bucket: average minute by minute.
	var sum values
	for m := first; m < last; m++ {
		st, _ := s.stateAt((m + 1) * minuteNanos)
		msp := newSpan(m*60, 60)
		sum.add(masked(s.running(&msp), st))
	}
	sum.scale(1 / float64(last-first))
	return sum, true
}

// masked zeroes what a machine in state st does not produce.
func masked(v values, st hypervisor.State) values {
	switch st {
	case hypervisor.StateRunning:
		return v
	case hypervisor.StateSuspended:
		return values{mem: v.mem}
	}
	return values{}
}

// running is the bucket average of a machine that runs throughout it.
func (s *series) running(sp *span) values {
	p := &s.prof
	g := 1.0
	if sp.day > s.createdDay {
		g = min(1+p.growth*float64(sp.day-s.createdDay)/7, 1.6)
	}
	base := g * (1 + 0.1*sym(cell(s.dayKey, sp.day))) * sp.weekday
	curve := (s.curveIntegral(&sp.b) - s.curveIntegral(&sp.a)) / (sp.b.x - sp.a.x)
	act := func(k int) float64 { return base * (curve + noiseScale*s.noise(k, sp)) }
	return values{
		cpu:       min(p.level*act(0), 1),
		mem:       min(s.memBytes*(p.memBase*g+p.level*act(1)/2), s.memBytes),
		netIn:     p.netIn * act(2),
		netOut:    p.netIn * p.netOutRate * act(3),
		diskRead:  p.diskRead * act(4),
		diskWrite: p.diskRead * p.diskWrite * act(5),
	}
}

// curveIntegral is the integral of the daily curve from 0 to the edge,
//
//	x + A1·sin(2π(x−p))/2π − A2·sin(4π(x−p))/4π,
//
// with sin(α−β) expanded so that the sines come precomputed from the edge and the peak.
func (s *series) curveIntegral(e *edge) float64 {
	s1 := e.sin[0]*s.peakCos[0] - e.cos[0]*s.peakSin[0]
	s2 := e.sin[1]*s.peakCos[1] - e.cos[1]*s.peakSin[1]
	return e.x + curveA1*s1/(2*math.Pi) - curveA2*s2/(4*math.Pi)
}

// weekday is the weekly rhythm: quieter weekends. Unix day 0 was a Thursday.
func weekday(day int64) float64 {
	switch floorMod(day+4, 7) { // 0 = Sunday
	case 0, 6:
		return 0.6
	}
	return 1
}

// noise is metric k's noise averaged over the aligned bucket: the finer scales average
// to zero over coarser buckets by construction (see the model), so they are left out.
func (s *series) noise(k int, sp *span) float64 {
	keys := &s.noiseKeys[k]
	minute := floorDiv(sp.start, 60)
	n := 0.1 * sym(cell(keys[2], floorDiv(minute, 360)))
	if sp.step < 21600 {
		c := floorDiv(minute, 30)
		n += pinned(keys[1], c, 12, 0.1) - pinned(keys[1], c-1, 12, 0.1)
	}
	if sp.step < 1800 {
		n += pinned(keys[0], minute, 30, 0.2) - pinned(keys[0], minute-1, 30, 0.2)
	}
	return n
}

// pinned is a hashed sequence that is zero at the last cell of every block, so that the
// differences of consecutive cells sum to zero over each block.
func pinned(key uint64, c, block int64, amp float64) float64 {
	if floorMod(c+1, block) == 0 {
		return 0
	}
	return amp * sym(cell(key, c))
}

// nodeBucket sums a node's machines over a bucket and adds the host overhead.
func (u usageModel) nodeBucket(ms []series, cores, memTotal float64, sp *span) values {
	v := values{
		mem:       nodeOverheadMemBytes,
		netIn:     nodeOverheadNetBps,
		netOut:    nodeOverheadNetBps,
		diskRead:  nodeOverheadDiskBps,
		diskWrite: nodeOverheadDiskBps,
	}
	usedCores := nodeOverheadCPU * cores
	for i := range ms {
		b, ok := u.bucket(&ms[i], sp)
		if !ok {
			continue
		}
		usedCores += b.cpu * ms[i].cores
		b.cpu = 0
		v.add(b)
	}
	v.cpu = min(usedCores/cores, 1)
	v.mem = min(v.mem, memTotal)
	return v
}

// Usage returns a usage graph at the timeframe's Proxmox VE 9 resolution: exactly its
// point count, buckets aligned to the step, oldest first, the last one containing q.End
// (zero: now). Point times are bucket starts. Scope "" means a machine.
func (d *Driver) Usage(ctx context.Context, q hypervisor.UsageQuery) (hypervisor.UsageGraph, error) {
	if err := ctx.Err(); err != nil {
		return hypervisor.UsageGraph{}, hypervisor.ContextError(err)
	}
	step, points, ok := q.Timeframe.Resolution()
	if !ok {
		return hypervisor.UsageGraph{}, invalid("timeframe", "must be one of hour, day, week, month, year")
	}
	stepS := int64(step / time.Second)

	d.catchUp()
	d.mu.Lock()
	if err := d.availableLocked(); err != nil {
		d.mu.Unlock()
		return hypervisor.UsageGraph{}, err
	}
	now := d.now()
	ms, isNode, cores, memTot, err := d.usageSubjectLocked(q)
	d.mu.Unlock()
	if err != nil {
		return hypervisor.UsageGraph{}, err
	}

	end := q.End
	if end.IsZero() {
		end = now
	}
	last := floorDiv(end.Unix(), stepS) * stepS
	first := last - int64(points-1)*stepS
	nowUnix := now.Unix()
	g := hypervisor.UsageGraph{
		Timeframe:         q.Timeframe,
		ResolutionSeconds: int(stepS),
		Points:            make([]hypervisor.UsagePoint, points),
	}
	for i := range g.Points {
		start := first + int64(i)*stepS
		p := &g.Points[i]
		p.Time = time.Unix(start, 0).UTC()
		if i%64 == 0 && ctx.Err() != nil {
			return hypervisor.UsageGraph{}, hypervisor.ContextError(ctx.Err())
		}
		if start > nowUnix {
			continue // the future is a gap
		}
		sp := newSpan(start, stepS)
		if isNode {
			v := d.usage.nodeBucket(ms, cores, memTot, &sp)
			fill(p, v, cores, memTot)
			continue
		}
		v, ok := d.usage.bucket(&ms[0], &sp)
		if ok {
			fill(p, v, ms[0].cores, ms[0].memBytes)
		}
	}
	return g, nil
}

// usageSubjectLocked snapshots the machines a query is about: one machine, or every
// machine on a node together with the node's capacity.
func (d *Driver) usageSubjectLocked(q hypervisor.UsageQuery) (ms []series, isNode bool, cores, memTotal float64, err error) {
	switch q.Scope {
	case hypervisor.ScopeMachine, "":
		m, ok := d.machines.Peek(q.Ref.VMID)
		if !ok {
			return nil, false, 0, 0, notFound(q.Ref.VMID)
		}
		return []series{d.seriesOf(m, true)}, false, 0, 0, nil
	case hypervisor.ScopeNode:
		n := d.nodeLocked(q.Ref.Node)
		if n == nil {
			return nil, false, 0, 0, hypervisor.NewError(hypervisor.ErrNodeNotFound, "node %q not found", q.Ref.Node)
		}
		d.machines.Each(func(m *fleet.Machine) {
			if m.Node == n.ID {
				ms = append(ms, d.seriesOf(m, true))
			}
		})
		return ms, true, float64(n.CPUCores), float64(n.MemoryMB) * (1 << 20), nil
	}
	return nil, false, 0, 0, invalid("scope", "must be machine or node")
}

// fill sets every field of a point that has data.
func fill(p *hypervisor.UsagePoint, v values, cores, memTotal float64) {
	f := func(x float64) *float64 { return &x }
	p.CPU = f(v.cpu)
	p.CPUCores = f(cores)
	p.MemBytes = f(v.mem)
	p.MemTotalBytes = f(memTotal)
	p.NetInBps = f(v.netIn)
	p.NetOutBps = f(v.netOut)
	p.DiskReadBps = f(v.diskRead)
	p.DiskWriteBps = f(v.diskWrite)
}

// nodeLoad is what a node's machines add up to in an inventory: their series, in vmid
// order, and their disks.
type nodeLoad struct {
	series []series
	diskGB int
}

func (l *nodeLoad) add(s series, diskGB int) {
	l.series = append(l.series, s)
	l.diskGB += diskGB
}

// nodeNowLocked is a node as Inventory reports it, with its usage in the current minute
// (machines are the ones on it). An offline node reports no usage.
func (d *Driver) nodeNowLocked(n *node, load *nodeLoad, now time.Time) hypervisor.Node {
	out := n.Node
	out.StorageGB = n.DiskGB // the sim's machines' disks are on the node's own
	if load == nil {
		load = &nodeLoad{}
	}
	out.DiskBytes = int64(load.diskGB) << 30
	if n.Status != hypervisor.NodeOnline {
		return out
	}
	sp := newSpan(floorDiv(now.Unix(), 60)*60, 60)
	v := d.usage.nodeBucket(load.series, float64(n.CPUCores), float64(n.MemoryMB)*(1<<20), &sp)
	out.CPU = v.cpu
	out.MemBytes = int64(v.mem)
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }
