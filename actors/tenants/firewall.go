package tenants

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/vmplane/vmplane/actors/machines"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// FirewallRule is one of a tenant's rules. Rules are ordered by Position (1-based,
// contiguous) across the tenant; a machine's rule set is the tenant's rules for that
// machine or for all machines (MachineID null), in that order.
type FirewallRule struct {
	ID          string    `json:"id"`
	TenantID    string    `json:"tenant_id"`
	MachineID   *string   `json:"machine_id"`
	Direction   string    `json:"direction"`
	Action      string    `json:"action"`
	Protocol    string    `json:"protocol"`
	Port        *string   `json:"port"`
	Source      *string   `json:"source"`
	Destination *string   `json:"destination"`
	Enabled     bool      `json:"enabled"`
	Position    int       `json:"position"`
	Comment     string    `json:"comment"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

const ruleVersion = 1

func ruleKey(tenant, id string) []byte { return persistence.Key("fw", tenant, id) }

// RuleInput is a rule to create, or (with Clear naming the nullable fields set to null)
// a partial change of one. Nil fields are left as they are.
type RuleInput struct {
	MachineID   *string `json:"machine_id,omitempty"`
	Direction   *string `json:"direction,omitempty"`
	Action      *string `json:"action,omitempty"`
	Protocol    *string `json:"protocol,omitempty"`
	Port        *string `json:"port,omitempty"`
	Source      *string `json:"source,omitempty"`
	Destination *string `json:"destination,omitempty"`
	Enabled     *bool   `json:"enabled,omitempty"`
	Position    *int    `json:"position,omitempty"`
	Comment     *string `json:"comment,omitempty"`
	// Clear lists the nullable fields the caller set to null: machine_id, port,
	// source, destination.
	Clear []string `json:"clear,omitempty"`
}

// Messages of the firewall part of a tenant entity.
type (
	listRules struct {
		MachineID *string
		// Cursor and Limit page the list (rulePage); Limit 0 is every rule.
		Cursor string
		Limit  int
	}
	getRule    struct{ ID string }
	createRule struct {
		In RuleInput
		// Stamp, for a create made with an Idempotency-Key, is the key's claim,
		// which the create's write carries (kit.Stamp).
		Stamp *kit.Stamp
	}
	updateRule struct {
		ID string
		In RuleInput
	}
	deleteRule struct{ ID string }
	pushDone   struct {
		Failed []string
	}
	// rulesSettled tells the entity that a rule write failed.
	rulesSettled struct{}
	// Rules is a list of rules in position order; Next is the cursor of the next page
	// ("" on the last).
	Rules struct {
		Items []FirewallRule
		Next  string
	}
)

// Firewall is the service for tenants' firewall rules.
type Firewall struct{ t *Tenants }

// Firewall returns the firewall service.
func (t *Tenants) Firewall() Firewall { return Firewall{t} }

// TenantOf returns the tenant a rule belongs to, for operators who name a rule by id.
func (f Firewall) TenantOf(ctx context.Context, id string) (string, error) {
	v, err := f.t.sys.store.Get(ctx, persistence.Key("fw-rule", id))
	if errors.Is(err, persistence.ErrNotFound) {
		return "", apierr.NotFound("firewall rule", id)
	}
	return string(v), err
}

// ListAll returns every tenant's rules, by tenant and then position (operators).
func (f Firewall) ListAll(ctx context.Context, cursor string, limit int) ([]FirewallRule, string, error) {
	return kit.ScanPage(ctx, f.t.sys.store, persistence.Prefix("fw"), cursor, limit, func(r *FirewallRule) (FirewallRule, bool) { return *r, true })
}

// List returns a tenant's rules in position order, optionally only a machine's set.
func (f Firewall) List(ctx context.Context, tenant string, machineID *string) ([]FirewallRule, error) {
	r, err := kit.Ask[Rules](ctx, f.t.kind, tenant, &listRules{MachineID: machineID})
	return r.Items, err
}

// Get returns one rule.
func (f Firewall) Get(ctx context.Context, tenant, id string) (FirewallRule, error) {
	return kit.Ask[FirewallRule](ctx, f.t.kind, tenant, &getRule{ID: id})
}

// Create adds a rule at its position (the end when none is given) and pushes the
// changed rule sets to the hypervisor. Made with an Idempotency-Key (ctx carries its
// stamp), its write carries the key's claim, and the retry of a create that applied
// without an answer gets the rule it created.
func (f Firewall) Create(ctx context.Context, tenant string, in RuleInput) (FirewallRule, error) {
	st := kit.StampOf(ctx)
	if r, ok, err := kit.Recorded[FirewallRule](st); ok {
		return r, err
	}
	return kit.Ask[FirewallRule](ctx, f.t.kind, tenant, &createRule{In: in, Stamp: st})
}

// Update changes a rule; a new position moves it.
func (f Firewall) Update(ctx context.Context, tenant, id string, in RuleInput) (FirewallRule, error) {
	return kit.Ask[FirewallRule](ctx, f.t.kind, tenant, &updateRule{ID: id, In: in})
}

// Delete removes a rule; the ones after it move up.
func (f Firewall) Delete(ctx context.Context, tenant, id string) error {
	_, err := kit.Ask[kit.Done](ctx, f.t.kind, tenant, &deleteRule{ID: id})
	return err
}

func (e *tenantEntity) loadRules() error {
	// A write of an earlier incarnation (before passivation or a crash) may still be
	// on its way to the disk: the store is read once it is there.
	if p := e.ruleHandle().p.Load(); p != nil {
		_ = p.Wait(context.Background())
	}
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	var rules []*FirewallRule
	err := e.sys.store.Scan(ctx, persistence.Prefix("fw", e.id), nil, 0, func(_, v []byte) error {
		var r FirewallRule
		if _, err := persistence.Decode(v, &r); err != nil {
			return err
		}
		rules = append(rules, &r)
		return nil
	})
	sortRules(rules)
	e.setRules(rules)
	return err
}

func sortRules(rs []*FirewallRule) {
	slices.SortFunc(rs, func(a, b *FirewallRule) int { return cmp.Compare(a.Position, b.Position) })
}

// setRules replaces the rules in memory with rs, in position order.
func (e *tenantEntity) setRules(rs []*FirewallRule) {
	e.rules = rs
	renumber(rs, 1) // stored positions are 1..n already; this keeps ruleIndex right if not
	e.ruleIDs = make(map[string]*FirewallRule, len(rs))
	for _, r := range rs {
		e.ruleIDs[r.ID] = r
	}
}

// ruleIndex returns the index of the rule with this id in e.rules, or -1.
func (e *tenantEntity) ruleIndex(id string) int {
	if r, ok := e.ruleIDs[id]; ok {
		return r.Position - 1
	}
	return -1
}

func (e *tenantEntity) handleFirewall(ctx *kit.Ctx, msg any) {
	switch m := msg.(type) {
	case *listRules:
		e.respondDurable(ctx, e.rulePage(m))
	case *getRule:
		i := e.ruleIndex(m.ID)
		if i < 0 {
			e.respondDurable(ctx, apierr.NotFound("firewall rule", m.ID))
			return
		}
		e.respondDurable(ctx, *e.rules[i])
	case *createRule, *updateRule, *deleteRule:
		if e.fw.stale && !e.reloadRules() {
			ctx.Fail(errRulesReloading)
			return
		}
		switch m := m.(type) {
		case *createRule:
			e.createRule(ctx, m.In, m.Stamp)
		case *updateRule:
			e.updateRule(ctx, m.ID, m.In)
		case *deleteRule:
			e.deleteRule(ctx, m.ID)
		}
	case *rulesSettled:
		e.fw.stale = true
		e.reloadRules()
	case *pushDone:
		e.pushDone(m)
	case *pushNow:
		e.push.scheduled = false
		if !e.push.running {
			e.startPush()
		}
	case *retryPush:
		for _, id := range m.Machines {
			e.schedulePush(kit.Ptr(id))
		}
	default:
		ctx.Fail(apierr.New(apierr.ErrInternal, "unexpected message"))
	}
}

func (e *tenantEntity) createRule(ctx *kit.Ctx, in RuleInput, st *kit.Stamp) {
	now := time.Now().UTC()
	r := FirewallRule{ID: persistence.NewID(), TenantID: e.id, Enabled: true, CreatedAt: now, UpdatedAt: now}
	for _, req := range []struct {
		v    *string
		name string
	}{{in.Direction, "direction"}, {in.Action, "action"}, {in.Protocol, "protocol"}} {
		if req.v == nil {
			ctx.Fail(apierr.Invalid(apierr.Field(req.name, "is required")))
			return
		}
	}
	if err := e.applyRule(&r, in); err != nil {
		ctx.Fail(err)
		return
	}
	pos := len(e.rules) + 1
	if in.Position != nil {
		pos = *in.Position
	}
	if pos < 1 || pos > len(e.rules)+1 {
		ctx.Fail(apierr.Invalid(apierr.Field("position", "must be 1..%d", len(e.rules)+1)))
		return
	}
	r.Position = pos
	if !e.writeRules(ctx, append([]FirewallRule{r}, e.shifted(pos-1, len(e.rules), +1)...), true, nil, st, r, r.MachineID) {
		return
	}
	e.rules = append(e.rules, nil)
	copy(e.rules[pos:], e.rules[pos-1:])
	e.rules[pos-1] = &r
	e.ruleIDs[r.ID] = &r
	renumber(e.rules[pos:], pos+1)
}

func (e *tenantEntity) updateRule(ctx *kit.Ctx, id string, in RuleInput) {
	i := e.ruleIndex(id)
	if i < 0 {
		// Its delete may not be durable yet.
		e.respondDurable(ctx, apierr.NotFound("firewall rule", id))
		return
	}
	r := *e.rules[i]
	before := r.MachineID
	if err := e.applyRule(&r, in); err != nil {
		ctx.Fail(err)
		return
	}
	r.UpdatedAt = time.Now().UTC()
	to := i
	if in.Position != nil {
		if *in.Position < 1 || *in.Position > len(e.rules) {
			ctx.Fail(apierr.Invalid(apierr.Field("position", "must be 1..%d", len(e.rules))))
			return
		}
		to = *in.Position - 1
	}
	r.Position = to + 1
	// Moving up shifts the rules in between down by one, and moving down the reverse.
	changed := []FirewallRule{r}
	if to < i {
		changed = append(changed, e.shifted(to, i, +1)...)
	} else if to > i {
		changed = append(changed, e.shifted(i+1, to+1, -1)...)
	}
	if !e.writeRules(ctx, changed, false, nil, nil, r, before, r.MachineID) {
		return
	}
	moved := e.rules[i]
	*moved = r
	if to < i {
		copy(e.rules[to+1:i+1], e.rules[to:i])
	} else if to > i {
		copy(e.rules[i:to], e.rules[i+1:to+1])
	}
	e.rules[to] = moved
	lo, hi := min(i, to), max(i, to)
	renumber(e.rules[lo:hi+1], lo+1)
}

func (e *tenantEntity) deleteRule(ctx *kit.Ctx, id string) {
	i := e.ruleIndex(id)
	if i < 0 {
		// Its delete may not be durable yet.
		e.respondDurable(ctx, apierr.NotFound("firewall rule", id))
		return
	}
	gone := e.rules[i]
	if !e.writeRules(ctx, e.shifted(i+1, len(e.rules), -1), false, gone, nil, kit.Done{}, gone.MachineID) {
		return
	}
	e.rules = append(e.rules[:i], e.rules[i+1:]...)
	delete(e.ruleIDs, id)
	renumber(e.rules[i:], i+1)
}

// shifted returns copies of the rules at indexes [from, to) with their positions
// moved by delta: what a write must store besides the rule it is about. Only those
// rules are copied and written, so a write costs what it moves, not the whole list.
func (e *tenantEntity) shifted(from, to, delta int) []FirewallRule {
	out := make([]FirewallRule, 0, max(to-from, 0))
	for _, r := range e.rules[from:to] {
		c := *r
		c.Position += delta
		out = append(out, c)
	}
	return out
}

// renumber sets contiguous positions starting at first.
func renumber(rs []*FirewallRule, first int) {
	for i, r := range rs {
		r.Position = first + i
	}
}

// Rule writes are pipelined. A tenant's rule writes are serialised by its entity, and
// waiting for each to be durable before taking the next would let a tenant make one
// write per group commit, however many of its users write at once. So a write is
// handed to the store (Enqueue keeps the order) and applied in memory, the entity goes
// on with the next message, and the store's writer answers the caller once the write
// is durable. Nothing not yet durable is shown: reads of the rules answer once the
// latest write before them is durable, pushes to the hypervisor wait for it too, and
// an entity starting (after passivation or a crash) waits for its tenant's last write
// before it loads the rules.
//
// Each write is computed from a state that includes the writes before it, so each is
// enqueued After the previous one: when one fails, the store fails every later one
// unwritten, and none lands on a state that was never stored. The entity then refuses
// rule writes until none is in flight, reloads the rules from the store and pushes
// every machine's rule set again.

// fwWrites follows a tenant entity's rule writes that are not yet durable.
type fwWrites struct {
	inflight atomic.Int64 // decremented by the store's writer
	last     *persistence.Pending
	stale    bool // a write failed: the rules in memory are not the stored ones
	// handle is the tenant's entry in Tenants.lastRuleWrite (ruleHandle).
	handle *ruleWriteHandle
}

// ruleWriteHandle is a tenant's latest rule write, kept in Tenants.lastRuleWrite for
// the next incarnation of the entity to wait for. An incarnation takes the entry its
// predecessor left (or makes it) once, and each write only stores its Pending there:
// re-inserting the entry at every write, and removing it when none was in flight, was
// two allocations a write. A write that is over is waited for at once; the store drops
// a finished write's batch and predecessor, so an entry holds a few hundred bytes. The
// entry goes with the tenant (its delete).
type ruleWriteHandle struct {
	p atomic.Pointer[persistence.Pending]
}

// ruleHandle is the tenant's entry in Tenants.lastRuleWrite, made if there is none.
func (e *tenantEntity) ruleHandle() *ruleWriteHandle {
	if e.fw.handle == nil {
		h, _ := e.sys.Tenants.lastRuleWrite.LoadOrStore(e.id, &ruleWriteHandle{})
		e.fw.handle = h.(*ruleWriteHandle)
	}
	return e.fw.handle
}

// ruleWrite is what writeRules allocates for one write, in one allocation: the batch
// and room for its ops (a create or a delete of one rule has up to eight).
type ruleWrite struct {
	b   persistence.Batch
	ops [8]persistence.Op
}

var errRulesReloading = apierr.New(apierr.ErrUnavailable, "a firewall rule write failed; the rules are being reloaded, retry")

// writeRules hands the store a batch that writes the given rules and deletes gone;
// the current request is answered with reply once it is durable. When created is set,
// changed[0] is a new rule, which the rule-to-tenant index learns (the others are
// there already). st, when set, is the claim of the request's Idempotency-Key: the
// write requires it and records reply in it. The caller applies the change in memory
// when it returns true.
func (e *tenantEntity) writeRules(ctx *kit.Ctx, changed []FirewallRule, created bool, gone *FirewallRule, st *kit.Stamp, reply any, push ...*string) bool {
	// The batch and its ops in one allocation (ruleWrite); the ops sized
	// for what they hold: the rules, a rule's index key and the two deletes of a rule
	// that is gone, the audit entry's two keys and an Idempotency-Key's claim.
	w := &ruleWrite{}
	b := &w.b
	b.After = e.fw.last
	if n := len(changed) + 6; n <= len(w.ops) {
		b.Ops = w.ops[:0]
	} else {
		b.Ops = make([]persistence.Op, 0, n)
	}
	if err := st.Carry(b, reply); err != nil {
		ctx.Fail(err)
		return false
	}
	for i := range changed {
		r := &changed[i]
		val, err := persistence.Encode(ruleVersion, r)
		if err != nil {
			ctx.Fail(err)
			return false
		}
		b.Put(ruleKey(e.id, r.ID), val)
	}
	if created {
		b.Put(persistence.Key("fw-rule", changed[0].ID), []byte(e.id))
	}
	if gone != nil {
		// Both keys in one allocation (persistence.AppendKey).
		buf := make([]byte, 0, persistence.KeyLen("fw", e.id, gone.ID)+persistence.KeyLen("fw-rule", gone.ID))
		rk := persistence.AppendKey(buf, "fw", e.id, gone.ID)
		rk = rk[:len(rk):len(rk)]
		b.Del(rk).Del(persistence.AppendKey(buf[len(rk):len(rk)], "fw-rule", gone.ID))
	}
	target := ""
	if gone != nil {
		target = gone.ID
	} else if len(changed) > 0 {
		target = changed[0].ID
	}
	if err := e.sys.rt.Audit(b, ctx.Audit().On("", target, e.id)); err != nil {
		ctx.Fail(err)
		return false
	}
	sys, tenant, answer, fw, h := e.sys, e.id, ctx.Later(), &e.fw, e.ruleHandle()
	fw.inflight.Add(1)
	p := sys.store.Enqueue(b, func(err error) {
		// On the store's writer: answer, and tell the entity of a failure. Each write
		// after a failed one fails too (After), and the store answers in queue order,
		// so the last failure reaches the entity when nothing is in flight, and it can
		// reload. Success needs no message: the sweep reads inflight itself
		// (HandedOff).
		fw.inflight.Add(-1)
		// reply is read, not assigned, here: the closure copies it rather than moving
		// it to the heap.
		if err != nil {
			sys.Tenants.kind.Send(tenant, &rulesSettled{})
			answer.Respond(apierr.From(err))
			return
		}
		answer.Respond(reply)
	})
	h.p.Store(p)
	e.fw.last = p
	if p.Done() && p.Wait(context.Background()) != nil {
		return false // refused at once (the store is failed or closed): answered already
	}
	// The push waits for the write to be durable (startPush).
	for _, id := range push {
		e.schedulePush(id)
	}
	return true
}

// reloadRules reloads the rules from the store, if no write is in flight, and pushes
// every machine's rule set again. It reports whether the rules are the stored ones.
func (e *tenantEntity) reloadRules() bool {
	if e.fw.inflight.Load() > 0 {
		return false
	}
	if err := e.loadRules(); err != nil {
		e.sys.log.Error("firewall: cannot reload rules", zap.String("tenant_id", e.id), zap.Error(err))
		return false
	}
	e.fw.last, e.fw.stale = nil, false
	e.schedulePush(nil)
	return true
}

// respondDurable answers a read of the rules once the writes it may show are durable.
func (e *tenantEntity) respondDurable(ctx *kit.Ctx, v any) {
	last := e.fw.last
	if last == nil || last.Done() && last.Wait(context.Background()) == nil {
		ctx.Respond(v)
		return
	}
	reply, sys := ctx.Later(), e.sys
	if !reply.Answers() {
		return
	}
	go func() {
		defer kit.Recover(sys.log, "firewall rule reply", reply.Fail)
		if err := last.Wait(context.Background()); err != nil {
			reply.Fail(err)
			return
		}
		reply.Respond(v)
	}()
}

// applyRule validates the input against the rule it changes and applies it.
func (e *tenantEntity) applyRule(r *FirewallRule, in RuleInput) error {
	for _, c := range in.Clear {
		switch c {
		case "machine_id":
			r.MachineID = nil
		case "port":
			r.Port = nil
		case "source":
			r.Source = nil
		case "destination":
			r.Destination = nil
		default:
			return apierr.Invalid(apierr.Field(c, "cannot be null"))
		}
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&r.Direction, in.Direction)
	set(&r.Action, in.Action)
	set(&r.Protocol, in.Protocol)
	set(&r.Comment, in.Comment)
	if in.Enabled != nil {
		r.Enabled = *in.Enabled
	}
	if in.MachineID != nil {
		r.MachineID = kit.Ptr(*in.MachineID)
	}
	if in.Port != nil {
		r.Port = kit.Ptr(*in.Port)
	}
	if in.Source != nil {
		r.Source = kit.Ptr(*in.Source)
	}
	if in.Destination != nil {
		r.Destination = kit.Ptr(*in.Destination)
	}
	var f []apierr.FieldError
	// Addresses are stored in one spelling (a CIDR); one that does not parse is left
	// as given for the shared checks below to refuse.
	for _, a := range []**string{&r.Source, &r.Destination} {
		if *a == nil {
			continue
		}
		if norm, ok := hypervisor.CanonicalCIDR(**a); ok {
			*a = &norm
		}
	}
	if r.Port != nil && *r.Port == "" {
		f = append(f, apierr.Field("port", "must be a port, a range such as 80:85, or a list such as 80,443 (null for none)"))
	}
	// The checks pve-firewall makes (hypervisor.FirewallRuleErrors), for every driver:
	// a rule valid here is one Proxmox takes.
	f = append(f, hypervisor.FirewallRuleErrors(hypervisorRule(r))...)
	if r.MachineID != nil {
		// The tenant's machine list (cached, and exact: machines/machinelists.go); another
		// tenant's machine is answered as a missing one.
		ms, _, err := e.sys.Machines.ListTenant(context.Background(), e.id, "", 0)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(ms, func(m machines.Machine) bool { return m.ID == *r.MachineID }) {
			f = append(f, apierr.Field("machine_id", "no machine %s", *r.MachineID))
		}
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return nil
}

// pushState coalesces pushes: while one runs, changes only mark machines dirty, and the
// next push sends their rule sets as they are then. At most one push per tenant runs.
type pushState struct {
	running   bool
	scheduled bool
	all       bool
	dirty     map[string]bool
	// retries counts consecutive failed pushes; a failed machine is pushed again after
	// a growing delay, up to maxPushRetries times, and then with the next change.
	retries int
}

const maxPushRetries = 5

// retryPush asks a tenant to push the rule sets that failed before.
type retryPush struct{ Machines []string }

// schedulePush marks a machine's rule set (or, for nil, every machine's) as changed.
func (e *tenantEntity) schedulePush(machineID *string) {
	if machineID == nil {
		e.push.all = true
	} else {
		if e.push.dirty == nil {
			e.push.dirty = map[string]bool{}
		}
		e.push.dirty[*machineID] = true
	}
	if !e.push.running {
		e.armPush()
	}
}

// armPush starts the push delay unless it runs already. A short delay gathers a burst
// of changes into one push per machine; the rule set is always sent whole, so nothing
// is lost by waiting.
func (e *tenantEntity) armPush() {
	if e.push.scheduled {
		return
	}
	e.push.scheduled = true
	sys, tenant := e.sys, e.id
	sys.rt.Clock.AfterFunc(pushDelay, func() {
		sys.Tenants.kind.Send(tenant, &pushNow{})
	})
}

// pushDelay is how long changes gather before their push.
const pushDelay = 200 * time.Millisecond

// pushNow starts a push that schedulePush delayed.
type pushNow struct{}

type pushTarget struct {
	machineID string
	ref       hypervisor.Ref
	rules     []hypervisor.FirewallRule
}

func (e *tenantEntity) startPush() {
	targets, err := e.pushTargets()
	if err != nil {
		e.sys.log.Warn("firewall push: cannot list machines", zap.String("tenant_id", e.id), zap.Error(err))
		return
	}
	e.push.all, e.push.dirty = false, nil
	if len(targets) == 0 {
		return
	}
	e.push.running = true
	sys, tenant, last := e.sys, e.id, e.fw.last
	go func() {
		// A panic fails the whole push; pushDone retries it like a failed one.
		defer kit.Recover(sys.log, "firewall push", func(error) {
			sys.Tenants.kind.Send(tenant, &pushDone{Failed: machineIDs(targets)})
		})
		// The rule sets may hold writes not yet durable: they go out once they are.
		if last != nil && last.Wait(context.Background()) != nil {
			sys.Tenants.kind.Send(tenant, &pushDone{Failed: machineIDs(targets)})
			return
		}
		var failed []string
		for _, t := range targets {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			err := sys.driver.SetFirewall(ctx, t.ref, t.rules)
			cancel()
			if err != nil {
				sys.log.Warn("firewall push failed", zap.String("tenant_id", tenant), zap.String("machine_id", t.machineID), zap.Error(err))
				if !permanentPushError(err) {
					failed = append(failed, t.machineID)
				}
			}
			sys.Machines.FirewallPushed(t.machineID, err)
		}
		sys.Tenants.kind.Send(tenant, &pushDone{Failed: failed})
	}()
}

// permanentPushError reports whether a push failed for a reason a retry of the same
// rule set cannot fix: the hypervisor refused the rules (400) or the machine is gone.
// Such a push waits for the next change of the rules; others are retried (pushDone).
func permanentPushError(err error) bool {
	return errors.Is(err, apierr.ErrInvalidRequest) || errors.Is(err, apierr.ErrNotFound)
}

// pushDone starts the next push if changes came in meanwhile, and schedules a retry of
// the machines whose push failed (the hypervisor was busy or down).
func (e *tenantEntity) pushDone(m *pushDone) {
	e.push.running = false
	if len(m.Failed) > 0 && e.push.retries < maxPushRetries {
		e.push.retries++
		delay := time.Duration(e.push.retries*e.push.retries) * time.Second
		sys, tenant, failed := e.sys, e.id, m.Failed
		sys.rt.Clock.AfterFunc(delay, func() {
			sys.Tenants.kind.Send(tenant, &retryPush{Machines: failed})
		})
	} else if len(m.Failed) == 0 {
		e.push.retries = 0
	}
	// Changes made during the push wait for the delay too: under a steady stream of
	// edits, pushes back to back would recompute and resend whole rule sets nonstop.
	if e.push.all || len(e.push.dirty) > 0 {
		e.armPush()
	}
}

// pushTargets computes the rule set of every machine marked dirty.
func (e *tenantEntity) pushTargets() ([]pushTarget, error) {
	ms, _, err := e.sys.Machines.ListTenant(context.Background(), e.id, "", 0)
	if err != nil {
		return nil, err
	}
	var out []pushTarget
	for _, m := range ms {
		if m.VMID == 0 || (!e.push.all && !e.push.dirty[m.ID]) {
			continue
		}
		t := pushTarget{machineID: m.ID, ref: m.Ref(), rules: []hypervisor.FirewallRule{}}
		for _, r := range e.rules {
			if r.MachineID != nil && *r.MachineID != m.ID {
				continue
			}
			t.rules = append(t.rules, hypervisorRule(r))
		}
		out = append(out, t)
	}
	return out, nil
}

// hypervisorRule is a tenant's rule as the driver takes it.
func hypervisorRule(r *FirewallRule) hypervisor.FirewallRule {
	hr := hypervisor.FirewallRule{Direction: r.Direction, Action: r.Action, Protocol: r.Protocol, Enabled: r.Enabled, Comment: r.Comment}
	if r.Port != nil {
		hr.Port = *r.Port
	}
	if r.Source != nil {
		hr.Source = *r.Source
	}
	if r.Destination != nil {
		hr.Destination = *r.Destination
	}
	return hr
}

func machineIDs(ts []pushTarget) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.machineID
	}
	return out
}
