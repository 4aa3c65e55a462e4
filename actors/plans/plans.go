package plans

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/apierr"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// Plan is a machine size a hosting company sells, and what a machine of it may have.
// A null count is no bound. IPv4 and IPv6Prefix are the addresses each machine of the
// plan gets from the IP pools when it is made; TrafficGB is recorded for the traffic
// accounting to come. Backups and Snapshots bound each machine's on-demand backups and
// snapshots.
type Plan struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	CPUCores int    `json:"cpu_cores"`
	MemoryMB int    `json:"memory_mb"`
	DiskGB   int    `json:"disk_gb"`
	// IPv4 is how many IPv4 addresses a machine of the plan gets from the IP pools.
	IPv4 int `json:"ipv4"`
	// IPv6Prefix is the length of the routed IPv6 prefix a machine gets (64: a /64);
	// null: none. The pools hand out /64 prefixes, whatever the length recorded.
	IPv6Prefix *int `json:"ipv6_prefix"`
	// TrafficGB is the monthly traffic allowance in GiB, in and out together;
	// null: unmetered. Past it, the overage action (actors/traffic) is taken.
	TrafficGB *int `json:"traffic_gb"`
	// RateMbps is the network rate limit of the plan's machines; null: none.
	RateMbps *int `json:"rate_mbps"`
	// Backups and Snapshots bound the on-demand backups and the snapshots each machine
	// of the plan may have; null: unbounded (the tenant's quota still applies).
	Backups   *int `json:"backups"`
	Snapshots *int `json:"snapshots"`
	// AllowedTemplates are the templates (ids or names) a machine of the plan may be
	// made from; empty: every template.
	AllowedTemplates []string `json:"allowed_templates"`
	// Location is the hypervisor cluster the plan's machines are made in ("default":
	// the one the settings configure, and that of a plan written before locations).
	Location  hvloc.ID  `json:"location_id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Bounds of a plan's fields beyond the machine sizes (machines.MinCores, ...).
const (
	MinNameLen, MaxNameLen = 1, 100
	// MaxIPv4 bounds the IPv4 addresses of one machine.
	MaxIPv4 = 256
	// MinIPv6Prefix and MaxIPv6Prefix bound the length of a machine's IPv6 prefix.
	MinIPv6Prefix, MaxIPv6Prefix = 1, 128
	// MaxCount bounds traffic_gb, backups and snapshots: a 32-bit integer's maximum,
	// so that every client's integers hold it.
	MaxCount = 1<<31 - 1
	// MaxTemplates bounds allowed_templates.
	MaxTemplates = 100
)

// PlanSpec is a plan to create, and the body of POST /api/resources/plans.
type PlanSpec struct {
	Name     string `json:"name" openapi:"required,limit=plan.name"`
	CPUCores int    `json:"cpu_cores" openapi:"required,limit=machine.cores"`
	MemoryMB int    `json:"memory_mb" openapi:"required,limit=machine.memory_mb"`
	DiskGB   int    `json:"disk_gb" openapi:"required,limit=machine.disk_gb"`
	// IPv4 defaults to 1 when omitted.
	IPv4             *int     `json:"ipv4,omitempty" openapi:"limit=plan.ipv4" doc:"IPv4 addresses each machine gets from the IP pools (default 1)"`
	IPv6Prefix       *int     `json:"ipv6_prefix,omitempty" openapi:"nullable,limit=plan.ipv6_prefix" doc:"length of the routed IPv6 prefix per machine (64: a /64, which the IP pools give); null or omitted: none"`
	TrafficGB        *int     `json:"traffic_gb,omitempty" openapi:"nullable,limit=plan.count" doc:"monthly traffic allowance in GiB (in and out together, per calendar month UTC); null or omitted: unmetered"`
	RateMbps         *int     `json:"rate_mbps,omitempty" openapi:"nullable,limit=machine.rate_mbps" doc:"network rate limit; null or omitted: none"`
	Backups          *int     `json:"backups,omitempty" openapi:"nullable,limit=plan.count" doc:"on-demand backups per machine; null or omitted: no bound beyond the tenant's quota"`
	Snapshots        *int     `json:"snapshots,omitempty" openapi:"nullable,limit=plan.count" doc:"snapshots per machine; null or omitted: no bound beyond the tenant's quota"`
	AllowedTemplates []string `json:"allowed_templates,omitempty" openapi:"nullable,limit=plan.templates,items.limit=id" doc:"template ids or names a machine of the plan may use; null or empty: all"`
	LocationID       *string  `json:"location_id,omitempty" openapi:"nullable,limit=id" doc:"the location the plan's machines are made in (GET /api/resources/locations); null or omitted: default"`
}

// PlanChange is a partial change of a plan, the body of PATCH
// /api/resources/plans/{id}: what it omits keeps its value; the nullable fields are
// cleared by a null (Update's nulls).
type PlanChange struct {
	Name             *string  `json:"name,omitempty" openapi:"limit=plan.name"`
	CPUCores         *int     `json:"cpu_cores,omitempty" openapi:"limit=machine.cores"`
	MemoryMB         *int     `json:"memory_mb,omitempty" openapi:"limit=machine.memory_mb"`
	DiskGB           *int     `json:"disk_gb,omitempty" openapi:"limit=machine.disk_gb"`
	IPv4             *int     `json:"ipv4,omitempty" openapi:"limit=plan.ipv4"`
	IPv6Prefix       *int     `json:"ipv6_prefix,omitempty" openapi:"nullable,limit=plan.ipv6_prefix" doc:"null: none"`
	TrafficGB        *int     `json:"traffic_gb,omitempty" openapi:"nullable,limit=plan.count" doc:"null: unmetered"`
	RateMbps         *int     `json:"rate_mbps,omitempty" openapi:"nullable,limit=machine.rate_mbps" doc:"null: none"`
	Backups          *int     `json:"backups,omitempty" openapi:"nullable,limit=plan.count" doc:"null: no bound"`
	Snapshots        *int     `json:"snapshots,omitempty" openapi:"nullable,limit=plan.count" doc:"null: no bound"`
	AllowedTemplates []string `json:"allowed_templates,omitempty" openapi:"nullable,limit=plan.templates,items.limit=id" doc:"null or empty: all"`
	LocationID       *string  `json:"location_id,omitempty" openapi:"nullable,limit=id" doc:"null: the default location"`
}

const planVersion = 1

func planKey(id string) []byte { return persistence.Key("plan", id) }

// nameKey is the index key of a plan name: plan-name/<folded name>.
func nameKey(name string) []byte { return persistence.Key("plan-name", kit.FoldName(name)) }

// Deps are what the plans need from outside their package.
type Deps struct {
	Runtime *kit.Runtime
	// Machines counts the machines of a plan (a plan in use is not deleted); Nodes
	// answer the room a plan's machine needs (capacity).
	Machines *machines.Machines
	Nodes    *capacity.Nodes
	// LocationExists answers whether a location of that id is there (a not-found
	// error otherwise); the locations live beside the plans, and are asked through it.
	// nil: the default location alone is known.
	LocationExists func(ctx context.Context, id string) error
}

// Plans is the service of the plan records. A plan is written seldom and read often,
// so it has no entity: each write is one conditional batch (the name's index key
// absent, the record as it was read), which holds across the members of a cluster as
// an entity's order would, and a write that lost a race is a 409.
type Plans struct {
	rt       *kit.Runtime
	store    persistence.Store
	machines *machines.Machines
	nodes    *capacity.Nodes
	located  func(ctx context.Context, id string) error
}

// Start returns the plans' service.
func Start(d Deps) *Plans {
	return &Plans{rt: d.Runtime, store: d.Runtime.Store, machines: d.Machines, nodes: d.Nodes, located: d.LocationExists}
}

// Get returns one plan.
func (p *Plans) Get(ctx context.Context, id string) (Plan, error) {
	pl, _, err := p.load(ctx, id)
	return pl, err
}

// load returns a plan and its stored value, which a write requires unchanged.
func (p *Plans) load(ctx context.Context, id string) (Plan, []byte, error) {
	if id == "" || len(id) > 64 || strings.Contains(id, "/") {
		return Plan{}, nil, apierr.NotFound("plan", id)
	}
	raw, err := p.store.Get(ctx, planKey(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return Plan{}, nil, apierr.NotFound("plan", id)
	}
	if err != nil {
		return Plan{}, nil, err
	}
	var pl Plan
	if _, err := persistence.Decode(raw, &pl); err != nil {
		return Plan{}, nil, err
	}
	return pl, raw, nil
}

// List returns plans in creation order; with location, only those of that location
// (its id; "default": the default one).
func (p *Plans) List(ctx context.Context, location *string, cursor string, limit int) ([]Plan, string, error) {
	return kit.ScanPage(ctx, p.store, persistence.Prefix("plan"), cursor, limit, func(r *Plan) (Plan, bool) {
		return *r, location == nil || string(r.Location) == hvloc.Tag(*location)
	})
}

// Create records a new plan; its name must be free, ignoring case (409 otherwise).
func (p *Plans) Create(ctx context.Context, s PlanSpec) (Plan, error) {
	pl := Plan{ID: persistence.NewID(), Name: s.Name, CPUCores: s.CPUCores, MemoryMB: s.MemoryMB, DiskGB: s.DiskGB, IPv4: 1,
		IPv6Prefix: s.IPv6Prefix, TrafficGB: s.TrafficGB, RateMbps: s.RateMbps, Backups: s.Backups, Snapshots: s.Snapshots,
		AllowedTemplates: templates(s.AllowedTemplates)}
	if s.IPv4 != nil {
		pl.IPv4 = *s.IPv4
	}
	if s.LocationID != nil {
		pl.Location = hvloc.ID(hvloc.Tag(*s.LocationID))
	}
	if err := p.validate(ctx, &pl); err != nil {
		return Plan{}, err
	}
	now := time.Now().UTC()
	pl.CreatedAt, pl.UpdatedAt = now, now
	if err := p.save(ctx, &pl, nil, nil); err != nil {
		return Plan{}, err
	}
	return pl, nil
}

// Update changes a plan: what c omits keeps its value, and the fields nulls names
// (by their JSON names) are cleared. Machines made from the plan keep their sizes
// until they are moved to a plan again.
func (p *Plans) Update(ctx context.Context, id string, c PlanChange, nulls map[string]bool) (Plan, error) {
	prev, raw, err := p.load(ctx, id)
	if err != nil {
		return Plan{}, err
	}
	next := prev
	setInt := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	setOpt := func(dst **int, v *int, field string) {
		switch {
		case v != nil:
			*dst = kit.Ptr(*v)
		case nulls[field]:
			*dst = nil
		}
	}
	if c.Name != nil {
		next.Name = *c.Name
	}
	setInt(&next.CPUCores, c.CPUCores)
	setInt(&next.MemoryMB, c.MemoryMB)
	setInt(&next.DiskGB, c.DiskGB)
	setInt(&next.IPv4, c.IPv4)
	setOpt(&next.IPv6Prefix, c.IPv6Prefix, "ipv6_prefix")
	setOpt(&next.TrafficGB, c.TrafficGB, "traffic_gb")
	setOpt(&next.RateMbps, c.RateMbps, "rate_mbps")
	setOpt(&next.Backups, c.Backups, "backups")
	setOpt(&next.Snapshots, c.Snapshots, "snapshots")
	if c.AllowedTemplates != nil || nulls["allowed_templates"] {
		next.AllowedTemplates = templates(c.AllowedTemplates)
	}
	switch {
	case c.LocationID != nil:
		next.Location = hvloc.ID(hvloc.Tag(*c.LocationID))
	case nulls["location_id"]:
		next.Location = ""
	}
	if err := p.validate(ctx, &next); err != nil {
		return Plan{}, err
	}
	if next.Location != prev.Location {
		// Its machines stay in their cluster: the plan would sell what they are not.
		n, err := p.machines.CountPlan(ctx, id)
		if err != nil {
			return Plan{}, err
		}
		if n > 0 {
			return Plan{}, apierr.New(apierr.ErrConflict, "plan %s is used by %d machine(s) in location %s; a plan in use stays in its location",
				id, n, hvloc.Name(string(prev.Location)))
		}
	}
	next.UpdatedAt = time.Now().UTC()
	if err := p.save(ctx, &next, &prev, raw); err != nil {
		return Plan{}, err
	}
	return next, nil
}

// Delete deletes a plan no machine uses; one in use is a 409 saying how many do.
func (p *Plans) Delete(ctx context.Context, id string) error {
	pl, raw, err := p.load(ctx, id)
	if err != nil {
		return err
	}
	n, err := p.machines.CountPlan(ctx, id)
	if err != nil {
		return err
	}
	if n > 0 {
		return apierr.New(apierr.ErrConflict, "plan %s is used by %d machine(s); move them to another plan first", id, n)
	}
	b := new(persistence.Batch).Require(persistence.IfValue(planKey(id), raw)).Del(planKey(id))
	if holder, err := p.store.Get(ctx, nameKey(pl.Name)); err == nil && string(holder) == id {
		b.Del(nameKey(pl.Name))
	}
	if err := p.rt.Audit(b, kit.AuditOf(ctx).On("", id, "")); err != nil {
		return err
	}
	if err := p.store.Commit(ctx, b); persistence.IsConditionFailed(err) {
		return apierr.New(apierr.ErrConflict, "plan %s changed while it was deleted; try again", id)
	} else if err != nil {
		return err
	}
	return nil
}

// save writes pl; prev and raw, for a change, are the plan as it was read and its
// stored value, which the batch requires unchanged. A name it takes must be free.
func (p *Plans) save(ctx context.Context, pl, prev *Plan, raw []byte) error {
	val, err := persistence.Encode(planVersion, pl)
	if err != nil {
		return err
	}
	b := new(persistence.Batch).Put(planKey(pl.ID), val)
	if prev == nil {
		b.Require(persistence.IfAbsent(planKey(pl.ID)))
	} else {
		b.Require(persistence.IfValue(planKey(pl.ID), raw))
	}
	if prev == nil || kit.FoldName(prev.Name) != kit.FoldName(pl.Name) {
		if err := p.nameFree(ctx, pl.Name, pl.ID); err != nil {
			return err
		}
		b.Require(persistence.IfAbsent(nameKey(pl.Name))).Put(nameKey(pl.Name), []byte(pl.ID))
		if prev != nil {
			b.Del(nameKey(prev.Name))
		}
	}
	if err := p.rt.Audit(b, kit.AuditOf(ctx).On("", pl.ID, "")); err != nil {
		return err
	}
	if err := p.store.Commit(ctx, b); persistence.IsConditionFailed(err) {
		if err := p.nameFree(ctx, pl.Name, pl.ID); err != nil {
			return err
		}
		return apierr.New(apierr.ErrConflict, "plan %s changed while it was written; try again", pl.ID)
	} else if err != nil {
		return err
	}
	return nil
}

// nameFree is a 409 when a plan other than self is named name, ignoring case.
func (p *Plans) nameFree(ctx context.Context, name, self string) error {
	return kit.NameFree(ctx, p.store, nameKey(name), "plan", name, self)
}

// templates is the allowed templates as stored: never nil, so that the API shows [].
func templates(t []string) []string {
	if t == nil {
		return []string{}
	}
	return slices.Clone(t)
}

// validate checks every field of a plan against its bounds, and that its location
// is there, for every caller.
func (p *Plans) validate(ctx context.Context, pl *Plan) error {
	if err := validate(pl); err != nil {
		return err
	}
	return LocationKnown(ctx, p.located, "location_id", string(pl.Location))
}

// LocationKnown checks the location tagged tag ("" is the default one, always there)
// through exists (nil: no other location is known): one that is not there is an
// invalid request naming field.
func LocationKnown(ctx context.Context, exists func(context.Context, string) error, field, tag string) error {
	if tag == "" {
		return nil
	}
	if len(tag) > 64 || strings.Contains(tag, "/") {
		return apierr.Invalid(apierr.Field(field, "no location %s", tag))
	}
	if exists == nil {
		return apierr.Invalid(apierr.Field(field, "no location %s", tag))
	}
	if err := exists(ctx, tag); errors.Is(err, apierr.ErrNotFound) {
		return apierr.Invalid(apierr.Field(field, "no location %s", tag))
	} else if err != nil {
		return err
	}
	return nil
}

// validate checks every field of a plan against its bounds.
func validate(pl *Plan) error {
	var f []apierr.FieldError
	if n := len(strings.TrimSpace(pl.Name)); n < MinNameLen || len(pl.Name) > MaxNameLen {
		f = append(f, apierr.Field("name", "must be %d..%d characters", MinNameLen, MaxNameLen))
	}
	between := func(field string, v, lo, hi int) {
		if v < lo || v > hi {
			f = append(f, apierr.Field(field, "must be %d..%d", lo, hi))
		}
	}
	optional := func(field string, v *int, lo, hi int) {
		if v != nil {
			between(field, *v, lo, hi)
		}
	}
	between("cpu_cores", pl.CPUCores, machines.MinCores, machines.MaxCores)
	between("memory_mb", pl.MemoryMB, machines.MinMemoryMB, machines.MaxMemoryMB)
	between("disk_gb", pl.DiskGB, machines.MinDiskGB, machines.MaxDiskGB)
	between("ipv4", pl.IPv4, 0, MaxIPv4)
	optional("ipv6_prefix", pl.IPv6Prefix, MinIPv6Prefix, MaxIPv6Prefix)
	optional("traffic_gb", pl.TrafficGB, 0, MaxCount)
	optional("rate_mbps", pl.RateMbps, 0, machines.MaxRateMbps)
	optional("backups", pl.Backups, 0, MaxCount)
	optional("snapshots", pl.Snapshots, 0, MaxCount)
	if len(pl.AllowedTemplates) > MaxTemplates {
		f = append(f, apierr.Field("allowed_templates", "must list at most %d templates", MaxTemplates))
	}
	for i, t := range pl.AllowedTemplates {
		if t == "" || len(t) > 64 {
			f = append(f, apierr.Field(fmt.Sprintf("allowed_templates[%d]", i), "must be a template id or name of 1..64 characters"))
		}
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return nil
}

// Allows reports whether a machine of the plan may be made from the template with
// this id and name: the plan allows every template, or lists the id or the name.
func (pl *Plan) Allows(templateID, templateName string) bool {
	return len(pl.AllowedTemplates) == 0 || slices.Contains(pl.AllowedTemplates, templateID) ||
		(templateName != "" && slices.Contains(pl.AllowedTemplates, templateName))
}
