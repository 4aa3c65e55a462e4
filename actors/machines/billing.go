package machines

import (
	"context"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// BillingSuspension is why and since when an operator (or a billing system) suspended
// one machine: its tenant's users may read it, but every change, power action and
// console of theirs is refused with machine_suspended and the reason. It is apart from
// the hypervisor's power state suspended (Status).
type BillingSuspension struct {
	Reason string `json:"reason"`
	// Action is what the suspension did to the machine if it ran: stop, suspend (on
	// the hypervisor) or none.
	Action string    `json:"action"`
	Since  time.Time `json:"since"`
	// WasRunning says the machine ran when it was suspended (and Action was applied):
	// an unsuspend with start brings it back.
	WasRunning bool `json:"was_running"`
}

// Billing suspension actions, as a tenant's (tenants.SuspendActions).
const (
	BillingStop    = "stop"
	BillingSuspend = "suspend"
	BillingNone    = "none"
)

// MaxBillingReasonLen bounds a billing suspension's reason.
const MaxBillingReasonLen = 500

// Messages of a machine entity's billing suspension.
type (
	suspendBilling   struct{ Reason, Action string }
	unsuspendBilling struct{}
	// billingChanged answers both: the machine now, whether the call began or ended a
	// suspension (Fresh), and the suspension that ended (Was).
	billingChanged struct {
		Machine Machine
		Fresh   bool
		Was     *BillingSuspension
	}
)

// machineSuspended is the error a tenant's user gets for a change of a machine
// suspended for billing.
func machineSuspended(s *BillingSuspension) error {
	return apierr.New(apierr.ErrMachineSuspended, "the machine is suspended: %s", s.Reason)
}

// SuspendBilling suspends one machine for billing, with reason, or sets the reason of
// a suspended one. action ("" is stop) applies to the machine if it runs: a stop or a
// hypervisor suspend, started as a task once the suspension is durable.
func (m *Machines) SuspendBilling(ctx context.Context, id, reason, action string) (Machine, error) {
	if action == "" {
		action = BillingStop
	}
	var f []apierr.FieldError
	if reason == "" || len(reason) > MaxBillingReasonLen {
		f = append(f, apierr.Field("reason", "must be 1..%d characters", MaxBillingReasonLen))
	}
	if !slices.Contains([]string{BillingStop, BillingSuspend, BillingNone}, action) {
		f = append(f, apierr.Field("action", "must be stop, suspend or none"))
	}
	if len(f) > 0 {
		// The machine first: an unknown one is a 404 whatever the body.
		if _, err := m.Ref(ctx, id, nil); err != nil {
			return Machine{}, err
		}
		return Machine{}, apierr.Invalid(f...)
	}
	c, err := askMachine[billingChanged](ctx, m, id, &suspendBilling{Reason: reason, Action: action})
	if err != nil || !c.Fresh || !c.Machine.BillingSuspension.WasRunning {
		return c.Machine, err
	}
	power := hypervisor.ActionStop
	if action == BillingSuspend {
		power = hypervisor.ActionSuspend
	}
	m.power(ctx, c.Machine.ID, power)
	return m.Get(ctx, c.Machine.ID, nil)
}

// UnsuspendBilling ends a machine's billing suspension (one not suspended is left as
// it is), and takes back its termination if one is pending; with start, a machine the suspension stopped or suspended is started or
// resumed.
func (m *Machines) UnsuspendBilling(ctx context.Context, id string, start bool) (Machine, error) {
	c, err := askMachine[billingChanged](ctx, m, id, &unsuspendBilling{})
	if err == nil && c.Machine.TerminateAt == nil {
		m.terminations.Disarm(c.Machine.ID)
	}
	if err != nil || !c.Fresh || c.Was == nil || !start || !c.Was.WasRunning {
		return c.Machine, err
	}
	power := hypervisor.ActionStart
	if c.Was.Action == BillingSuspend {
		power = hypervisor.ActionResume
	}
	m.power(ctx, c.Machine.ID, power)
	return m.Get(ctx, c.Machine.ID, nil)
}

// power starts a power action as the operator would; a machine that cannot take it
// now (busy with another task) is logged and left.
func (m *Machines) power(ctx context.Context, id string, action hypervisor.PowerAction) {
	if _, err := m.Start(ctx, id, Operation{Type: OpPower, Action: action}, nil); err != nil {
		m.sys.log.Warn("a billing suspension could not change a machine's power", zap.String("machine", id),
			zap.String("action", string(action)), zap.Error(err))
	}
}

// suspendBilling records the suspension; a suspended machine only gets the new reason.
func (e *machineEntity) suspendBilling(m *suspendBilling) (billingChanged, error) {
	next := *e.rec
	fresh := next.BillingSuspension == nil
	if fresh {
		running := e.rec.Status == StatusRunning && m.Action != BillingNone
		next.BillingSuspension = &BillingSuspension{Reason: m.Reason, Action: m.Action, Since: time.Now().UTC(), WasRunning: running}
	} else {
		s := *next.BillingSuspension
		s.Reason = m.Reason
		next.BillingSuspension = &s
	}
	next.UpdatedAt = time.Now().UTC()
	if err := e.save(&next, nil, "billing"); err != nil {
		return billingChanged{}, err
	}
	return billingChanged{Machine: e.rec.Machine, Fresh: fresh}, nil
}

// respond answers v, or fails with err.
func respond[T any](ctx *kit.Ctx, v T, err error) {
	if err != nil {
		ctx.Fail(err)
		return
	}
	ctx.Respond(v)
}

// unsuspendBilling ends the suspension.
func (e *machineEntity) unsuspendBilling() (billingChanged, error) {
	was := e.rec.BillingSuspension
	if was == nil && e.rec.TerminateAt == nil {
		return billingChanged{Machine: e.rec.Machine}, nil
	}
	next := *e.rec
	next.BillingSuspension = nil
	// The end of a billing suspension takes a termination back too.
	extra := e.unmark(&next)
	next.UpdatedAt = time.Now().UTC()
	if err := e.saveWith(&next, nil, "billing", nil, extra); err != nil {
		return billingChanged{}, err
	}
	return billingChanged{Machine: e.rec.Machine, Fresh: was != nil, Was: was}, nil
}
