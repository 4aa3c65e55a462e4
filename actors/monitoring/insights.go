package monitoring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/tasks"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Faulty deployments are machines an operator should look at. A machine is listed once,
// with the first of these reasons that applies (the order is the priority):
//
//	provisioning_failed    its latest deployment task in the window (vm.create or
//	                       vm.reinstall, whichever finished last) is a failed vm.create,
//	                       or it is in status error (which only a failed create leaves,
//	                       and which lasts until it is reinstalled or deleted, however
//	                       old the failure)
//	reinstall_failed       its latest deployment task in the window is a failed
//	                       vm.reinstall
//	crash_loop             it stopped without being asked at least CrashLoopCount times
//	                       within CrashLoopWindow: a sync saw it stopped while its record
//	                       said running (a guest panic, an OOM kill, someone stopping it
//	                       behind vmplane's back)
//	failing_health_checks  a health check bound to it (machine_id) is failing and the
//	                       machine was created within HealthWindow: it broke right after
//	                       deployment
//	repeated_failures      at least TaskFailures of its tasks failed within Window
//
// failed_tasks is the number of its tasks that failed within Window (whatever the
// reason); last_error the error of the latest of them, or, with none, the failing
// check's error for failing_health_checks, else null; since when the problem began
// (the failed deployment's end, the first crash or task failure in the window, the
// check's first failure).

// Reasons of a faulty deployment.
const (
	ReasonProvisioningFailed  = "provisioning_failed"
	ReasonReinstallFailed     = "reinstall_failed"
	ReasonCrashLoop           = "crash_loop"
	ReasonFailingHealthChecks = "failing_health_checks"
	ReasonRepeatedFailures    = "repeated_failures"
)

// FaultyOptions are the windows and thresholds of the faulty-deployment rules.
type FaultyOptions struct {
	// Window is how far back failed tasks and failed deployments count (default 24h).
	Window time.Duration
	// TaskFailures failed tasks within Window make repeated_failures (default 3).
	TaskFailures int
	// CrashLoopCount unexpected stops within CrashLoopWindow make a crash loop
	// (default 3 in 1h).
	CrashLoopCount  int
	CrashLoopWindow time.Duration
	// HealthWindow is how soon after its creation a machine's failing health check
	// makes it faulty (default 1h).
	HealthWindow time.Duration
}

// DefaultFaultyOptions are the defaults of FaultyOptions.
var DefaultFaultyOptions = FaultyOptions{Window: 24 * time.Hour, TaskFailures: 3, CrashLoopCount: 3,
	CrashLoopWindow: time.Hour, HealthWindow: time.Hour}

func (o FaultyOptions) withDefaults() FaultyOptions {
	d := DefaultFaultyOptions
	if o.Window > 0 {
		d.Window = o.Window
	}
	if o.TaskFailures > 0 {
		d.TaskFailures = o.TaskFailures
	}
	if o.CrashLoopCount > 0 {
		d.CrashLoopCount = o.CrashLoopCount
	}
	if o.CrashLoopWindow > 0 {
		d.CrashLoopWindow = o.CrashLoopWindow
	}
	if o.HealthWindow > 0 {
		d.HealthWindow = o.HealthWindow
	}
	return d
}

// FaultyDeployment is one machine in trouble.
type FaultyDeployment struct {
	MachineID   string    `json:"machine_id"`
	Name        string    `json:"name"`
	TenantID    *string   `json:"tenant_id"`
	Reason      string    `json:"reason"`
	FailedTasks int       `json:"failed_tasks"`
	LastError   *string   `json:"last_error"`
	Since       time.Time `json:"since"`
}

// FaultyDeployments is the answer of GET /api/monitoring/insights/faulty-deployments,
// the newest problems first.
type FaultyDeployments struct {
	Items []FaultyDeployment `json:"items"`
}

