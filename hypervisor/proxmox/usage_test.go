package proxmox

import (
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

func TestUsage(t *testing.T) {
	now := time.Date(2025, 3, 12, 10, 30, 15, 0, time.UTC)
	d, f := newTest(t, pvefake.Config{Now: func() time.Time { return now }})
	id := addVM(t, f, pvefake.VMSpec{Status: "running", Cores: 2, MemoryMB: 2048})

	f1 := func(q hypervisor.UsageQuery) {
		t.Helper()
		name := string(q.Scope) + "/" + string(q.Timeframe)
		g, err := d.Usage(bg, q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		step, points, _ := q.Timeframe.Resolution()
		if g.Timeframe != q.Timeframe || g.ResolutionSeconds != int(step/time.Second) {
			t.Errorf("%s: got timeframe %s resolution %d; want %s %d", name, g.Timeframe, g.ResolutionSeconds, q.Timeframe, int(step/time.Second))
		}
		if len(g.Points) != points {
			t.Fatalf("%s: got %d points; want %d", name, len(g.Points), points)
		}
		gaps := 0
		for i, p := range g.Points {
			if i > 0 {
				if dt := p.Time.Sub(g.Points[i-1].Time); dt != step {
					t.Fatalf("%s: points %d and %d are %v apart; want %v", name, i-1, i, dt, step)
				}
			}
			if p.CPU == nil {
				gaps++
				if p.MemBytes != nil || p.NetInBps != nil || p.CPUCores != nil {
					t.Errorf("%s: point %d has no cpu but other values: %+v", name, i, p)
				}
				continue
			}
			if *p.CPU < 0 || *p.CPU > 1 || p.MemBytes == nil || p.MemTotalBytes == nil || *p.MemBytes > *p.MemTotalBytes || p.NetInBps == nil || p.NetOutBps == nil {
				t.Errorf("%s: point %d: got cpu %v mem %v/%v net %v/%v; want a full bucket", name, i, *p.CPU, p.MemBytes, p.MemTotalBytes, p.NetInBps, p.NetOutBps)
			}
			if q.Scope == hypervisor.ScopeNode && (p.DiskReadBps != nil || p.DiskWriteBps != nil) {
				t.Errorf("%s: point %d: got node disk IO; want nil (Proxmox keeps none)", name, i)
			}
			if q.Scope == hypervisor.ScopeMachine && (p.DiskReadBps == nil || *p.CPUCores != 2) {
				t.Errorf("%s: point %d: got disk read %v cores %v; want disk IO and 2 cores", name, i, p.DiskReadBps, *p.CPUCores)
			}
		}
		if gaps == 0 {
			t.Errorf("%s: got no empty buckets; want the fake's gaps decoded as nil", name)
		}
		if last := g.Points[len(g.Points)-1].Time; last.After(now) || now.Sub(last) >= step {
			t.Errorf("%s: last bucket at %v; want the bucket of %v", name, last, now)
		}
	}
	for _, tf := range hypervisor.Timeframes {
		f1(hypervisor.UsageQuery{Scope: hypervisor.ScopeMachine, Ref: hypervisor.Ref{VMID: id}, Timeframe: tf})
		f1(hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: "pve2"}, Timeframe: tf})
	}

	end := now.Add(-30 * time.Minute)
	g, err := d.Usage(bg, hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: "pve1"}, Timeframe: hypervisor.TimeframeHour, End: end})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Points) == 0 || g.Points[len(g.Points)-1].Time.After(end) {
		t.Errorf("hour graph ending %v: got %d points; want none after the end", end, len(g.Points))
	}

	e := func(name string, q hypervisor.UsageQuery, targets ...error) {
		t.Helper()
		_, err := d.Usage(bg, q)
		wantErr(t, name, err, targets...)
	}
	if err := f.SetNodeOnline("pve3", false); err != nil {
		t.Fatal(err)
	}
	e("offline node", hypervisor.UsageQuery{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: "pve3"}, Timeframe: "hour"}, hypervisor.ErrNodeOffline)
}

func TestUsagePVE8Layout(t *testing.T) {
	d, f := newTest(t, pvefake.Config{RRDLayout: "pve8"})
	id := addVM(t, f, pvefake.VMSpec{Status: "running"})
	for tf, want := range map[hypervisor.Timeframe]time.Duration{
		hypervisor.TimeframeHour: time.Minute, hypervisor.TimeframeDay: 30 * time.Minute, hypervisor.TimeframeWeek: 3 * time.Hour,
		hypervisor.TimeframeMonth: 12 * time.Hour, hypervisor.TimeframeYear: 7 * 24 * time.Hour,
	} {
		for _, q := range []hypervisor.UsageQuery{
			{Scope: hypervisor.ScopeMachine, Ref: hypervisor.Ref{VMID: id}, Timeframe: tf},
			{Scope: hypervisor.ScopeNode, Ref: hypervisor.Ref{Node: "pve1"}, Timeframe: tf},
		} {
			g, err := d.Usage(bg, q)
			if err != nil {
				t.Fatalf("%s/%s: %v", q.Scope, tf, err)
			}
			if g.ResolutionSeconds != int(want/time.Second) {
				t.Errorf("%s/%s: got resolution %d s; want %d (the data's spacing)", q.Scope, tf, g.ResolutionSeconds, int(want/time.Second))
			}
			if n := len(g.Points); (tf == hypervisor.TimeframeHour && n != 60) || (tf != hypervisor.TimeframeHour && n != 70) {
				t.Errorf("%s/%s: got %d points", q.Scope, tf, n)
			}
		}
	}
}
