package monitoring

import (
	"context"
	"errors"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"
	"github.com/vmplane/vmplane/actors/kit"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
)

// DefaultHypervisorEvery is how often the hypervisor is pinged for the
// hypervisor_unavailable alert when MonitoringOptions.HypervisorEvery is zero.
const DefaultHypervisorEvery = 30 * time.Second

// hypervisorFailures is how many pings in a row must fail before the alert fires, so
// that one lost request does not page anyone.
const hypervisorFailures = 2

// watchHypervisor pings the driver on a timer: hypervisorFailures failures in a row
// raise hypervisor_unavailable, the first success after resolves it. Each change is
// logged once.
func (m *Monitoring) watchHypervisor() *kit.Loop {
	d := m.sys.driver
	if d == nil {
		return nil
	}
	every := m.opts.HypervisorEvery
	if every <= 0 {
		every = DefaultHypervisorEvery
	}
	ctx, cancel := m.sys.rt.Work()
	open, err := m.openConditions(ctx, alerts.AlertHypervisorUnavailable)
	cancel()
	if err != nil {
		open = map[string]bool{}
	}
	target := d.Name()
	down := open[target]
	failures := 0
	// The loop cancels a ping in flight at Stop: it must not hold up a shutdown.
	return m.sys.rt.EveryOnOne("hypervisor watch", every, true, func(base context.Context, _ time.Time) {
		ctx, cancel := context.WithTimeout(base, 10*time.Second)
		err := d.Ping(ctx)
		cancel()
		if base.Err() != nil {
			return // stopping: a cancelled ping says nothing about the hypervisor
		}
		if err == nil {
			failures = 0
			if down {
				down = false
				m.sys.log.Info("the hypervisor answers again", zap.String("driver", target))
				m.resolveHypervisor(target)
			}
			return
		}
		failures++
		if failures >= hypervisorFailures && !down {
			down = true
			m.sys.log.Error("the hypervisor does not answer", zap.String("driver", target), zap.Error(err))
			detail := err.Error()
			var e *apierr.Error
			if errors.As(err, &e) && e.Detail != "" {
				detail = e.Detail
			}
			m.sys.Alerts.Notify(alerts.AlertRaise{Kind: alerts.AlertHypervisorUnavailable, Severity: alerts.SeverityCritical,
				TargetType: "hypervisor", TargetID: target,
				Message: "the " + target + " hypervisor does not answer: " + detail})
		}
	})
}

func (m *Monitoring) resolveHypervisor(target string) {
	m.sys.Alerts.Clear(alerts.AlertHypervisorUnavailable, target)
}
