package app

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/traffic"
	"github.com/vmplane/vmplane/actors/usage"
	"github.com/vmplane/vmplane/internal/testwait"
)

// trafficOf reads a machine's traffic this month through path.
func (s *testServer) trafficOf(tok, path string) traffic.MachineTraffic {
	s.t.Helper()
	r := s.do(req{method: "GET", path: path, token: tok})
	expect(s.t, r, 200, "")
	var m traffic.MachineTraffic
	r.decode(s.t, &m)
	return m
}

// A running machine's traffic is counted from the sim's counters at each sync: its
// month, with its plan's allowance and what is left, shows on the tenant's route and
// the billing one (not to another tenant, nor to a read key), and the hour, once
// closed, carries it into the usage for invoices.
func TestTrafficCountedIntoUsage(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t)
	a, b := s.tenant(admin, "Talker", nil), s.tenant(admin, "Listener", nil)
	p := s.createPlan(admin, map[string]any{"name": "metered", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 20, "traffic_gb": 100})
	m := s.provision(a.Token, map[string]any{"name": "chatty", "template_id": "tpl-debian-12", "plan_id": p.ID})
	own := "/api/client/machines/" + m.ID + "/traffic"
	billing := s.newKey(admin, map[string]any{"name": "billing", "scopes": []string{"billing"}})
	read := s.newKey(admin, map[string]any{"name": "read", "scopes": []string{"read"}})

	hour := time.Now().UTC().Truncate(time.Hour)
	var got traffic.MachineTraffic
	testwait.Eventually(t, "the machine's traffic counted", func() bool {
		s.sync(admin) // the first sync after the create takes the counters' baseline
		got = s.trafficOf(a.Token, own)
		return got.InBytes > 0 && got.OutBytes > 0
	})
	const allowance = 100 << 30
	if got.MachineID != m.ID || got.TotalBytes != got.InBytes+got.OutBytes || got.AllowanceBytes == nil || *got.AllowanceBytes != allowance ||
		got.RemainingBytes == nil || *got.RemainingBytes != allowance-got.TotalBytes || got.Exceeded != nil || got.Month != time.Now().UTC().Format("2006-01") {
		t.Fatalf("the machine's traffic: got %+v; want its bytes, 100 GiB allowed and the rest left", got)
	}
	expect(t, s.do(req{method: "GET", path: own, token: b.Token}), 404, "not_found")
	virt := "/api/virt/vms/" + m.ID + "/traffic"
	if bm := s.trafficOf(billing.Secret, virt); bm.TotalBytes < got.TotalBytes {
		t.Errorf("the billing key's read: %+v; want at least %d bytes", bm, got.TotalBytes)
	}
	expect(t, s.do(req{method: "GET", path: virt, token: read.Secret}), 403, "forbidden")
	expect(t, s.do(req{method: "GET", path: virt, token: a.Token}), 403, "forbidden")

	// Close the hour the readings were taken in and read it for the invoice.
	if time.Now().UTC().Truncate(time.Hour) != hour {
		t.Skip("the hour turned during the test; its readings span two hours")
	}
	month := s.trafficOf(a.Token, own)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.app.sys.Usage.Close(ctx, hour.Add(time.Hour+time.Minute)); err != nil {
		t.Fatal(err)
	}
	rng := "?from=" + hour.Format(time.RFC3339) + "&to=" + hour.Add(time.Hour).Format(time.RFC3339)
	r := s.do(req{method: "GET", path: "/api/virt/vms/" + m.ID + "/usage" + rng, token: billing.Secret})
	expect(t, r, 200, "")
	var rep usage.UsageReport
	r.decode(t, &rep)
	// The month began this hour for the machine (made in the test): the hour holds it
	// all, unless the month turned too (then the month has less).
	if rep.Totals.TrafficInBytes < month.InBytes || rep.Totals.TrafficOutBytes < month.OutBytes || rep.Totals.TrafficInBytes == 0 {
		t.Fatalf("the closed hour's usage: %+v; want the traffic counted, %+v", rep.Totals, month)
	}
}