// Keys of the insights' own records, both written only by the event follower:
//
//	crash/<machine>/<ulid>   one unexpected stop, expiring after CrashLoopWindow
//	insight-error/<machine>  index of machines in status error (value: since when), so
//	                         that listing them does not read every machine record
func crashKey(machine string) []byte      { return persistence.Key("crash", machine, persistence.NewID()) }
func errorIndexKey(machine string) []byte { return persistence.Key("insight-error", machine) }

// crashRecord is the value of a crash key.
type crashRecord struct {
	At time.Time `json:"at"`
}

// errorSince is the value of an insight-error key.
type errorSince struct {
	Since time.Time `json:"since"`
}

const insightRecordVersion = 1

// Insights finds faulty deployments. Its follower goroutine reads the event bus and
// keeps the records the rules need that no other record holds: crashes (a sync noticing
// a stopped machine leaves no task behind) and the index of machines in error.
type Insights struct {
	sys    *system
	opts   FaultyOptions
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// inError is the follower's view of the error index, so that the frequent
	// machine.updated events of healthy machines cost no write. Only the follower
	// goroutine touches it.
	inError map[string]bool
}

func startInsights(s *system, opts FaultyOptions) *Insights {
	in := &Insights{sys: s, opts: opts.withDefaults(), inError: map[string]bool{}}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	// Subscribing here, before any entity can publish, means the follower misses
	// nothing this process publishes. Local: in a cluster each member records the
	// events of its own entities, so each event is recorded once.
	backlog, sub, _ := s.Events.SubscribeLocal(0)
	in.wg.Add(1)
	go in.follow(backlog, sub)
	return in
}

func (in *Insights) Stop() {
	in.cancel()
	in.wg.Wait()
}

// Options returns the rules' windows and thresholds in effect.
func (in *Insights) Options() FaultyOptions { return in.opts }

