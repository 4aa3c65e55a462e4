package schedules

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // time zones resolve on appliances that ship no zoneinfo database

	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// Schedule kinds: what a schedule does at each due time.
const (
	SchedulePower  = "power"
	ScheduleBackup = "backup"
)

// Run statuses of a schedule's last run (LastStatus). A run that did not succeed is
// "failed: <why>"; a slot that was not run at all is "skipped: <why>".
const (
	RunRunning   = "running"
	RunSucceeded = "succeeded"
)

// MaxCronLen bounds a schedule's cron expression and MaxTimezoneLen its time zone's
// name (IANA's longest are about 30).
const (
	MaxCronLen     = 128
	MaxTimezoneLen = 64
)

// ScheduleActions are the power actions a power schedule may perform.
var ScheduleActions = []hypervisor.PowerAction{hypervisor.ActionStart, hypervisor.ActionStop, hypervisor.ActionShutdown, hypervisor.ActionReboot}

// ScheduleBase is what power and backup schedules share. Times are UTC; the cron
// expression is read in Timezone.
type ScheduleBase struct {
	ID        string `json:"id"`
	TenantID  string `json:"tenant_id"`
	MachineID string `json:"machine_id"`
	Cron      string `json:"cron"`
	Timezone  string `json:"timezone"`
	Enabled   bool   `json:"enabled"`
	// NextRunAt is the next due time; null while disabled.
	NextRunAt *time.Time `json:"next_run_at"`
	// LastRunAt is the due time (not the wall-clock time) of the last run started.
	LastRunAt *time.Time `json:"last_run_at"`
	// LastStatus is running, succeeded, "failed: ..." or "skipped: ...".
	LastStatus *string `json:"last_status"`
	// LastTaskID is the machine task of the last run (GET /api/tasks/:id).
	LastTaskID *string `json:"last_task_id"`
	// Runs counts the runs started: at most one per due time.
	Runs      int       `json:"runs"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// PowerSchedule starts, stops, shuts down or reboots a machine on a cron schedule.
type PowerSchedule struct {
	ScheduleBase
	Action string `json:"action"`
}

// BackupSchedule backs a machine up on a cron schedule and keeps the newest Retention
// of the backups it took, deleting older ones.
type BackupSchedule struct {
	ScheduleBase
	Retention int    `json:"retention"`
	Mode      string `json:"mode"`
}

// ScheduleInput is a schedule to create or, with nil fields left as they are, a
// change of one. Action applies to power schedules, Retention and Mode to backup ones.
type ScheduleInput struct {
	MachineID *string `json:"machine_id,omitempty"`
	Action    *string `json:"action,omitempty"`
	Cron      *string `json:"cron,omitempty"`
	Timezone  *string `json:"timezone,omitempty"`
	Enabled   *bool   `json:"enabled,omitempty"`
	Retention *int    `json:"retention,omitempty"`
	Mode      *string `json:"mode,omitempty"`
	// TenantID may only name the schedule's own tenant: schedules do not move.
	TenantID *string `json:"tenant_id,omitempty"`
}

// scheduleRecord is a schedule as stored under sched/<id>, with the tenant index
// sched-tenant/<tenant>/<id> (value: the kind).
type scheduleRecord struct {
	ScheduleBase
	Kind      string `json:"kind"`
	Action    string `json:"action,omitempty"`
	Retention int    `json:"retention,omitempty"`
	Mode      string `json:"mode,omitempty"`
	// Since is the instant due times are counted from: the last due time claimed, or
	// when the schedule was created, enabled or re-timed. Only a due time after Since
	// may run, and Since moves to a due time durably before that run starts: this is
	// what keeps a slot from running twice, across restarts too.
	Since time.Time `json:"since"`
}

const scheduleVersion = 1

func scheduleKey(id string) []byte { return persistence.Key("sched", id) }
func scheduleTenantKey(tenant, id string) []byte {
	return persistence.Key("sched-tenant", tenant, id)
}

func (r *scheduleRecord) power() PowerSchedule {
	return PowerSchedule{ScheduleBase: r.ScheduleBase, Action: r.Action}
}

func (r *scheduleRecord) backup() BackupSchedule {
	return BackupSchedule{ScheduleBase: r.ScheduleBase, Retention: r.Retention, Mode: r.Mode}
}

func (r *scheduleRecord) running() bool {
	return r.LastStatus != nil && *r.LastStatus == RunRunning && r.LastTaskID != nil
}

func kindName(kind string) string { return kind + " schedule" }

// cronParser reads standard 5-field expressions, an optional leading seconds field
// for fine-grained schedules, and descriptors (@daily, @every 90m).
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// compileSchedule parses a cron expression and loads its time zone; the errors name
// the fields at fault.
func compileSchedule(spec, tz string) (cron.Schedule, *time.Location, []apierr.FieldError) {
	var f []apierr.FieldError
	loc, err := loadZone(tz)
	if err != nil {
		f = append(f, apierr.Field("timezone", "must be an IANA time zone such as UTC or Europe/Berlin"))
	}
	sched, cerr := parseCron(spec)
	if cerr != "" {
		f = append(f, apierr.Field("cron", "%s", cerr))
	} else if loc != nil && sched.Next(time.Now().In(loc)).IsZero() {
		f = append(f, apierr.Field("cron", "never fires"))
	}
	return sched, loc, f
}

func loadZone(tz string) (*time.Location, error) {
	if tz == "" || strings.EqualFold(tz, "local") || len(tz) > MaxTimezoneLen {
		// "" would load UTC silently and Local depends on the server: both are refused.
		return nil, errors.New("no time zone")
	}
	return time.LoadLocation(tz)
}

// parseCron returns the schedule or why the expression is refused.
func parseCron(spec string) (sched cron.Schedule, why string) {
	spec = strings.TrimSpace(spec)
	const help = "must be a cron expression: minute hour day-of-month month day-of-week, with an optional leading seconds field, or a descriptor such as @daily"
	switch {
	case spec == "" || len(spec) > MaxCronLen:
		return nil, help
	case strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ="):
		return nil, "must not carry a time zone; set timezone instead"
	}
	defer func() {
		// The parser is third-party code fed with user input: a panic is a refusal.
		if recover() != nil {
			sched, why = nil, help
		}
	}()
	s, err := cronParser.Parse(spec)
	if err != nil {
		return nil, help + " (" + err.Error() + ")"
	}
	return s, ""
}

// nextRun is the first due time strictly after t, in UTC; nil when there is none.
func nextRun(sched cron.Schedule, loc *time.Location, t time.Time) *time.Time {
	n := sched.Next(t.In(loc))
	if n.IsZero() {
		return nil
	}
	n = n.UTC()
	return &n
}

// missedRun looks at the due times after since and not after now: run is the latest
// of them that is at most grace old (zero when none is), first the earliest of them
// (zero when none was missed). Only one missed due time is ever run, the latest.
func missedRun(sched cron.Schedule, loc *time.Location, since, now time.Time, grace time.Duration) (run, first time.Time) {
	first = sched.Next(since.In(loc))
	if first.IsZero() || first.After(now) {
		return time.Time{}, time.Time{}
	}
	if grace < 0 {
		grace = 0
	}
	// Widen a window back from now until it holds a due time or reaches the grace,
	// so that a per-second schedule down for a day costs a few steps, not 86,400.
	for d := time.Second; ; d *= 2 {
		d = min(d, grace)
		from := now.Add(-d - time.Nanosecond)
		if since.After(from) {
			from = since
		}
		if t := sched.Next(from.In(loc)); !t.IsZero() && !t.After(now) {
			for n := sched.Next(t); !n.IsZero() && !n.After(now); n = sched.Next(n) {
				t = n
			}
			return t.UTC(), first.UTC()
		}
		if d >= grace {
			return time.Time{}, first.UTC()
		}
	}
}

// validateSchedule checks a whole record (after a change is applied to it).
func validateSchedule(r *scheduleRecord) []apierr.FieldError {
	_, _, f := compileSchedule(r.Cron, r.Timezone)
	switch r.Kind {
	case SchedulePower:
		ok := false
		for _, a := range ScheduleActions {
			ok = ok || string(a) == r.Action
		}
		if !ok {
			f = append(f, apierr.Field("action", "must be one of start, stop, shutdown, reboot"))
		}
	case ScheduleBackup:
		if r.Retention < backups.MinRetention || r.Retention > backups.MaxRetention {
			f = append(f, apierr.Field("retention", "must be %d..%d", backups.MinRetention, backups.MaxRetention))
		}
		ok := false
		for _, m := range backups.Modes {
			ok = ok || string(m) == r.Mode
		}
		if !ok {
			f = append(f, apierr.Field("mode", "must be snapshot, suspend or stop"))
		}
	}
	return f
}

// apply copies a change into a record; it reports whether the due times changed.
func (r *scheduleRecord) apply(in ScheduleInput) (retimed bool, f []apierr.FieldError) {
	if in.Cron != nil {
		retimed = retimed || *in.Cron != r.Cron
		r.Cron = strings.TrimSpace(*in.Cron)
	}
	if in.Timezone != nil {
		retimed = retimed || *in.Timezone != r.Timezone
		r.Timezone = *in.Timezone
	}
	if in.Enabled != nil {
		retimed = retimed || *in.Enabled != r.Enabled
		r.Enabled = *in.Enabled
	}
	other := func(field, kind string) {
		f = append(f, apierr.Field(field, "is not a field of %s schedules", kind))
	}
	if in.Action != nil {
		if r.Kind != SchedulePower {
			other("action", r.Kind)
		}
		r.Action = *in.Action
	}
	if in.Retention != nil {
		if r.Kind != ScheduleBackup {
			other("retention", r.Kind)
		}
		r.Retention = *in.Retention
	}
	if in.Mode != nil {
		if r.Kind != ScheduleBackup {
			other("mode", r.Kind)
		}
		r.Mode = *in.Mode
	}
	return retimed, f
}

// ScheduleOptions configure the schedulers.
type ScheduleOptions struct {
	// Grace is how old a due time missed while vmplane was down may be and still run,
	// once, at start; an older one is skipped and recorded. 0 skips every missed run.
	Grace time.Duration
	// Now overrides what time the schedules read (default: the Runtime's Clock, whose
	// timers they wait on in any case). Timers wait on the Runtime's clock for the
	// distance from Now to a due time, so an offset Now shifts what is due: tests of
	// the whole server use one to be "later" across a restart. Tests of the schedules
	// alone run the Runtime on a fake clock (kit.WithClock) instead.
	Now func() time.Time
	// MinBackupInterval and MinPowerInterval are the shortest time allowed between two
	// runs of a backup and of a power schedule (0: no bound): a cron expression that
	// fires more often is refused (400). The configuration's defaults are
	// DefaultMinBackupInterval and DefaultMinPowerInterval.
	MinBackupInterval time.Duration
	MinPowerInterval  time.Duration
	// PerTenant is how many schedules, of both kinds, a tenant may have (0: no bound).
	PerTenant int
}

// Schedules owns power and backup schedules. Each schedule is an entity of the
// "schedules" kind that owns its record and decides, in its mailbox, whether a due
// time runs; the run itself (a machine task, then waiting for its outcome) happens on
// a goroutine that reports back as a message. Timers live here, outside every
// mailbox, at most one per schedule, so a passivated schedule still fires.
type Schedules struct {
	sys   *system
	kind  *kit.Kind
	now   func() time.Time
	grace time.Duration
	// opts holds the operator's bounds (bounds.go).
	opts ScheduleOptions

	// ctx ends when the system stops: runs stop waiting for their tasks, which the
	// next start follows from the record.
	ctx    context.Context
	cancel context.CancelFunc

	timers kit.EntityTimers

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// Messages of a schedule entity.
type (
	createSchedule struct {
		Rec scheduleRecord
		// Stamp, for a create made with an Idempotency-Key, is the key's claim,
		// which the create's write carries (kit.Stamp).
		Stamp *kit.Stamp
	}
	getSchedule struct {
		Kind  string
		Scope *string
	}
	updateSchedule struct {
		Kind  string
		Scope *string
		In    ScheduleInput
	}
	deleteSchedule struct {
		Kind  string
		Scope *string
	}
	// wakeSchedule is sent to every schedule at start: settle the run a stop
	// interrupted, run or skip a missed due time, arm the timer.
	wakeSchedule struct{}
	// fireSchedule is a timer's: the due time Slot has come.
	fireSchedule struct {
		Slot time.Time
		Gen  uint64 // the timer's generation, for kit.EntityTimers.take
	}
	// runDone reports the end of a run: the schedule's status for it, and the backup
	// records to add and remove.
	runDone struct {
		TaskID    string
		TenantID  string
		MachineID string
		Slot      time.Time
		Status    string
		// Disable stops the schedule: its machine is gone.
		Disable bool
		// Backup is the backup the run took (backup schedules).
		Backup *hypervisor.Backup
		// Removed lists hypervisor ids of this schedule's backups that no longer
		// exist: pruned by retention, or deleted on the hypervisor meanwhile.
		Removed []string
	}
)

func startSchedules(s *system, opts ScheduleOptions) *Schedules {
	ss := &Schedules{sys: s, now: opts.Now, grace: max(opts.Grace, 0), opts: opts}
	if ss.now == nil {
		ss.now = s.rt.Clock.Now
	}
	ss.timers.Clock = s.rt.Clock
	ss.ctx, ss.cancel = context.WithCancel(context.Background())
	ss.kind = s.rt.StartKind("schedules", 5*time.Minute, func(id string) kit.Entity {
		return &scheduleEntity{sys: s, ss: ss, id: id}
	}, nil)
	return ss
}

// WakeAll wakes every stored schedule, after the machines have been asked to settle
// the tasks an earlier process left open.
func (s *Schedules) WakeAll(ctx context.Context) error {
	var ids []string
	prefix := persistence.Prefix("sched")
	err := s.sys.store.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
		ids = append(ids, string(k[len(prefix):]))
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		s.kind.Send(id, &wakeSchedule{})
	}
	return nil
}

// Stop disarms every timer and waits for the runs in flight to stop waiting.
func (s *Schedules) Stop() {
	s.timers.Stop()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
}

// arm sets the schedule's one timer to due time slot, replacing any other.
func (s *Schedules) arm(id string, slot time.Time) {
	kind := s.kind.Ref()
	s.timers.Arm(id, max(slot.Sub(s.now()), 0), func(gen uint64) {
		s.sys.rt.Send(kind, &kit.Envelope{ID: id, Msg: &fireSchedule{Slot: slot, Gen: gen}})
	})
}

func (s *Schedules) disarm(id string) { s.timers.Disarm(id) }

// track counts a run goroutine in, unless the system is stopping.
func (s *Schedules) track() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Add(1)
	return true
}

func (s *Schedules) ask(ctx context.Context, id string, msg any) (scheduleRecord, error) {
	if id == "" || len(id) > 64 || strings.Contains(id, "/") {
		return scheduleRecord{}, apierr.NotFound("schedule", id)
	}
	return kit.Ask[scheduleRecord](ctx, s.kind, id, msg)
}

// create validates a new schedule, checks that its machine is the tenant's, and
// hands it to its entity. Made with an Idempotency-Key (ctx carries its stamp), its
// write carries the key's claim, and the retry of a create that applied without an
// answer gets the schedule it created.
func (s *Schedules) create(ctx context.Context, kind, tenant string, in ScheduleInput) (scheduleRecord, error) {
	st := kit.StampOf(ctx)
	if r, ok, err := kit.Recorded[scheduleRecord](st); ok {
		return r, err
	}
	now := s.now().UTC()
	rec := scheduleRecord{ScheduleBase: ScheduleBase{ID: persistence.NewID(), TenantID: tenant, Timezone: "UTC", Enabled: true,
		CreatedAt: now, UpdatedAt: now}, Kind: kind, Since: now}
	if kind == ScheduleBackup {
		rec.Mode = string(hypervisor.BackupSnapshot)
	}
	_, f := rec.apply(in)
	if in.TenantID != nil && *in.TenantID != tenant {
		f = append(f, apierr.Field("tenant_id", "must be the tenant the schedule is created for"))
	}
	switch {
	case in.Cron == nil:
		f = append(f, apierr.Field("cron", "is required"))
	case kind == SchedulePower && in.Action == nil:
		f = append(f, apierr.Field("action", "is required"))
	case kind == ScheduleBackup && in.Retention == nil:
		f = append(f, apierr.Field("retention", "is required"))
	}
	if len(f) == 0 {
		f = validateSchedule(&rec)
	}
	if len(f) == 0 {
		f = s.checkInterval(&rec)
	}
	if in.MachineID == nil || *in.MachineID == "" {
		f = append(f, apierr.Field("machine_id", "is required"))
	} else {
		m, err := s.sys.Machines.Get(ctx, *in.MachineID, &tenant)
		switch {
		case errors.Is(err, apierr.ErrNotFound):
			// Another tenant's machine is answered as a missing one.
			f = append(f, apierr.Field("machine_id", "no machine %s", *in.MachineID))
		case err != nil:
			return scheduleRecord{}, err
		default:
			rec.MachineID = m.ID
		}
	}
	if len(f) > 0 {
		return scheduleRecord{}, apierr.Invalid(f...)
	}
	if rec.Enabled {
		sched, loc, _ := compileSchedule(rec.Cron, rec.Timezone)
		rec.NextRunAt = nextRun(sched, loc, now)
	}
	return s.ask(ctx, rec.ID, &createSchedule{Rec: rec, Stamp: st})
}

// TenantHasSchedules reports whether a tenant has a schedule (a tenant that has one
// cannot be deleted).
func (s *Schedules) TenantHasSchedules(ctx context.Context, tenant string) (bool, error) {
	found := false
	err := s.sys.store.Scan(ctx, persistence.Prefix("sched-tenant", tenant), nil, 1, func(_, _ []byte) error { found = true; return nil })
	return found, err
}

// list pages through one kind of schedules: a tenant's (by its index), or with a nil
// tenant everyone's; machineID, when set, keeps only that machine's.
func (s *Schedules) list(ctx context.Context, kind string, tenant *string, machineID, cursor string, limit int) ([]scheduleRecord, string, error) {
	keep := func(r *scheduleRecord) bool {
		return r.Kind == kind && (machineID == "" || r.MachineID == machineID)
	}
	if tenant == nil {
		return kit.ScanPage(ctx, s.sys.store, persistence.Prefix("sched"), cursor, limit, func(r *scheduleRecord) (scheduleRecord, bool) {
			return *r, keep(r)
		})
	}
	return kit.ScanFiltered(ctx, s.sys.store, persistence.Prefix("sched-tenant", *tenant), cursor, limit, func(id string, v []byte) (scheduleRecord, bool, error) {
		if string(v) != kind {
			return scheduleRecord{}, false, nil
		}
		rec, err := loadSchedule(ctx, s.sys.store, id)
		if errors.Is(err, persistence.ErrNotFound) {
			return scheduleRecord{}, false, nil
		}
		if err != nil {
			return scheduleRecord{}, false, err
		}
		return *rec, keep(rec), nil
	})
}

func loadSchedule(ctx context.Context, store persistence.Store, id string) (*scheduleRecord, error) {
	return persistence.Load[scheduleRecord](ctx, store, scheduleKey(id))
}

// PowerSchedules is the service of power schedules.
type PowerSchedules struct{ s *Schedules }

// BackupSchedules is the service of backup schedules.
type BackupSchedules struct{ s *Schedules }

// Power returns the power schedules service.
func (s *Schedules) Power() PowerSchedules { return PowerSchedules{s} }

// Backup returns the backup schedules service.
func (s *Schedules) Backup() BackupSchedules { return BackupSchedules{s} }

// Create adds a power schedule to one of the tenant's machines.
func (p PowerSchedules) Create(ctx context.Context, tenant string, in ScheduleInput) (PowerSchedule, error) {
	r, err := p.s.create(ctx, SchedulePower, tenant, in)
	return r.power(), err
}

// Get returns one power schedule; with a tenant scope another tenant's is not found.
func (p PowerSchedules) Get(ctx context.Context, id string, scope *string) (PowerSchedule, error) {
	r, err := p.s.ask(ctx, id, &getSchedule{Kind: SchedulePower, Scope: scope})
	return r.power(), err
}

// Update changes a power schedule; a new cron, time zone or enabling recomputes
// next_run_at from now.
func (p PowerSchedules) Update(ctx context.Context, id string, scope *string, in ScheduleInput) (PowerSchedule, error) {
	r, err := p.s.ask(ctx, id, &updateSchedule{Kind: SchedulePower, Scope: scope, In: in})
	return r.power(), err
}

// Delete removes a power schedule; it does not fire again.
func (p PowerSchedules) Delete(ctx context.Context, id string, scope *string) error {
	_, err := p.s.ask(ctx, id, &deleteSchedule{Kind: SchedulePower, Scope: scope})
	return err
}

// List returns power schedules in creation order: a tenant's, or with a nil tenant
// everyone's; machineID, when set, keeps only that machine's.
func (p PowerSchedules) List(ctx context.Context, tenant *string, machineID, cursor string, limit int) ([]PowerSchedule, string, error) {
	recs, next, err := p.s.list(ctx, SchedulePower, tenant, machineID, cursor, limit)
	out := make([]PowerSchedule, len(recs))
	for i := range recs {
		out[i] = recs[i].power()
	}
	return out, next, err
}

// Create adds a backup schedule to one of the tenant's machines.
func (b BackupSchedules) Create(ctx context.Context, tenant string, in ScheduleInput) (BackupSchedule, error) {
	r, err := b.s.create(ctx, ScheduleBackup, tenant, in)
	return r.backup(), err
}

// Get returns one backup schedule; with a tenant scope another tenant's is not found.
func (b BackupSchedules) Get(ctx context.Context, id string, scope *string) (BackupSchedule, error) {
	r, err := b.s.ask(ctx, id, &getSchedule{Kind: ScheduleBackup, Scope: scope})
	return r.backup(), err
}

// Update changes a backup schedule. A lower retention takes effect at the next run.
func (b BackupSchedules) Update(ctx context.Context, id string, scope *string, in ScheduleInput) (BackupSchedule, error) {
	r, err := b.s.ask(ctx, id, &updateSchedule{Kind: ScheduleBackup, Scope: scope, In: in})
	return r.backup(), err
}

// Delete removes a backup schedule. The backups it took are kept (they are the
// tenant's data) until deleted through /api/resources/backups.
func (b BackupSchedules) Delete(ctx context.Context, id string, scope *string) error {
	_, err := b.s.ask(ctx, id, &deleteSchedule{Kind: ScheduleBackup, Scope: scope})
	return err
}

// List returns backup schedules in creation order, as PowerSchedules.List does.
func (b BackupSchedules) List(ctx context.Context, tenant *string, machineID, cursor string, limit int) ([]BackupSchedule, string, error) {
	recs, next, err := b.s.list(ctx, ScheduleBackup, tenant, machineID, cursor, limit)
	out := make([]BackupSchedule, len(recs))
	for i := range recs {
		out[i] = recs[i].backup()
	}
	return out, next, err
}

// scheduleEntity owns one schedule record and decides which due times run.
type scheduleEntity struct {
	sys *system
	ss  *Schedules
	id  string
	rec *scheduleRecord
}

func (e *scheduleEntity) Load() error {
	e.rec = nil
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	rec, err := loadSchedule(ctx, e.sys.store, e.id)
	if errors.Is(err, persistence.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	e.rec = rec
	return nil
}

func (e *scheduleEntity) Handle(ctx *kit.Ctx, msg any) {
	switch m := msg.(type) {
	case *createSchedule:
		e.create(ctx, m.Rec, m.Stamp)
		return
	case *runDone:
		if err := e.runDone(m); err != nil {
			ctx.Fail(err)
			return
		}
		ctx.Respond(scheduleRecord{})
		return
	case *fireSchedule:
		e.fire(m.Slot, m.Gen)
		return
	case *wakeSchedule:
		e.wake()
		return
	}
	var kind string
	var scope *string
	switch m := msg.(type) {
	case *getSchedule:
		kind, scope = m.Kind, m.Scope
	case *updateSchedule:
		kind, scope = m.Kind, m.Scope
	case *deleteSchedule:
		kind, scope = m.Kind, m.Scope
	default:
		ctx.Fail(apierr.New(apierr.ErrInternal, "unexpected message"))
		return
	}
	if e.rec == nil || e.rec.Kind != kind || !kit.InScope(scope, &e.rec.TenantID) {
		ctx.Fail(apierr.NotFound(kindName(kind), e.id))
		return
	}
	switch m := msg.(type) {
	case *getSchedule:
		ctx.Respond(*e.rec)
	case *updateSchedule:
		e.update(ctx, m.In)
	case *deleteSchedule:
		e.delete(ctx)
	}
}

func (e *scheduleEntity) log() *zap.Logger {
	return e.sys.log.With(zap.String("schedule_id", e.id))
}

// putSchedule adds the record and its tenant index to a batch.
func putSchedule(b *persistence.Batch, r *scheduleRecord) error {
	val, err := persistence.Encode(scheduleVersion, r)
	if err != nil {
		return err
	}
	b.Put(scheduleKey(r.ID), val).Put(scheduleTenantKey(r.TenantID, r.ID), []byte(r.Kind))
	return nil
}

// save writes next. st, when set, is the claim of the request's Idempotency-Key: the
// write carries it, with next as its reply. audit, when set, is the entry of the
// request that made the change (nil for the schedule's own runs): it goes in the same
// batch.
func (e *scheduleEntity) save(next *scheduleRecord, st *kit.Stamp, audit *kit.AuditEntry) error {
	return e.saveWith(next, st, audit, nil)
}

// saveWith is save whose batch also carries what extra puts into it (a create's
// claim of its tenant's count).
func (e *scheduleEntity) saveWith(next *scheduleRecord, st *kit.Stamp, audit *kit.AuditEntry, extra func(*persistence.Batch)) error {
	b := new(persistence.Batch)
	if err := putSchedule(b, next); err != nil {
		return err
	}
	if extra != nil {
		extra(b)
	}
	if err := st.Carry(b, *next); err != nil {
		return err
	}
	if err := e.sys.rt.Audit(b, audit.On("", next.ID, next.TenantID)); err != nil {
		return err
	}
	if err := e.sys.rt.Commit(b); err != nil {
		return err
	}
	e.rec = next
	return nil
}

// arm sets the timer to the record's next due time, or stops it.
func (e *scheduleEntity) arm() {
	if e.rec != nil && e.rec.Enabled && e.rec.NextRunAt != nil {
		e.ss.arm(e.id, *e.rec.NextRunAt)
		return
	}
	e.ss.disarm(e.id)
}

// next is the first due time after t, or nil (disabled, or never again).
func (e *scheduleEntity) next(r *scheduleRecord, t time.Time) *time.Time {
	if !r.Enabled {
		return nil
	}
	sched, loc, f := compileSchedule(r.Cron, r.Timezone)
	if len(f) > 0 {
		return nil
	}
	return nextRun(sched, loc, t)
}

func (e *scheduleEntity) create(ctx *kit.Ctx, rec scheduleRecord, st *kit.Stamp) {
	if e.rec != nil {
		ctx.Fail(apierr.New(apierr.ErrConflict, "schedule %s exists", e.id))
		return
	}
	wctx, cancel := e.sys.rt.Work()
	defer cancel()
	// The tenant's count is checked here, in the batch that makes the schedule
	// (claimCount), so that creates on several entities or members at once cannot
	// each pass it; the loser counts again.
	for try := 0; ; try++ {
		counted, read, err := e.ss.checkCount(wctx, rec.TenantID)
		if err != nil {
			ctx.Fail(err)
			return
		}
		var extra func(*persistence.Batch)
		if counted {
			extra = func(b *persistence.Batch) { claimCount(b, rec.TenantID, read) }
		}
		err = e.saveWith(&rec, st, ctx.Audit(), extra)
		if err != nil && counted && try < countTries && persistence.IsConditionFailed(err) && e.ss.countMoved(wctx, rec.TenantID, read) {
			continue
		}
		if err != nil {
			ctx.Fail(err)
			return
		}
		break
	}
	e.arm()
	ctx.Respond(rec)
}

// countTries bounds the counts of one create that other creates keep overtaking.
const countTries = 50

func (e *scheduleEntity) update(ctx *kit.Ctx, in ScheduleInput) {
	next := *e.rec
	retimed, f := next.apply(in)
	if in.TenantID != nil && *in.TenantID != next.TenantID {
		f = append(f, apierr.Field("tenant_id", "cannot be changed: a schedule stays with its machine's tenant"))
	}
	if len(f) == 0 {
		f = validateSchedule(&next)
	}
	if len(f) == 0 && (next.Cron != e.rec.Cron || next.Timezone != e.rec.Timezone || next.Enabled && !e.rec.Enabled) {
		// Only a new cron, time zone or enabling is held to the bound: a schedule made
		// before the operator raised it can still be disabled or have its retention
		// changed (and runs as it is until then).
		f = e.ss.checkInterval(&next)
	}
	if len(f) > 0 {
		ctx.Fail(apierr.Invalid(f...))
		return
	}
	now := e.ss.now().UTC()
	if retimed {
		// Due times before the change are not missed ones.
		if now.After(next.Since) {
			next.Since = now
		}
		next.NextRunAt = e.next(&next, next.Since)
	}
	next.UpdatedAt = now
	if err := e.save(&next, nil, ctx.Audit()); err != nil {
		ctx.Fail(err)
		return
	}
	e.arm()
	ctx.Respond(next)
}

func (e *scheduleEntity) delete(ctx *kit.Ctx) {
	b := new(persistence.Batch).Del(scheduleKey(e.id)).Del(scheduleTenantKey(e.rec.TenantID, e.id))
	if err := e.sys.rt.Audit(b, ctx.Audit().On("", e.id, e.rec.TenantID)); err != nil {
		ctx.Fail(err)
		return
	}
	if err := e.sys.rt.Commit(b); err != nil {
		ctx.Fail(err)
		return
	}
	e.ss.disarm(e.id)
	e.rec = nil
	ctx.Respond(scheduleRecord{})
}

// fire handles a timer. A run in flight, a late timer (the host slept) or a failed
// write skip the due time; otherwise it is claimed and run.
func (e *scheduleEntity) fire(slot time.Time, gen uint64) {
	if e.rec == nil || !e.ss.timers.Take(e.id, gen) || !e.rec.Enabled || !slot.After(e.rec.Since) {
		return
	}
	now := e.ss.now().UTC()
	if slot.After(now) {
		e.ss.arm(e.id, slot) // early: the clock was set back
		return
	}
	if e.rec.running() {
		e.log().Info("schedule skips a due time: its previous run is still in progress", zap.Time("due", slot))
		e.skip(slot, now, "")
		return
	}
	if late := now.Sub(slot); late > max(e.ss.grace, time.Minute) {
		e.skip(slot, now, fmt.Sprintf("skipped: due at %s but the timer fired %s late (grace %s)",
			slot.Format(time.RFC3339), late.Round(time.Second), e.ss.grace))
		return
	}
	e.claim(slot, now)
}

// skip moves past a due time without running it, recording status when given.
func (e *scheduleEntity) skip(slot, now time.Time, status string) {
	next := *e.rec
	next.Since = maxTime(slot, next.Since)
	next.NextRunAt = e.next(&next, maxTime(now, next.Since))
	if status != "" {
		next.LastStatus = &status
		next.UpdatedAt = now
	}
	if err := e.save(&next, nil, nil); err != nil {
		e.log().Error("cannot record a skipped due time", zap.Error(err))
		e.rec.NextRunAt = next.NextRunAt
	}
	e.arm()
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// claim records due time slot as run, durably, and only then starts the run: a
// crash after this point never runs the slot again, because Since has moved past it.
// A due time of a suspended tenant's schedule is skipped instead, and says so.
func (e *scheduleEntity) claim(slot, now time.Time) {
	if reason, ok := e.suspended(); ok {
		e.log().Info("schedule skips a due time: its tenant is suspended", zap.Time("due", slot))
		e.skip(slot, now, "skipped: tenant suspended ("+reason+")")
		return
	}
	taskID := persistence.NewID()
	next := *e.rec
	next.LastRunAt = kit.Ptr(slot.UTC())
	next.LastStatus = kit.Ptr(RunRunning)
	next.LastTaskID = &taskID
	next.Runs++
	next.Since = slot
	next.NextRunAt = e.next(&next, maxTime(slot, now))
	next.UpdatedAt = now
	if err := e.save(&next, nil, nil); err != nil {
		// Not claimed, so not run: try again at the next due time.
		e.log().Error("cannot claim a due time; it is not run", zap.Time("due", slot), zap.Error(err))
		if n := e.next(&next, now); n != nil {
			e.rec.NextRunAt = n
			e.ss.arm(e.id, *n)
		}
		return
	}
	e.arm()
	e.ss.run(next, false)
}

// suspended says whether the schedule's tenant is suspended, and why. A tenant that
// cannot be read now is taken as active: the run goes ahead, as it would have before
// suspensions existed, and the failure is logged.
func (e *scheduleEntity) suspended() (string, bool) {
	if e.sys.Tenants == nil {
		return "", false
	}
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	ten, err := e.sys.Tenants.Get(ctx, e.rec.TenantID)
	if err != nil {
		if !errors.Is(err, apierr.ErrNotFound) {
			e.log().Warn("cannot tell whether the schedule's tenant is suspended; the run goes ahead", zap.Error(err))
		}
		return "", false
	}
	if ten.Suspension == nil {
		return "", false
	}
	return ten.Suspension.Reason, true
}

// wake settles what a stop left behind: the run it interrupted is followed to its
// end; a missed due time runs once if it is within the grace, else it is recorded as
// skipped; the timer is armed.
func (e *scheduleEntity) wake() {
	if e.rec == nil {
		return
	}
	r := e.rec
	if r.running() {
		e.ss.run(*r, true)
	}
	if !r.Enabled {
		e.ss.disarm(e.id)
		return
	}
	now := e.ss.now().UTC()
	sched, loc, f := compileSchedule(r.Cron, r.Timezone)
	if len(f) > 0 {
		status := "failed: " + f[0].Field + " " + f[0].Message
		next := *r
		next.LastStatus, next.NextRunAt = &status, nil
		if err := e.save(&next, nil, nil); err != nil {
			e.log().Error("cannot record an invalid schedule", zap.Error(err))
		}
		e.ss.disarm(e.id)
		return
	}
	run, first := missedRun(sched, loc, r.Since, now, e.ss.grace)
	switch {
	case !first.IsZero() && r.running():
		// The interrupted run is still being settled: its status is the one to keep.
		e.log().Info("schedule skips a due time missed while vmplane was down: its previous run is still settling", zap.Time("due", first))
		e.skip(now, now, "")
	case !run.IsZero():
		e.log().Info("running a due time missed while vmplane was down", zap.Time("due", run))
		e.claim(run, now)
	case !first.IsZero():
		e.skip(now, now, fmt.Sprintf("skipped: missed while vmplane was down (due at %s, beyond the grace of %s)",
			first.Format(time.RFC3339), e.ss.grace))
	default:
		next := nextRun(sched, loc, maxTime(r.Since, now))
		if !sameTime(next, r.NextRunAt) {
			n := *r
			n.NextRunAt = next
			if err := e.save(&n, nil, nil); err != nil {
				e.log().Error("cannot record the next due time", zap.Error(err))
				e.rec.NextRunAt = next
			}
		}
		e.arm()
	}
}

func sameTime(a, b *time.Time) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && a.Equal(*b))
}

// runDone records a run's outcome: the status (if this is still the schedule's last
// run), the backup it took, and the backup records whose backups are gone, in one
// batch. A deleted schedule still records its last backup: the backup exists.
func (e *scheduleEntity) runDone(m *runDone) error {
	b := new(persistence.Batch)
	if m.Backup != nil {
		sched := e.id
		rec := &backups.Backup{ID: m.TaskID, BackupID: m.Backup.ID, MachineID: m.MachineID, TenantID: m.TenantID,
			VMID: m.Backup.VMID, Node: m.Backup.Node, Storage: m.Backup.Storage, Mode: string(m.Backup.Mode),
			SizeBytes: m.Backup.SizeBytes, CreatedAt: m.Backup.CreatedAt.UTC(), ScheduleID: &sched,
			ScheduledAt: kit.Ptr(m.Slot.UTC()), TaskID: kit.Ptr(m.TaskID), Origin: backups.OriginSchedule,
			Location: hvloc.ID(m.Backup.Location)}
		if err := backups.Put(b, rec); err != nil {
			return err
		}
	}
	if len(m.Removed) > 0 {
		gone := map[string]bool{}
		for _, id := range m.Removed {
			gone[id] = true
		}
		ctx, cancel := e.sys.rt.Work()
		defer cancel()
		mine, err := e.sys.Backups.OfSchedule(ctx, m.TenantID, e.id)
		if err != nil {
			return err
		}
		for _, r := range mine {
			if gone[r.BackupID] {
				backups.Del(b, r)
			}
		}
	}
	var next *scheduleRecord
	if e.rec != nil && e.rec.LastTaskID != nil && *e.rec.LastTaskID == m.TaskID && e.rec.running() {
		n := *e.rec
		n.LastStatus = kit.Ptr(m.Status)
		n.UpdatedAt = e.ss.now().UTC()
		if m.Disable {
			n.Enabled, n.NextRunAt = false, nil
		}
		if err := putSchedule(b, &n); err != nil {
			return err
		}
		next = &n
	}
	if len(b.Ops) == 0 {
		return nil
	}
	if err := e.sys.rt.Commit(b); err != nil {
		return err
	}
	if next != nil {
		e.rec = next
		e.arm()
	}
	return nil
}

// run performs a claimed run on its own goroutine: start the machine task under the
// id the claim recorded, wait for it, report the outcome. With resume, the run was
// claimed by an earlier process: its task is followed if it was started at all.
func (s *Schedules) run(rec scheduleRecord, resume bool) {
	if !s.track() {
		return
	}
	go func() {
		defer s.wg.Done()
		taskID := *rec.LastTaskID
		done := &runDone{TaskID: taskID, TenantID: rec.TenantID, MachineID: rec.MachineID, Slot: *rec.LastRunAt}
		// A panic fails this run; its schedule goes on.
		defer kit.Recover(s.sys.log, kindName(rec.Kind)+" run", func(err error) {
			done.Status = "failed: " + err.Error()
			s.report(rec.ID, done)
		})
		var (
			appear time.Duration
			waited *busyWait
		)
		started := false
		if resume {
			// The run was claimed by a process that stopped or died (in a cluster, a
			// member whose schedules moved here). If it never started the task, the run
			// happens now, late but once: the start is under the claimed task id, which
			// the machine answers with the existing task if the start did reach it.
			_, err := s.sys.Tasks.Get(s.ctx, taskID, nil)
			started = err == nil || !errors.Is(err, apierr.ErrNotFound)
		}
		if !started {
			w, err := s.startWhenFree(rec, taskID)
			switch {
			case err == nil:
				waited = w
			case s.ctx.Err() != nil:
				return // stopping: the next start finds out whether the task exists
			case errors.Is(err, apierr.ErrOperationInProgress) && w != nil:
				done.Status = "skipped: " + w.gaveUp()
				s.report(rec.ID, done)
				return
			case !errors.Is(err, apierr.ErrTimeout):
				s.startFailed(done, err)
				s.report(rec.ID, done)
				return
			default:
				// The machine's actor may still start the task late: follow it if it does.
				appear, waited = kit.DefaultTimeout, w
			}
		}
		task, ok := s.waitTask(taskID, appear)
		if !ok {
			return // stopping: the record still names the task, the next start follows it
		}
		s.outcome(rec, task, done)
		if waited != nil {
			done.Status += "; " + waited.String()
		}
		s.report(rec.ID, done)
	}()
}

// maxBusyWait bounds how long a run waits for a busy machine when its schedule has no
// next due time.
const maxBusyWait = time.Hour

// busyWait is what a run waited for: the machine's tasks that held it when the run
// was due.
type busyWait struct {
	since time.Time
	took  time.Duration
	// tasks are the blocking tasks, "id (type)", in the order they were met.
	tasks []string
	until time.Time
}

func (w *busyWait) String() string {
	return fmt.Sprintf("started %s late: the machine was busy with task %s", w.took.Round(time.Millisecond), strings.Join(w.tasks, ", then "))
}

func (w *busyWait) gaveUp() string {
	return fmt.Sprintf("the machine stayed busy with task %s until %s (the next due time, or the longest a run waits)",
		strings.Join(w.tasks, ", then "), w.until.UTC().Format(time.RFC3339))
}

// startWhenFree starts a run's task; when the machine is busy with another task (a
// backup schedule due in the same minute, a user's reboot), it waits for that task to
// end and tries again, until the schedule's next due time (or maxBusyWait): a run is
// not lost because another operation came first. The busyWait says what it waited
// for (nil: the machine was free); ErrOperationInProgress means it waited in vain.
func (s *Schedules) startWhenFree(rec scheduleRecord, taskID string) (*busyWait, error) {
	var w *busyWait
	for {
		err := s.startRun(rec, taskID)
		if w != nil {
			w.took = time.Since(w.since)
		}
		if !errors.Is(err, apierr.ErrOperationInProgress) {
			return w, err
		}
		if w == nil {
			w = &busyWait{since: time.Now(), until: time.Now().Add(maxBusyWait)}
			if n := rec.NextRunAt; n != nil && rec.LastRunAt != nil {
				// Give up a little before the next due time: a run still waiting
				// then would make the schedule skip that due time.
				w.until = n.Add(-min(time.Second, n.Sub(*rec.LastRunAt)/4))
			}
		}
		blocker := s.blockingTask(rec)
		if blocker != nil {
			name := blocker.ID + " (" + blocker.Type + ")"
			if len(w.tasks) == 0 || w.tasks[len(w.tasks)-1] != name {
				w.tasks = append(w.tasks, name)
				s.sys.log.Info("schedule run waits for the machine's task to end",
					zap.String("schedule_id", rec.ID), zap.String("machine_id", rec.MachineID), zap.String("blocking_task", blocker.ID))
			}
		}
		if !s.waitUntilEnded(blocker, w.until) {
			if len(w.tasks) == 0 {
				w.tasks = append(w.tasks, "(ended meanwhile)")
			}
			return w, err
		}
	}
}

// blockingTask is the task the machine is busy with, nil when it has none (any more).
func (s *Schedules) blockingTask(rec scheduleRecord) *tasks.Task {
	ctx, cancel := context.WithTimeout(s.ctx, kit.DefaultTimeout)
	defer cancel()
	m, err := s.sys.Machines.Get(ctx, rec.MachineID, &rec.TenantID)
	if err != nil || m.TaskID == nil {
		return nil
	}
	t, err := s.sys.Tasks.Get(ctx, *m.TaskID, nil)
	if err != nil {
		return &tasks.Task{ID: *m.TaskID, Type: "unknown"}
	}
	return &t
}

// waitUntilEnded waits for a task to end (true), or until deadline or the system
// stops (false). A nil task has ended already.
func (s *Schedules) waitUntilEnded(t *tasks.Task, deadline time.Time) bool {
	if t == nil {
		return s.ctx.Err() == nil
	}
	ctx, cancel := context.WithDeadline(s.ctx, deadline)
	defer cancel()
	_, err := s.sys.Tasks.Wait(ctx, t.ID)
	return err == nil
}

func (s *Schedules) startRun(rec scheduleRecord, taskID string) error {
	ctx, cancel := context.WithTimeout(s.ctx, kit.DefaultTimeout)
	defer cancel()
	op := machines.Operation{Type: machines.OpPower, Action: hypervisor.PowerAction(rec.Action)}
	if rec.Kind == ScheduleBackup {
		mine, err := s.sys.Backups.OfSchedule(ctx, rec.TenantID, rec.ID)
		if err != nil {
			return err
		}
		op = machines.Operation{Type: machines.OpBackup, BackupMode: rec.Mode, Retention: rec.Retention}
		for _, b := range mine {
			op.Prunable = append(op.Prunable, b.BackupID)
		}
	}
	_, err := s.sys.Machines.StartAs(ctx, rec.MachineID, op, &rec.TenantID, taskID)
	return err
}

// startFailed turns a refused start into the run's status.
func (s *Schedules) startFailed(d *runDone, err error) {
	e := apierr.From(err)
	switch {
	case errors.Is(err, apierr.ErrNotFound):
		d.Status = fmt.Sprintf("failed: machine %s no longer exists (or is no longer the tenant's); the schedule is disabled", d.MachineID)
		d.Disable = true
	case errors.Is(err, apierr.ErrInvalidState):
		d.Status = "skipped: " + e.Detail
	default:
		d.Status = "failed: " + e.Error()
	}
}

// waitTask waits for a task to end; false when the system stops first. A task that
// does not exist after appear (when the start's answer was lost) failed to start.
func (s *Schedules) waitTask(id string, appear time.Duration) (*tasks.Task, bool) {
	if appear > 0 {
		ctx, cancel := context.WithTimeout(s.ctx, appear)
		t, err := s.sys.Tasks.Wait(ctx, id)
		cancel()
		if err == nil {
			return t, true
		}
		if s.ctx.Err() != nil {
			return nil, false
		}
		if _, err := s.sys.Tasks.Get(s.ctx, id, nil); errors.Is(err, apierr.ErrNotFound) {
			return &tasks.Task{ID: id, Status: tasks.TaskFailed, Error: kit.Ptr("the machine did not start the run in time")}, true
		}
	}
	t, err := s.sys.Tasks.Wait(s.ctx, id)
	if err != nil {
		return nil, false
	}
	return t, true
}

// outcome reads an ended task into the run's report.
func (s *Schedules) outcome(rec scheduleRecord, task *tasks.Task, d *runDone) {
	if task.Status == tasks.TaskSucceeded {
		d.Status = RunSucceeded
		if rec.Kind != ScheduleBackup {
			return
		}
		var res backups.Result
		if err := json.Unmarshal(task.Result, &res); err != nil || res.Backup.ID == "" {
			d.Status = "failed: the backup task reported no backup"
			return
		}
		d.Backup = &res.Backup
		d.Removed = append(append([]string{}, res.Pruned...), res.Missing...)
		if len(res.PruneErrors) > 0 {
			d.Status = "succeeded; pruning failed and is tried again next run: " + res.PruneErrors[0]
		}
		return
	}
	d.Status = "failed"
	if task.Error != nil {
		d.Status += ": " + *task.Error
	}
	if rec.Kind == ScheduleBackup {
		// The backup may exist although the task failed (vmplane stopped as it
		// finished, or the machine could not be read afterwards): keep it on record.
		if b := s.sys.Backups.Orphan(s.ctx, rec.TenantID, rec.MachineID, task); b != nil {
			d.Backup = b
			d.Status += " (the backup was taken and is kept)"
		}
	}
}

// report hands a run's outcome to its schedule, retrying a few times: a lost report
// leaves the status at running until the next start follows the task again.
func (s *Schedules) report(id string, d *runDone) {
	if d.Status != RunSucceeded {
		// Every run that did not succeed, with its reason, for the operator's log.
		s.sys.log.Info("schedule run failed", zap.String("schedule_id", id), zap.String("machine_id", d.MachineID),
			zap.String("tenant_id", d.TenantID), zap.String("task_id", d.TaskID), zap.String("status", d.Status))
	}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			select {
			case <-s.ctx.Done():
			case <-time.After(time.Second):
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), kit.DefaultTimeout)
		_, err = s.ask(ctx, id, d)
		cancel()
		if err == nil || s.ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		s.sys.log.Warn("schedule run outcome not recorded; the next start follows its task again",
			zap.String("schedule_id", id), zap.String("task_id", d.TaskID), zap.Error(err))
	}
}

// Absent implements kit.Absence.
func (e *scheduleEntity) Absent() bool { return e.rec == nil }

// The runtime finds these behaviours by interface: the compiler checks them, since a
// misnamed method would silently turn them off.
var (
	_ kit.Absence = (*scheduleEntity)(nil)
)