// Past its plan's allowance, a machine is throttled once (--traffic-overage-action
// throttle): its interfaces get the throttle's rate, the traffic_exceeded alert fires
// and the route says so; the month's turn puts back the rate the operator had set by
// hand before (not the plan's, none) and resolves the alert.
func TestTrafficOverageThrottle(t *testing.T) {
	t.Parallel()
	s, admin := planServer(t, func(c *Config) {
		c.TrafficOverageAction = actors.OverageThrottle
		c.TrafficThrottleMbps = 7
	})
	a := s.tenant(admin, "Heavy", nil)
	p := s.createPlan(admin, map[string]any{"name": "nothing included", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 20, "traffic_gb": 0})
	m := s.provision(a.Token, map[string]any{"name": "hog", "template_id": "tpl-debian-12", "plan_id": p.ID})
	own := "/api/client/machines/" + m.ID + "/traffic"
	s.run(req{method: "PATCH", path: "/api/virt/vms/" + m.ID + "/network", token: admin,
		body: map[string]any{"interfaces": []map[string]any{{"id": "net0", "rate_mbps": 33}}}})
	testwait.Eventually(t, "the machine's traffic counted", func() bool {
		s.sync(admin)
		return s.trafficOf(a.Token, own).TotalBytes > 0
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	now := time.Now()
	for range 2 { // the second run finds it done
		if err := s.app.sys.Traffic.Check(ctx, now); err != nil {
			t.Fatal(err)
		}
	}
	rate := func() int {
		mm := s.machine(admin, m.ID)
		if mm.TaskID != nil || len(mm.Interfaces) == 0 {
			return -1
		}
		return mm.Interfaces[0].RateMbps
	}
	testwait.Eventually(t, "the machine throttled to 7 Mbit/s", func() bool { return rate() == 7 })
	got := s.trafficOf(a.Token, own)
	if got.Exceeded == nil || got.Exceeded.Action != actors.OverageThrottle || got.RemainingBytes == nil || *got.RemainingBytes != 0 {
		t.Fatalf("the machine's traffic: got %+v; want exceeded, throttled, nothing left", got)
	}
	firing := func() int {
		n := 0
		for _, al := range s.alertsOf(admin, "/api/monitoring/alerts/events", m.ID) {
			if al.Kind == alerts.AlertTrafficExceeded && al.Open() {
				n++
			}
		}
		return n
	}
	testwait.Eventually(t, "the traffic_exceeded alert", func() bool { return firing() == 1 })

	next := time.Date(now.Year(), now.Month()+1, 1, 0, 1, 0, 0, time.UTC)
	if err := s.app.sys.Traffic.Check(ctx, next); err != nil {
		t.Fatal(err)
	}
	testwait.Eventually(t, "the throttle lifted at the month's turn, to the rate set by hand", func() bool { return rate() == 33 })
	testwait.Eventually(t, "the alert resolved", func() bool { return firing() == 0 })
}

// TestTrafficOverageReportAndSuspend: past its allowance, a machine gets the action
// the server is set to, once: report publishes machine.traffic_exceeded (naming the
// action) and raises the alert, and changes nothing of the machine; suspend does the
// same and suspends the machine for billing.
func TestTrafficOverageReportAndSuspend(t *testing.T) {
	t.Parallel()
	for _, action := range []string{actors.OverageReport, actors.OverageSuspend} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			s, admin := planServer(t, func(c *Config) { c.TrafficOverageAction = action })
			a := s.tenant(admin, "Heavy", nil)
			p := s.createPlan(admin, map[string]any{"name": "nothing included", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 20, "traffic_gb": 0})
			m := s.provision(a.Token, map[string]any{"name": "hog", "template_id": "tpl-debian-12", "plan_id": p.ID})
			own := "/api/client/machines/" + m.ID + "/traffic"
			testwait.Eventually(t, "the machine's traffic counted", func() bool {
				s.sync(admin)
				return s.trafficOf(a.Token, own).TotalBytes > 0
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for range 2 { // the second run finds it done
				if err := s.app.sys.Traffic.Check(ctx, time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			published := func() []actors.TrafficExceeded {
				backlog, sub, _ := s.app.sys.Events.Subscribe(0, nil)
				sub.Close()
				var out []actors.TrafficExceeded
				for _, ev := range backlog {
					var te actors.TrafficExceeded
					if ev.Type == events.EventMachineTrafficExceeded && json.Unmarshal(ev.Data, &te) == nil && te.MachineID == m.ID {
						out = append(out, te)
					}
				}
				return out
			}
			testwait.Eventually(t, "the machine.traffic_exceeded event", func() bool { return len(published()) > 0 })
			if got := published(); len(got) != 1 || got[0].Action != action {
				t.Fatalf("machine.traffic_exceeded events: got %+v; want one, action %s", got, action)
			}
			if got := s.trafficOf(a.Token, own); got.Exceeded == nil || got.Exceeded.Action != action {
				t.Fatalf("the machine's traffic: got %+v; want exceeded with %s", got, action)
			}
			suspended := func() bool { return s.machine(admin, m.ID).BillingSuspension != nil }
			if action == actors.OverageSuspend {
				testwait.Eventually(t, "the billing suspension", suspended)
			} else if suspended() {
				t.Fatal("report suspended the machine")
			}
		})
	}
}
