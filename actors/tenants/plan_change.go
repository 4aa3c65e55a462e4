package tenants

import (
	"context"
	"errors"
	"strings"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
)

// A machine made from a plan (MachineSpec.PlanID) gets the plan's sizes, and keeps the
// plan's id in its record; moving it to another plan (ChangePlan) is a resize to the
// plan's sizes through the same reservation as a tenant's resize, so its quota, its
// busy and suspended answers and its task are a resize's.

// fromPlan gives a create naming a plan the plan's sizes, and answers the plan (nil
// for a create of explicit sizes). Sizes given beside a plan are refused rather than
// ignored: the machine would not be what the caller asked for.
func (t *Tenants) fromPlan(ctx context.Context, s *MachineSpec) (*plans.Plan, error) {
	if s.PlanID == nil {
		var f []apierr.FieldError
		for _, z := range []struct {
			field string
			v     int
		}{{"cpu_cores", s.CPUCores}, {"memory_mb", s.MemoryMB}, {"disk_gb", s.DiskGB}} {
			if z.v == 0 {
				f = append(f, apierr.Field(z.field, "is required without plan_id"))
			}
		}
		if len(f) > 0 {
			return nil, apierr.Invalid(f...)
		}
		return nil, nil
	}
	var f []apierr.FieldError
	for _, z := range []struct {
		field string
		v     int
	}{{"cpu_cores", s.CPUCores}, {"memory_mb", s.MemoryMB}, {"disk_gb", s.DiskGB}} {
		if z.v != 0 {
			f = append(f, apierr.Field(z.field, "must be omitted with plan_id: the plan gives the sizes"))
		}
	}
	if len(f) > 0 {
		return nil, apierr.Invalid(f...)
	}
	if t.sys.Plans == nil {
		return nil, apierr.Invalid(apierr.Field("plan_id", "no plan %s", *s.PlanID))
	}
	p, err := t.sys.Plans.Get(ctx, *s.PlanID)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil, apierr.Invalid(apierr.Field("plan_id", "no plan %s", *s.PlanID))
	}
	if err != nil {
		return nil, err
	}
	s.CPUCores, s.MemoryMB, s.DiskGB = p.CPUCores, p.MemoryMB, p.DiskGB
	return &p, nil
}

// PlanMove is the body of a move to a plan: POST .../machines/{vmId}/plan.
type PlanMove struct {
	PlanID string `json:"plan_id" openapi:"required,minLength=1,limit=id"`
}

// plan is the plan a request names, a 400 naming the field when there is none.
func (t *Tenants) plan(ctx context.Context, id string) (plans.Plan, error) {
	if t.sys.Plans == nil {
		return plans.Plan{}, apierr.Invalid(apierr.Field("plan_id", "no plan %s", id))
	}
	p, err := t.sys.Plans.Get(ctx, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return plans.Plan{}, apierr.Invalid(apierr.Field("plan_id", "no plan %s", id))
	}
	return p, err
}

// planInLocation refuses a move to a plan sold in another location than the
// machine's: a machine does not leave its cluster.
func planInLocation(p *plans.Plan, rec machines.Machine) error {
	if p.Location != rec.Location {
		return apierr.Invalid(apierr.Field("plan_id", "plan %s is sold in location %s; the machine is in %s",
			p.Name, hvloc.Name(string(p.Location)), hvloc.Name(string(rec.Location))))
	}
	return nil
}

// planAllows refuses a move to a plan that does not offer the machine's template (a
// plan of licensed systems is not left for a cheaper one that lists none of them).
func (t *Tenants) planAllows(ctx context.Context, p *plans.Plan, templateID string) error {
	if ok, err := t.allowsTemplate(ctx, p, templateID); err != nil || ok {
		return err
	}
	return apierr.Invalid(apierr.Field("plan_id", "plan %s does not offer the machine's template %s (it allows %s)",
		p.Name, templateID, strings.Join(p.AllowedTemplates, ", ")))
}

// TemplateAllowed answers a 400 naming template_id when the plan does not offer the
// template, which a reinstall of one of its machines names (machines.Deps'
// TemplateAllowed). A plan that is gone holds nothing back.
func (t *Tenants) TemplateAllowed(ctx context.Context, planID, templateID string) error {
	if t.sys.Plans == nil {
		return nil
	}
	p, err := t.sys.Plans.Get(ctx, planID)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if ok, err := t.allowsTemplate(ctx, &p, templateID); err != nil || ok {
		return err
	}
	return apierr.Invalid(apierr.Field("template_id", "template not allowed by plan %s (it allows %s)",
		p.Name, strings.Join(p.AllowedTemplates, ", ")))
}

// allowsTemplate reports whether p offers the template, by id or by name. A machine of
// no known template (one adopted from the hypervisor) fits every plan: there is nothing
// to hold against the plan's list.
func (t *Tenants) allowsTemplate(ctx context.Context, p *plans.Plan, templateID string) (bool, error) {
	if templateID == "" || len(p.AllowedTemplates) == 0 {
		return true, nil
	}
	name := ""
	if tpl, err := t.sys.Inventory.Template(ctx, templateID); err == nil {
		name = tpl.Name
	} else if !errors.Is(err, apierr.ErrNotFound) {
		return false, err
	}
	return p.Allows(templateID, name), nil
}

