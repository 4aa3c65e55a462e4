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
	// Each location is watched on its own: the default one's alert names the
	// driver ("sim", "proxmox"), another's "location <id>", so one cluster down raises
	// its own alert alone.
	defaultTarget := d.Name()
	targetOf := func(tag string) string {
		if tag == "" {
			return defaultTarget
		}
		return LocationTarget(tag)
	}
	down := map[string]bool{}
	for target, isOpen := range open {
		down[target] = isOpen
	}
	failures := map[string]int{}
	ping := func(ctx context.Context) map[string]error {
		if p, ok := d.(interface {
			PingEach(ctx context.Context) map[string]error
		}); ok {
			return p.PingEach(ctx)
		}
		return map[string]error{"": d.Ping(ctx)}
	}
	// The loop cancels a ping in flight at Stop: it must not hold up a shutdown.
	return m.sys.rt.EveryOnOne("hypervisor watch", every, true, func(base context.Context, _ time.Time) {
		ctx, cancel := context.WithTimeout(base, 10*time.Second)
		errs := ping(ctx)
		cancel()
		if base.Err() != nil {
			return // stopping: a cancelled ping says nothing about the hypervisor
		}
		for tag, err := range errs {
			m.watchedPing(targetOf(tag), err, down, failures)
		}
	})
}

// LocationTarget is the target of the hypervisor_unavailable alert of the location
// tagged tag, other than the default one (whose alert names its driver).
func LocationTarget(tag string) string { return "location " + tag }

// watchedPing takes one ping's outcome for a target: hypervisorFailures failures in a
// row raise its hypervisor_unavailable, the first success after resolves it.
func (m *Monitoring) watchedPing(target string, err error, down map[string]bool, failures map[string]int) {
	if err == nil {
		failures[target] = 0
		if down[target] {
			down[target] = false
			m.sys.log.Info("the hypervisor answers again", zap.String("driver", target))
			m.resolveHypervisor(target)
		}
		return
	}
	failures[target]++
	if failures[target] >= hypervisorFailures && !down[target] {
		down[target] = true
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
}

func (m *Monitoring) resolveHypervisor(target string) {
	m.sys.Alerts.Clear(alerts.AlertHypervisorUnavailable, target)
}
