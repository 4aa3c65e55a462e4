package actors

import (
	"context"
	"errors"
	"fmt"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/traffic"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// The overage actions (Options.TrafficOverageAction).
const (
	// OverageReport raises the traffic_exceeded alert and publishes
	// machine.traffic_exceeded; every action does that too.
	OverageReport = "report"
	// OverageThrottle also sets the rate limit of the machine's interfaces to
	// Options.TrafficThrottleMbps until the month's turn.
	OverageThrottle = "throttle"
	// OverageSuspend also suspends the machine for billing until the month's turn.
	OverageSuspend = "suspend"
)

// OverageActions lists the overage actions.
var OverageActions = []string{OverageReport, OverageThrottle, OverageSuspend}

// gib is the bytes of the plans' traffic_gb unit (GiB, as the disks' GB).
const gib = 1 << 30

// overageReason is the reason of a billing suspension the overage made: the month's
// turn lifts only a suspension with that reason, never an operator's.
func overageReason(month string) string {
	return "traffic allowance exceeded in " + month
}

// trafficOverage is what the traffic counting's overage job asks and does.
func (s *System) trafficOverage(action string, throttleMbps int) *traffic.Overage {
	return &traffic.Overage{
		Smallest: func(ctx context.Context) (uint64, bool, error) {
			var smallest uint64
			found := false
			cursor := ""
			for {
				ps, next, err := s.Plans.List(ctx, nil, cursor, 500)
				if err != nil {
					return 0, false, err
				}
				for _, p := range ps {
					if p.TrafficGB != nil && (!found || uint64(*p.TrafficGB)*gib < smallest) {
						smallest, found = uint64(*p.TrafficGB)*gib, true
					}
				}
				if next == "" {
					return smallest, found, nil
				}
				cursor = next
			}
		},
		Allowance: func(ctx context.Context, id string) (uint64, bool, error) {
			a, err := s.allowance(ctx, id)
			if a == nil || err != nil {
				return 0, false, ignoreGone(err)
			}
			return *a, true, nil
		},
		Exceeded: func(ctx context.Context, e traffic.Exceeded) (traffic.Taken, error) {
			m, err := s.Machines.Get(ctx, e.MachineID, nil)
			if err != nil {
				return traffic.Taken{}, err
			}
			taken := traffic.Taken{Action: action}
			switch action {
			case OverageThrottle:
				taken.PriorRates = make(map[string]int, len(m.Interfaces))
				for _, nic := range m.Interfaces {
					taken.PriorRates[nic.ID] = nic.RateMbps
				}
				if err := s.setRates(ctx, m, func(string) int { return throttleMbps }); err != nil {
					return traffic.Taken{}, err
				}
			case OverageSuspend:
				if _, err := s.Machines.SuspendBilling(ctx, m.ID, overageReason(e.Month), machines.BillingStop); err != nil {
					return traffic.Taken{}, err
				}
			}
			s.Alerts.Notify(alerts.AlertRaise{Kind: alerts.AlertTrafficExceeded, Severity: alerts.SeverityWarning,
				TargetType: "machine", TargetID: m.ID, TenantID: m.TenantID, MachineID: &m.ID,
				Message: fmt.Sprintf("machine %s moved %d bytes in %s, past its plan's %d (action: %s)",
					m.Name, e.Used.Total(), e.Month, e.AllowanceBytes, action)})
			s.Events.Publish(events.EventMachineTrafficExceeded, m.TenantID, TrafficExceeded{Exceeded: e, Action: action})
			return taken, nil
		},
		MonthEnded: func(ctx context.Context, e traffic.Exceeded, taken traffic.Taken) error {
			m, err := s.Machines.Get(ctx, e.MachineID, nil)
			if errors.Is(err, apierr.ErrNotFound) {
				return nil // gone: nothing to undo
			}
			if err != nil {
				return err
			}
			switch taken.Action {
			case OverageThrottle:
				// The rates the interfaces had before (an overage recorded before they
				// were kept, or an interface added since: the plan's).
				planRate := 0
				if m.PlanID != nil {
					if p, err := s.Plans.Get(ctx, *m.PlanID); err == nil && p.RateMbps != nil {
						planRate = *p.RateMbps
					}
				}
				rate := func(nic string) int {
					if r, ok := taken.PriorRates[nic]; ok {
						return r
					}
					return planRate
				}
				if err := s.setRates(ctx, m, rate); err != nil {
					return err
				}
			case OverageSuspend:
				if m.BillingSuspension != nil && m.BillingSuspension.Reason == overageReason(e.Month) {
					if _, err := s.Machines.UnsuspendBilling(ctx, m.ID, true); err != nil {
						return err
					}
				}
			}
			s.Alerts.Clear(alerts.AlertTrafficExceeded, m.ID)
			return nil
		},
	}
}

// TrafficExceeded is the data of a machine.traffic_exceeded event.
type TrafficExceeded struct {
	traffic.Exceeded
	Action string `json:"action"`
}

// setRates sets the rate limit of every interface of the machine to rate(its id), as
// a task.
func (s *System) setRates(ctx context.Context, m machines.Machine, rate func(nic string) int) error {
	if len(m.Interfaces) == 0 {
		return nil
	}
	changes := make([]hypervisor.InterfaceChange, len(m.Interfaces))
	for i, nic := range m.Interfaces {
		mbps := rate(nic.ID)
		changes[i] = hypervisor.InterfaceChange{ID: nic.ID, RateMbps: &mbps}
	}
	_, err := s.Machines.Start(ctx, m.ID, machines.Operation{Type: machines.OpNetwork, Interfaces: changes}, nil)
	return err
}

// allowance is a machine's monthly traffic allowance in bytes, nil when its plan has
// none (or it has no plan).
func (s *System) allowance(ctx context.Context, id string) (*uint64, error) {
	m, err := s.Machines.Get(ctx, id, nil)
	if err != nil || m.PlanID == nil {
		return nil, err
	}
	p, err := s.Plans.Get(ctx, *m.PlanID)
	if err != nil || p.TrafficGB == nil {
		return nil, ignoreGone(err)
	}
	a := uint64(*p.TrafficGB) * gib
	return &a, nil
}

// ignoreGone reads a record that is gone as none.
func ignoreGone(err error) error {
	if errors.Is(err, apierr.ErrNotFound) {
		return nil
	}
	return err
}

// MachineTraffic is a machine's traffic this month, its allowance and what is left.
// The caller checks that the asker may see the machine.
func (s *System) MachineTraffic(ctx context.Context, id string) (traffic.MachineTraffic, error) {
	now := s.rt.Clock.Now().UTC()
	used, err := s.Traffic.Month(ctx, id, now)
	if err != nil {
		return traffic.MachineTraffic{}, err
	}
	over, err := s.Traffic.Over(ctx, id, now)
	if err != nil {
		return traffic.MachineTraffic{}, err
	}
	out := traffic.MachineTraffic{MachineID: id, Month: now.Format("2006-01"), InBytes: int64(used.In), OutBytes: int64(used.Out),
		TotalBytes: int64(used.Total()), Exceeded: over, CountedUntil: now}
	a, err := s.allowance(ctx, id)
	if err != nil {
		return traffic.MachineTraffic{}, err
	}
	if a != nil {
		allowance, left := int64(*a), int64(0)
		if used.Total() < *a {
			left = int64(*a - used.Total())
		}
		out.AllowanceBytes, out.RemainingBytes = &allowance, &left
	}
	return out, nil
}
