package tenants

import (
	"context"
	"errors"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// Suspension actions: what a suspension does to the tenant's running machines.
const (
	// SuspendStop stops them (and unsuspend {start} starts them again).
	SuspendStop = "stop"
	// SuspendHypervisor suspends them on the hypervisor (unsuspend {start} resumes them).
	SuspendHypervisor = "suspend"
	// SuspendNone leaves them running: only the tenant's users are held back.
	SuspendNone = "none"
)

// SuspendActions lists the suspension actions, for the document and the settings.
var SuspendActions = []string{SuspendStop, SuspendHypervisor, SuspendNone}

// MaxReasonLen bounds a suspension's reason.
const MaxReasonLen = 500

// Suspension is why and since when a tenant is suspended (for non-payment, say): its
// users may sign in and read, every other write of theirs is refused with
// tenant_suspended and the reason.
type Suspension struct {
	Reason string `json:"reason"`
	// Action is what the suspension did to the machines that were running: stop,
	// suspend or none.
	Action string    `json:"action"`
	Since  time.Time `json:"since"`
	// Machines are the machines the suspension stopped or suspended (those running
	// when it began), which an unsuspend with start brings back, and only those.
	Machines []string `json:"machines"`
}

// Messages of a tenant entity's suspension.
type (
	suspendTenant struct{ Reason, Action string }
	// suspendedMachines records the machines a fresh suspension is about to stop.
	suspendedMachines struct{ IDs []string }
	unsuspendTenant   struct{}
)

// Suspended is the answer of a suspend or an unsuspend: the tenant as it is now, and
// whether the call changed the suspension's state (Fresh: it began, or it ended), with
// the suspension that ended (Was) on an unsuspend.
type Suspended struct {
	Tenant Tenant      `json:"tenant"`
	Fresh  bool        `json:"fresh"`
	Was    *Suspension `json:"was"`
}

// SuspendedError is the error a suspended tenant's user gets for a write.
func SuspendedError(s *Suspension) error {
	return apierr.New(apierr.ErrTenantSuspended, "the tenant is suspended: %s", s.Reason)
}

func checkSuspend(reason, action string) error {
	var f []apierr.FieldError
	if reason == "" || len(reason) > MaxReasonLen {
		f = append(f, apierr.Field("reason", "must be 1..%d characters", MaxReasonLen))
	}
	if !slices.Contains(SuspendActions, action) {
		f = append(f, apierr.Field("action", "must be stop, suspend or none"))
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return nil
}

// Suspend suspends a tenant, with reason, or sets the reason of a suspended one.
// action ("" for the operator's default, Deps.SuspendAction) says what happens to its
// running machines: their stops (or hypervisor suspends) start as ordinary machine
// tasks once the suspension, and the list of the machines it stops, are durable.
func (t *Tenants) Suspend(ctx context.Context, id, reason, action string) (Tenant, error) {
	if action == "" {
		action = t.sys.suspendAction
	}
	if _, err := t.Get(ctx, id); err != nil {
		return Tenant{}, err
	}
	if err := checkSuspend(reason, action); err != nil {
		return Tenant{}, err
	}
	s, err := kit.Ask[Suspended](ctx, t.kind, id, &suspendTenant{Reason: reason, Action: action})
	if err != nil || !s.Fresh {
		return s.Tenant, err
	}
	t.sys.Events.Publish(events.EventTenantSuspended, &s.Tenant.ID, s.Tenant)
	if action == SuspendNone {
		return s.Tenant, nil
	}
	// From here on the tenant's users start nothing (the edge reads the standing the
	// entity published before it answered), so
	// the machines running now are all that is to be stopped.
	running, err := t.running(ctx, id)
	if err != nil {
		return s.Tenant, err
	}
	if len(running) == 0 {
		return s.Tenant, nil
	}
	if s, err = kit.Ask[Suspended](ctx, t.kind, id, &suspendedMachines{IDs: running}); err != nil {
		return s.Tenant, err
	}
	power := hypervisor.ActionStop
	if action == SuspendHypervisor {
		power = hypervisor.ActionSuspend
	}
	t.power(ctx, id, running, power)
	return s.Tenant, nil
}

// Unsuspend ends a tenant's suspension; one not suspended is left as it is (a billing
// system may retry). With start, the machines the suspension stopped or suspended are
// started or resumed, as machine tasks.
func (t *Tenants) Unsuspend(ctx context.Context, id string, start bool) (Tenant, error) {
	if _, err := t.Get(ctx, id); err != nil {
		return Tenant{}, err
	}
	s, err := kit.Ask[Suspended](ctx, t.kind, id, &unsuspendTenant{})
	if err != nil || !s.Fresh || s.Was == nil {
		return s.Tenant, err
	}
	t.sys.Events.Publish(events.EventTenantUnsuspended, &s.Tenant.ID, s.Tenant)
	if start && len(s.Was.Machines) > 0 {
		power := hypervisor.ActionStart
		if s.Was.Action == SuspendHypervisor {
			power = hypervisor.ActionResume
		}
		t.power(ctx, id, s.Was.Machines, power)
	}
	return s.Tenant, nil
}

// running lists the tenant's machines that run now.
func (t *Tenants) running(ctx context.Context, id string) ([]string, error) {
	var out []string
	cursor := ""
	for {
		page, next, err := t.sys.Machines.ListTenant(ctx, id, cursor, 500)
		if err != nil {
			return nil, err
		}
		for i := range page {
			if page[i].Status == machines.StatusRunning {
				out = append(out, page[i].ID)
			}
		}
		if next == "" {
			return out, nil
		}
		cursor = next
	}
}

// power starts action on each machine, as the operator would: a machine that cannot
// take it now (busy with another task, in another state, gone) is logged and left; for
// a suspension, the next sweep (EnforceSuspensions) tries again.
func (t *Tenants) power(ctx context.Context, tenant string, ids []string, action hypervisor.PowerAction) {
	for _, id := range ids {
		if _, err := t.sys.Machines.Start(ctx, id, machines.Operation{Type: machines.OpPower, Action: action}, nil); err != nil {
			log := t.sys.log.Warn
			if errors.Is(err, apierr.ErrOperationInProgress) {
				log = t.sys.log.Info // busy: the sweep tries again once its task has ended
			}
			log("a tenant's suspension could not change a machine's power", zap.String("tenant", tenant),
				zap.String("machine", id), zap.String("action", string(action)), zap.Error(err))
		}
	}
}

// SuspensionSweepInterval is how often the suspended tenants' machines are looked at
// again (EnforceSuspensions).
const SuspensionSweepInterval = time.Minute

// EnforceSuspensions stops (or suspends, as each suspension says) every machine of a
// suspended tenant that runs: one that was busy with a task when the suspension began,
// one that was starting then, or one started since behind vmplane's back. The machines
// it stops join the suspension's list, so an unsuspend with start starts them too. It
// runs every SuspensionSweepInterval on the member that leads the job.
func (t *Tenants) EnforceSuspensions(ctx context.Context) error {
	cursor := ""
	for {
		page, next, err := t.List(ctx, cursor, 500)
		if err != nil {
			return err
		}
		for i := range page {
			sp := page[i].Suspension
			if sp == nil || sp.Action == SuspendNone {
				continue
			}
			if err := t.enforce(ctx, page[i].ID); err != nil {
				t.sys.log.Warn("a tenant's suspension could not be enforced", zap.String("tenant", page[i].ID), zap.Error(err))
			}
		}
		if next == "" {
			return nil
		}
		cursor = next
	}
}

// enforce stops what runs of one suspended tenant's machines.
func (t *Tenants) enforce(ctx context.Context, id string) error {
	running, err := t.running(ctx, id)
	if err != nil || len(running) == 0 {
		return err
	}
	s, err := kit.Ask[Suspended](ctx, t.kind, id, &suspendedMachines{IDs: running})
	if err != nil || s.Tenant.Suspension == nil {
		return err // unsuspended meanwhile: leave them running
	}
	power := hypervisor.ActionStop
	if s.Tenant.Suspension.Action == SuspendHypervisor {
		power = hypervisor.ActionSuspend
	}
	t.power(ctx, id, running, power)
	return nil
}

func (e *tenantEntity) suspend(ctx *kit.Ctx, m *suspendTenant) {
	next := *e.rec
	fresh := next.Suspension == nil
	if fresh {
		next.Suspension = &Suspension{Reason: m.Reason, Action: m.Action, Since: time.Now().UTC(), Machines: []string{}}
	} else {
		s := *next.Suspension
		s.Reason = m.Reason
		next.Suspension = &s
	}
	e.saveSuspension(ctx, &next, Suspended{Fresh: fresh})
}

// suspendedMachines adds machines to those the suspension stopped (an unsuspend with
// start starts them all): the ones running when it began, and those a later sweep
// found running (EnforceSuspensions).
func (e *tenantEntity) suspendedMachines(ctx *kit.Ctx, m *suspendedMachines) {
	if e.rec.Suspension == nil {
		ctx.Respond(Suspended{Tenant: *e.rec}) // unsuspended meanwhile: nothing to stop
		return
	}
	next := *e.rec
	s := *next.Suspension
	s.Machines = slices.Clone(s.Machines)
	for _, id := range m.IDs {
		if !slices.Contains(s.Machines, id) {
			s.Machines = append(s.Machines, id)
		}
	}
	next.Suspension = &s
	e.saveSuspension(ctx, &next, Suspended{Fresh: true})
}

func (e *tenantEntity) unsuspend(ctx *kit.Ctx) {
	if e.rec.Suspension == nil {
		ctx.Respond(Suspended{Tenant: *e.rec})
		return
	}
	next := *e.rec
	next.Suspension = nil
	e.saveSuspension(ctx, &next, Suspended{Fresh: true, Was: e.rec.Suspension})
}

// saveSuspension writes next and answers with it in reply.
func (e *tenantEntity) saveSuspension(ctx *kit.Ctx, next *Tenant, reply Suspended) {
	next.UpdatedAt = time.Now().UTC()
	if err := e.save(next, nil); err != nil {
		ctx.Fail(err)
		return
	}
	e.setRec(next)
	reply.Tenant = *next
	ctx.Respond(reply)
}

// CheckActive answers SuspendedError for a suspended tenant, and nil for an active one:
// what the edge asks before a tenant user's write. It reads the standing the tenant's
// entity published (standings), without a message, or on a cluster member its copy of
// the active tenants; without one (an entity not active since the start, a write of
// the record under way, a suspended tenant on a cluster) it asks the entity, which
// holds the record in memory (one store read when it activates), wherever it runs.
func (t *Tenants) CheckActive(ctx context.Context, id string) error {
	if st, ok := t.sys.standing.get(id); ok {
		if st.suspended {
			return SuspendedError(&Suspension{Reason: st.reason})
		}
		return nil
	}
	gen := t.sys.standing.fresh.Begin()
	ten, err := t.Get(ctx, id)
	if err != nil {
		return err
	}
	if ten.Suspension != nil {
		return SuspendedError(ten.Suspension)
	}
	t.sys.standing.fresh.Keep(id, struct{}{}, gen)
	return nil
}