// follow applies events in order until stopped. A subscription that falls behind is
// cut off by the bus; the follower resubscribes after the last event it applied and
// rebuilds the error index when events were lost (crashes in the gap are lost too:
// the bus keeps EventBacklog events, so that takes a burst of that size).
func (in *Insights) follow(backlog []events.Event, sub *events.Subscription) {
	defer in.wg.Done()
	var last uint64
	rebuild := true
	for {
		if rebuild {
			if err := in.rebuildErrorIndex(); err != nil && in.ctx.Err() == nil {
				in.sys.log.Warn("insights: cannot rebuild the error index", zap.Error(err))
			}
			rebuild = false
		}
		for _, ev := range backlog {
			in.apply(ev)
			last = ev.ID
		}
		if !in.drain(sub, &last) {
			sub.Close()
			return
		}
		sub.Close()
		// Cut off (or the bus closing, which stop precedes): pause briefly so that a
		// closed bus cannot spin us, then pick up where we left off.
		select {
		case <-in.ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
		var gone bool
		backlog, sub, gone = in.sys.Events.SubscribeLocal(last)
		if gone {
			in.sys.log.Warn("insights: events were lost; crash records may be missing")
			rebuild = true
		}
	}
}

// drain applies events until the subscription ends (true) or the follower stops (false).
func (in *Insights) drain(sub *events.Subscription, last *uint64) bool {
	for {
		select {
		case <-in.ctx.Done():
			return false
		case ev, ok := <-sub.C:
			if !ok {
				return true
			}
			in.apply(ev)
			*last = ev.ID
		}
	}
}

// apply records what one event means for the rules.
func (in *Insights) apply(ev events.Event) {
	// A panic costs this event, not the follower.
	defer kit.Recover(in.sys.log, "insights event", nil)
	var m struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	switch ev.Type {
	case events.EventMachine, events.EventMachineDeleted:
		if err := json.Unmarshal(ev.Data, &m); err != nil || m.ID == "" {
			return
		}
	default:
		return
	}
	b := new(persistence.Batch)
	if ev.Type == events.EventMachine && ev.Cause == "sync" && ev.PreviousStatus == machines.StatusRunning && m.Status == machines.StatusStopped {
		val, err := persistence.Encode(insightRecordVersion, crashRecord{At: ev.Time})
		if err != nil {
			return
		}
		b.PutTTL(crashKey(m.ID), val, in.opts.CrashLoopWindow)
	}
	isError := ev.Type == events.EventMachine && m.Status == machines.StatusError
	if in.sys.store.Shared() && !in.inError[m.ID] {
		// In a cluster another member's follower may have indexed the machine before
		// it moved here: the index is read, not assumed absent.
		if _, err := in.sys.store.Get(in.ctx, errorIndexKey(m.ID)); err == nil {
			in.inError[m.ID] = true
		}
	}
	switch {
	case isError && !in.inError[m.ID]:
		val, err := persistence.Encode(insightRecordVersion, errorSince{Since: ev.Time})
		if err != nil {
			return
		}
		b.Put(errorIndexKey(m.ID), val)
	case !isError && in.inError[m.ID]:
		b.Del(errorIndexKey(m.ID))
	}
	if len(b.Ops) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(in.ctx, kit.DefaultTimeout)
	defer cancel()
	if err := in.sys.store.Commit(ctx, b); err != nil {
		if in.ctx.Err() == nil {
			in.sys.log.Warn("insights: cannot record machine event", zap.String("machine_id", m.ID), zap.Error(err))
		}
		return
	}
	if isError {
		in.inError[m.ID] = true
	} else {
		delete(in.inError, m.ID)
	}
}

// rebuildErrorIndex makes the error index match the machine records: once at start
// (a process that stopped between a machine's write and the follower's could leave it
// behind) and after lost events. It reads every machine record, which is why the
// request path never does.
func (in *Insights) rebuildErrorIndex() error {
	want, err := in.sys.Machines.InStatus(in.ctx, machines.StatusError)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	prefix := persistence.Prefix("insight-error")
	if err := in.sys.store.Scan(in.ctx, prefix, nil, 0, func(k, _ []byte) error {
		have[string(k[len(prefix):])] = true
		return nil
	}); err != nil {
		return err
	}
	b := new(persistence.Batch)
	for id := range have {
		if _, ok := want[id]; !ok {
			b.Del(errorIndexKey(id))
		}
	}
	for id, since := range want {
		if have[id] {
			continue
		}
		val, err := persistence.Encode(insightRecordVersion, errorSince{Since: since})
		if err != nil {
			return err
		}
		b.Put(errorIndexKey(id), val)
	}
	if len(b.Ops) > 0 {
		ctx, cancel := context.WithTimeout(in.ctx, kit.DefaultTimeout)
		defer cancel()
		if err := in.sys.store.Commit(ctx, b); err != nil {
			return err
		}
	}
	in.inError = map[string]bool{}
	for id := range want {
		in.inError[id] = true
	}
	return nil
}

// machineFacts is what the rules know about one machine.
type machineFacts struct {
	failed       int
	firstFailure time.Time
	lastError    *string
	lastErrorAt  time.Time
	// deploy is the machine's latest deployment task (vm.create, vm.reinstall)
	// that finished within the window, when it failed.
	deploy *tasks.Task
	// crashes within the crash-loop window, and the first of them.
	crashes    int
	firstCrash time.Time
	// errorSince is set when the error index lists the machine.
	errorSince *time.Time
	// check is the earliest-failing health check bound to the machine.
	check *failingCheck
}

// candidate reports whether some rule may apply; only then is the machine read.
func (f *machineFacts) candidate(o FaultyOptions) bool {
	return f.deploy != nil || f.errorSince != nil || f.crashes >= o.CrashLoopCount || f.check != nil || f.failed >= o.TaskFailures
}

type failingCheck struct {
	since time.Time
	err   *string
}

// FaultyDeployments lists the machines that break the rules now.
func (in *Insights) FaultyDeployments(ctx context.Context) (FaultyDeployments, error) {
	return in.faulty(ctx, time.Now().UTC())
}

func (in *Insights) faulty(ctx context.Context, now time.Time) (FaultyDeployments, error) {
	o := in.opts
	facts := map[string]*machineFacts{}
	of := func(id string) *machineFacts {
		f := facts[id]
		if f == nil {
			f = &machineFacts{}
			facts[id] = f
		}
		return f
	}
	if err := in.scanTasks(ctx, now.Add(-o.Window), of); err != nil {
		return FaultyDeployments{}, err
	}
	if err := in.scanCrashes(ctx, now.Add(-o.CrashLoopWindow), of); err != nil {
		return FaultyDeployments{}, err
	}
	prefix := persistence.Prefix("insight-error")
	err := in.sys.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		var e errorSince
		if _, err := persistence.Decode(v, &e); err != nil {
			return nil
		}
		of(string(k[len(prefix):])).errorSince = &e.Since
		return nil
	})
	if err != nil {
		return FaultyDeployments{}, err
	}
	if err := in.scanHealthChecks(ctx, of); err != nil {
		return FaultyDeployments{}, err
	}

	out := FaultyDeployments{Items: []FaultyDeployment{}}
	for id, f := range facts {
		if !f.candidate(o) {
			continue // no rule can apply, whatever the machine's record says
		}
		m, err := in.sys.Machines.Stored(ctx, id)
		if errors.Is(err, apierr.ErrNotFound) {
			continue // deleted since: nothing left to look at
		}
		if err != nil {
			return FaultyDeployments{}, err
		}
		item, ok := in.judge(&m, f, now)
		if ok {
			out.Items = append(out.Items, item)
		}
	}
	sort.Slice(out.Items, func(i, j int) bool {
		a, b := out.Items[i], out.Items[j]
		if !a.Since.Equal(b.Since) {
			return a.Since.After(b.Since)
		}
		return a.MachineID < b.MachineID
	})
	return out, nil
}

