package machines

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// Firewall push states of a machine (Machine.Firewall.State).
const (
	// FirewallApplied: the hypervisor holds the machine's rule set as last pushed.
	FirewallApplied = "applied"
	// FirewallFailed: the last push failed; Reason says why (the hypervisor's words).
	// A refusal (an invalid rule) is not retried until the rules change; an outage is
	// retried a few times with growing delays.
	FirewallFailed = "failed"
)

// FirewallState is the outcome of the last push of a machine's firewall rules.
type FirewallState struct {
	State     string    `json:"state"`
	Reason    string    `json:"reason,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// firewallPushed tells a machine's entity how the push of its rule set went.
type firewallPushed struct {
	Failed bool
	Reason string
}

// FirewallPushed records a push's outcome on the machine (from the tenant's push
// goroutine, outside any mailbox). A machine gone meanwhile is ignored.
func (m *Machines) FirewallPushed(id string, err error) {
	msg := &firewallPushed{}
	if err != nil {
		msg.Failed, msg.Reason = true, apierr.From(err).Error()
	}
	ctx, cancel := context.WithTimeout(context.Background(), kit.DefaultTimeout)
	defer cancel()
	if _, err := m.ask(ctx, id, msg); err != nil && !errors.Is(err, apierr.ErrNotFound) {
		m.sys.log.Warn("firewall push state not recorded", zap.String("machine_id", id), zap.Error(err))
	}
}

// setFirewallState stores a push outcome when it changes the machine's firewall state,
// and raises (or resolves) the machine's firewall_failed alert.
func (e *machineEntity) setFirewallState(m *firewallPushed) bool {
	state := FirewallApplied
	if m.Failed {
		state = FirewallFailed
	}
	prev := e.rec.Firewall
	if prev != nil && prev.State == state && prev.Reason == m.Reason && (m.Failed || firewallOnEverywhere(e.rec.Interfaces)) {
		return false
	}
	next := *e.rec
	next.Firewall = &FirewallState{State: state, Reason: m.Reason, UpdatedAt: time.Now().UTC()}
	if !m.Failed {
		// An applied push has enabled the firewall on every interface (the drivers'
		// SetFirewall does): the record says so now, not only after the next sync.
		next.Interfaces = slices.Clone(next.Interfaces)
		for i := range next.Interfaces {
			next.Interfaces[i].Firewall = true
		}
	}
	next.UpdatedAt = next.Firewall.UpdatedAt
	if err := e.save(&next, nil, "firewall"); err != nil {
		e.sys.log.Error("cannot record firewall state", zap.String("machine_id", e.id), zap.Error(err))
		return false
	}
	if m.Failed {
		e.sys.Alerts.Notify(alerts.AlertRaise{Kind: alerts.AlertFirewallFailed, Severity: alerts.SeverityWarning, TargetType: "machine",
			TargetID: e.id, TenantID: e.rec.TenantID, MachineID: &e.id,
			Message: "the firewall rules of machine " + e.rec.Name + " could not be applied: " + m.Reason})
	} else if prev != nil && prev.State == FirewallFailed {
		e.sys.Alerts.Clear(alerts.AlertFirewallFailed, e.id)
	}
	return true
}

// firewallOnEverywhere reports whether the firewall is on on every interface.
func firewallOnEverywhere(ifs []hypervisor.Interface) bool {
	for _, ic := range ifs {
		if !ic.Firewall {
			return false
		}
	}
	return true
}
