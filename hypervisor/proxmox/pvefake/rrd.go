package pvefake

import (
	"math"
	"strconv"
)

// RRD resolutions of Proxmox VE 9: bucket width in seconds and bucket count.
var rrdFrames9 = map[string][2]int64{
	"hour":   {60, 60},
	"day":    {60, 1440},
	"week":   {1800, 336},
	"month":  {1800, 1440},
	"year":   {21600, 1440},
	"decade": {604800, 570}, // nodes only
}

// RRD resolutions before Proxmox VE 9 (pve-cluster's old RRAs): 70 points per
// timeframe above the hour, and no decade.
var rrdFrames8 = map[string][2]int64{
	"hour":  {60, 60},
	"day":   {1800, 70},
	"week":  {10800, 70},
	"month": {43200, 70},
	"year":  {604800, 70},
}

// rrdFrames is the resolution table of the version the fake plays.
func (s *Server) rrdFrames() map[string][2]int64 {
	if s.cfg.RRDLayout == "pve8" {
		return rrdFrames8
	}
	return rrdFrames9
}

// GapEvery is the spacing of the sporadic empty buckets (only "time") the fake puts in
// every series, besides the buckets before a VM existed: a driver must decode every
// field as nullable.
const GapEvery = 29

// rrdWindow returns the bucket times of a timeframe ending at the current bucket.
func (s *Server) rrdWindow(tf string) (times []int64, step int64) {
	f := s.rrdFrames()[tf]
	step, n := f[0], f[1]
	last := s.cfg.Now().Unix() / step * step
	times = make([]int64, n)
	for i := range times {
		times[i] = last - (n-1-int64(i))*step
	}
	return times, step
}

// wave is a smooth deterministic load curve in 0..1.
func wave(t int64, seed int) float64 {
	x := float64(t)/86400*2*math.Pi + float64(seed)
	return 0.5 + 0.35*math.Sin(x) + 0.15*math.Sin(7*x+float64(seed))
}

func (c *call) rrdArgs(allowDecade bool) (string, float64, bool) {
	tf := c.form.Get("timeframe")
	if _, ok := c.s.rrdFrames()[tf]; !ok || (tf == "decade" && !allowDecade) {
		c.paramErr("timeframe", "value '%s' does not have a value in the enumeration 'hour, day, week, month, year'", tf)
		return "", 0, false
	}
	scale := 1.0
	switch c.form.Get("cf") {
	case "", "AVERAGE":
	case "MAX":
		scale = 1.25
	default:
		c.paramErr("cf", "value does not have a value in the enumeration 'AVERAGE, MAX'")
		return "", 0, false
	}
	return tf, scale, true
}

// vmRRD answers a VM's rrddata: cpu as a fraction of maxcpu, memory and disk in bytes,
// net and disk IO in bytes/s.
func (c *call) vmRRD() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	tf, scale, ok := c.rrdArgs(false)
	if !ok {
		return
	}
	times, _ := c.s.rrdWindow(tf)
	cores := float64(v.intConfig("cores", 1) * v.intConfig("sockets", 1))
	maxmem := float64(int64(v.intConfig("memory", 512)) << 20)
	created := v.created.Unix()
	out := make([]map[string]any, len(times))
	for i, t := range times {
		p := map[string]any{"time": t}
		out[i] = p
		if t < created || i%GapEvery == 7 {
			continue
		}
		w := wave(t, v.vmid)
		p["cpu"] = math.Min(1, (0.05+0.3*w)*scale)
		p["maxcpu"] = cores
		p["mem"] = maxmem * (0.3 + 0.3*w) * scale
		p["maxmem"] = maxmem
		p["disk"] = 0
		p["maxdisk"] = float64(int64(10) << 30)
		p["netin"] = (2000 + 80000*w) * scale
		p["netout"] = (1000 + 40000*w) * scale
		p["diskread"] = (4096 + 200000*w) * scale
		p["diskwrite"] = (8192 + 100000*w) * scale
	}
	c.ok(out)
}

// nodeRRD answers a node's rrddata (no disk IO: Proxmox keeps none per node).
func (c *call) nodeRRD() {
	n := c.s.nodeLocked(c.p["node"])
	tf, scale, ok := c.rrdArgs(true)
	if !ok {
		return
	}
	times, _ := c.s.rrdWindow(tf)
	seed, _ := strconv.Atoi(n.name[len(n.name)-1:])
	out := make([]map[string]any, len(times))
	for i, t := range times {
		p := map[string]any{"time": t}
		out[i] = p
		if i%GapEvery == 7 {
			continue
		}
		w := wave(t, seed)
		p["cpu"] = math.Min(1, (0.1+0.4*w)*scale)
		p["maxcpu"] = float64(n.maxcpu)
		p["memtotal"] = float64(n.maxmem)
		p["memused"] = float64(n.maxmem) * (0.25 + 0.3*w) * scale
		p["memavailable"] = float64(n.maxmem) * (0.75 - 0.3*w)
		p["netin"] = (50000 + 900000*w) * scale
		p["netout"] = (40000 + 700000*w) * scale
		p["loadavg"] = 4 * w
		p["iowait"] = 0.01 * w
		p["swaptotal"] = float64(8 << 30)
		p["swapused"] = 0.0
		p["roottotal"] = float64(n.maxdisk)
		p["rootused"] = float64(n.maxdisk) / 5
	}
	c.ok(out)
}