// judge applies the rules, in priority order, to one machine.
func (in *Insights) judge(m *machines.Machine, f *machineFacts, now time.Time) (FaultyDeployment, bool) {
	o := in.opts
	item := FaultyDeployment{MachineID: m.ID, Name: m.Name, TenantID: m.TenantID, FailedTasks: f.failed, LastError: f.lastError}
	deployFailed := f.deploy != nil && f.deploy.Status == tasks.TaskFailed
	switch {
	case deployFailed && f.deploy.Type == "vm.create":
		item.Reason, item.Since = ReasonProvisioningFailed, *f.deploy.FinishedAt
	case deployFailed && f.deploy.Type == "vm.reinstall":
		item.Reason, item.Since = ReasonReinstallFailed, *f.deploy.FinishedAt
	case m.Status == machines.StatusError:
		item.Reason, item.Since = ReasonProvisioningFailed, m.UpdatedAt
		if f.errorSince != nil {
			item.Since = *f.errorSince
		}
	case f.crashes >= o.CrashLoopCount:
		item.Reason, item.Since = ReasonCrashLoop, f.firstCrash
	case f.check != nil && !m.CreatedAt.Before(now.Add(-o.HealthWindow)):
		item.Reason, item.Since = ReasonFailingHealthChecks, f.check.since
		if item.LastError == nil {
			item.LastError = f.check.err
		}
	case f.failed >= o.TaskFailures:
		item.Reason, item.Since = ReasonRepeatedFailures, f.firstFailure
	default:
		return FaultyDeployment{}, false
	}
	item.Since = item.Since.UTC()
	return item, true
}