// ChangePlan moves one of a tenant's machines to a plan: a resize to the plan's sizes,
// within the tenant's quota, after which the machine's record names the plan. Disks
// never shrink: a plan with a smaller disk than the machine's is a 400 saying both.
func (t *Tenants) ChangePlan(ctx context.Context, tenantID, machineID, planID string) (tasks.Task, error) {
	// The machine first: one that does not exist, or is another tenant's, is a 404
	// whatever the plan named.
	id, err := t.sys.Machines.Resolve(ctx, machineID)
	if err != nil {
		return tasks.Task{}, err
	}
	rec, err := t.sys.Machines.Stored(ctx, id)
	if err == nil && (rec.TenantID == nil || *rec.TenantID != tenantID) {
		err = apierr.NotFound("machine", id)
	}
	if err != nil {
		return tasks.Task{}, machines.NotFoundAs(err, machineID)
	}
	p, err := t.plan(ctx, planID)
	if err != nil {
		return tasks.Task{}, err
	}
	if err := planInLocation(&p, rec); err != nil {
		return tasks.Task{}, err
	}
	if err := t.planAllows(ctx, &p, rec.TemplateID); err != nil {
		return tasks.Task{}, err
	}
	change := ResourceChange{CPUCores: kit.Ptr(p.CPUCores), MemoryMB: kit.Ptr(p.MemoryMB), DiskGB: kit.Ptr(p.DiskGB)}
	r, err := kit.Ask[resizeReserved](ctx, t.kind, tenantID, &reserveResize{MachineID: id, Change: change, PlanID: p.ID, PlanName: p.Name})
	if err != nil {
		return tasks.Task{}, machines.NotFoundAs(err, machineID)
	}
	task, err := t.sys.Machines.Start(ctx, id, r.Op, &tenantID)
	if err != nil {
		t.tell(tenantID, &releaseResize{MachineID: id})
		return tasks.Task{}, machines.NotFoundAs(err, machineID)
	}
	t.tell(tenantID, &resizeStarted{MachineID: id, TaskID: task.ID})
	return task, nil
}

// ChangeAnyPlan is an operator's move of any machine to a plan: a machine of a tenant
// moves as ChangePlan moves it, within its tenant's quota; one of no tenant has no
// quota to hold, and is resized at once.
func (t *Tenants) ChangeAnyPlan(ctx context.Context, machineID, planID string) (tasks.Task, error) {
	id, err := t.sys.Machines.Resolve(ctx, machineID)
	if err != nil {
		return tasks.Task{}, err
	}
	rec, err := t.sys.Machines.Stored(ctx, id)
	if err != nil {
		return tasks.Task{}, machines.NotFoundAs(err, machineID)
	}
	if rec.TenantID != nil {
		return t.ChangePlan(ctx, *rec.TenantID, id, planID)
	}
	p, err := t.plan(ctx, planID)
	if err != nil {
		return tasks.Task{}, err
	}
	if err := planInLocation(&p, rec); err != nil {
		return tasks.Task{}, err
	}
	if err := t.planAllows(ctx, &p, rec.TemplateID); err != nil {
		return tasks.Task{}, err
	}
	change := ResourceChange{CPUCores: kit.Ptr(p.CPUCores), MemoryMB: kit.Ptr(p.MemoryMB), DiskGB: kit.Ptr(p.DiskGB)}
	op, _, err := resizeOp(rec, change, p.ID, p.Name)
	if err != nil {
		return tasks.Task{}, err
	}
	task, err := t.sys.Machines.Start(ctx, id, op, nil)
	return task, machines.NotFoundAs(err, machineID)
}

// resizeOp is the resize of machine rec that change asks for, and what it adds to the
// tenant's usage. planID and planName, when set, are the plan it moves the machine to:
// the operation carries it, a machine of these sizes still moves, and a disk the plan
// would shrink is refused naming both sizes.
func resizeOp(rec machines.Machine, c ResourceChange, planID, planName string) (machines.Operation, Usage, error) {
	var delta Usage
	op := machines.Operation{Type: machines.OpResize}
	cfg := hypervisor.ConfigChange{}
	if c.CPUCores != nil && *c.CPUCores != rec.CPUCores {
		delta.CPUCores = *c.CPUCores - rec.CPUCores
		cfg.CPUCores = c.CPUCores
	}
	if c.MemoryMB != nil && *c.MemoryMB != rec.MemoryMB {
		delta.MemoryMB = *c.MemoryMB - rec.MemoryMB
		cfg.MemoryMB = c.MemoryMB
	}
	if c.DiskGB != nil {
		if *c.DiskGB < rec.DiskGB {
			if planID != "" {
				return op, delta, apierr.Invalid(apierr.Field("plan_id",
					"disks never shrink: the machine's disk is %d GB and plan %s's %d GB", rec.DiskGB, planName, *c.DiskGB))
			}
			return op, delta, apierr.Invalid(apierr.Field("disk_gb", "disks only grow: the machine has %d GB", rec.DiskGB))
		}
		if *c.DiskGB > rec.DiskGB && len(rec.Disks) == 0 && rec.VMID != 0 {
			return op, delta, machines.ErrNoDiskToGrow()
		}
		delta.DiskGB = *c.DiskGB - rec.DiskGB
		op.DiskGrowGB = delta.DiskGB
	}
	if cfg.CPUCores != nil || cfg.MemoryMB != nil {
		op.Config = &cfg
	}
	if planID != "" {
		if op.Config == nil && op.DiskGrowGB == 0 && rec.PlanID != nil && *rec.PlanID == planID {
			return op, delta, apierr.Invalid(apierr.Field("plan_id", "the machine is on plan %s already, with its sizes", planName))
		}
		op.PlanID = kit.Ptr(planID)
	} else if op.Config == nil && op.DiskGrowGB == 0 {
		return op, delta, apierr.Invalid(apierr.Field("body", "the machine already has these resources"))
	}
	return op, delta, nil
}