// scanTasks reads the tasks that finished since start. Only tasks created OpTimeout
// before start or later are read (no task runs longer), not every task ever made. The
// one task that may end later is one settled at start after a long downtime; its
// failure says vmplane restarted, nothing about the machine, so missing it costs
// nothing.
func (in *Insights) scanTasks(ctx context.Context, start time.Time, of func(string) *machineFacts) error {
	// Deployments are kept apart: a machine whose latest deployment succeeded needs no
	// further look on that account.
	deploys := map[string]*tasks.Task{}
	err := in.sys.Tasks.CreatedSince(ctx, start.Add(-in.sys.Machines.OpTimeout), func(t *tasks.Task) error {
		if t.TargetType != "machine" || !t.Finished() || t.FinishedAt == nil || t.FinishedAt.Before(start) {
			return nil
		}
		if t.Type == "vm.create" || t.Type == "vm.reinstall" {
			if d := deploys[t.TargetID]; d == nil || t.FinishedAt.After(*d.FinishedAt) {
				deploys[t.TargetID] = t
			}
		}
		if t.Status != tasks.TaskFailed {
			return nil
		}
		f := of(t.TargetID)
		f.failed++
		if f.firstFailure.IsZero() || t.FinishedAt.Before(f.firstFailure) {
			f.firstFailure = *t.FinishedAt
		}
		if f.lastError == nil || !t.FinishedAt.Before(f.lastErrorAt) {
			f.lastErrorAt = *t.FinishedAt
			f.lastError = t.Error
			if f.lastError == nil {
				f.lastError = kit.Ptr("the task failed without an error message")
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for id, t := range deploys {
		if t.Status == tasks.TaskFailed {
			of(id).deploy = t
		}
	}
	return nil
}

// scanCrashes counts each machine's unexpected stops since start.
func (in *Insights) scanCrashes(ctx context.Context, start time.Time, of func(string) *machineFacts) error {
	prefix := persistence.Prefix("crash")
	return in.sys.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		rest := string(k[len(prefix):])
		id := rest
		for i := 0; i < len(rest); i++ {
			if rest[i] == '/' {
				id = rest[:i]
				break
			}
		}
		var c crashRecord
		if _, err := persistence.Decode(v, &c); err != nil || c.At.Before(start) {
			return nil
		}
		f := of(id)
		f.crashes++
		if f.firstCrash.IsZero() || c.At.Before(f.firstCrash) {
			f.firstCrash = c.At
		}
		return nil
	})
}

// healthCheckView is the part of a health check record (hc/<id>, owned by the health
// checks) that the rules read. Unknown fields are ignored, so the check's own schema
// may grow.
type healthCheckView struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	MachineID *string `json:"machine_id"`
	IntervalS int     `json:"interval_s"`
	Last      *struct {
		Status              string          `json:"status"`
		CheckedAt           *time.Time      `json:"checked_at"`
		Error               json.RawMessage `json:"error"`
		ConsecutiveFailures int             `json:"consecutive_failures"`
	} `json:"last"`
}

// scanHealthChecks notes each machine's failing checks, and since when they fail: the
// last check's time less the interval times the failures before it.
func (in *Insights) scanHealthChecks(ctx context.Context, of func(string) *machineFacts) error {
	return in.sys.store.Scan(ctx, persistence.Prefix("hc"), nil, 0, func(_, v []byte) error {
		var c healthCheckView
		if _, err := persistence.Decode(v, &c); err != nil {
			return nil
		}
		if c.MachineID == nil || *c.MachineID == "" || c.Last == nil || c.Last.Status != "failing" || c.Last.CheckedAt == nil {
			return nil
		}
		since := *c.Last.CheckedAt
		if c.IntervalS > 0 && c.Last.ConsecutiveFailures > 1 {
			since = since.Add(-time.Duration(c.Last.ConsecutiveFailures-1) * time.Duration(c.IntervalS) * time.Second)
		}
		var msg string
		if err := json.Unmarshal(c.Last.Error, &msg); err != nil || msg == "" {
			msg = "failing"
		}
		name := c.Name
		if name == "" {
			name = c.ID
		}
		fc := &failingCheck{since: since, err: kit.Ptr(fmt.Sprintf("health check %s: %s", name, msg))}
		f := of(*c.MachineID)
		if f.check == nil || fc.since.Before(f.check.since) {
			f.check = fc
		}
		return nil
	})
}
