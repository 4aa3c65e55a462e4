package monitoring

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vmplane/vmplane/actors/alerts"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// Health check types.
const (
	CheckHTTP = "http"
	CheckTCP  = "tcp"
)

// Health check statuses. A new check is unknown until its first success (passing) or
// until failure_threshold probes in a row failed (failing).
const (
	CheckPassing = "passing"
	CheckFailing = "failing"
	CheckUnknown = "unknown"
)

// Limits of a health check's settings. An interval of 1 s is accepted so that tests and
// demos run quickly; 5 s or more is what a production check should use.
const (
	MinCheckIntervalS       = 1
	MaxCheckIntervalS       = 86400
	MinCheckTimeoutMS       = 100
	MaxCheckTimeoutMS       = 60000
	DefaultFailureThreshold = 3
	// DefaultCheckIntervalS and DefaultCheckTimeoutMS apply to a check created
	// without them (the timeout is kept below a shorter interval given alone).
	DefaultCheckIntervalS = 60
	DefaultCheckTimeoutMS = 5000
	MinFailureThreshold   = 1
	MaxFailureThreshold   = 100
	// MinCheckNameLen and MaxCheckNameLen bound a check's name, in characters.
	MinCheckNameLen, MaxCheckNameLen = 1, 100
	// MaxCheckTargetLen bounds a check's target, a URL or host:port.
	MaxCheckTargetLen = 2048
	// MinExpectedStatus and MaxExpectedStatus bound the status an http check expects
	// (0: any 2xx or 3xx).
	MinExpectedStatus, MaxExpectedStatus = 100, 599
	// CheckResultsKept is how many recent probe results a check keeps.
	CheckResultsKept = 20
)

// hcPersistEvery bounds how stale a check's stored latest result may get on a single
// node: a result is written when the check's status changes (the part alerts and the
// faulty-deployment rules depend on) and otherwise at most once per this period. Reads
// through the API see every result anyway (HealthChecks.live), so this only trades
// write volume on an appliance's disk (one small write per check per minute, not per
// probe) against how much of the recent history a crash forgets. In a cluster every
// result is written (HealthChecks.shared).
const hcPersistEvery = time.Minute

// CheckResult is a check's latest state: its status after the last probe, that probe's
// time, latency and error, and the failures in a row so far.
type CheckResult struct {
	Status              string     `json:"status"`
	CheckedAt           *time.Time `json:"checked_at"`
	LatencyMS           float64    `json:"latency_ms"`
	Error               *string    `json:"error"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
}

// ProbeResult is one probe's outcome.
type ProbeResult struct {
	CheckedAt time.Time `json:"checked_at"`
	OK        bool      `json:"ok"`
	LatencyMS float64   `json:"latency_ms"`
	// StatusCode is the HTTP status the target answered (http checks that got one).
	StatusCode *int    `json:"status_code,omitempty"`
	Error      *string `json:"error"`
}

// HealthCheck is a probe of an HTTP URL or a TCP address, run on its own timer. It is
// stored under hc/<id> in this shape (the faulty-deployment rules read it).
type HealthCheck struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Type   string `json:"type"`
	Target string `json:"target"`
	// IntervalS is the time between probes, TimeoutMS a probe's deadline (below it).
	IntervalS int `json:"interval_s"`
	TimeoutMS int `json:"timeout_ms"`
	// ExpectedStatus is the HTTP status a probe must get; 0 accepts any 2xx or 3xx.
	ExpectedStatus int `json:"expected_status"`
	// FailureThreshold is how many failed probes in a row make the check failing.
	FailureThreshold int         `json:"failure_threshold"`
	MachineID        *string     `json:"machine_id"`
	TenantID         *string     `json:"tenant_id"`
	Enabled          bool        `json:"enabled"`
	CreatedAt        time.Time   `json:"created_at"`
	UpdatedAt        time.Time   `json:"updated_at"`
	Last             CheckResult `json:"last"`
	// Results are the most recent probes, oldest first (left out of lists).
	Results []ProbeResult `json:"results,omitempty"`
	// SkippedProbes counts the due probes skipped because the previous one of this
	// check was still running: probes of one check never overlap.
	SkippedProbes int64 `json:"skipped_probes"`
	// TargetScoped is set when a tenant user chose the target: before each probe the
	// target is checked again to still be an address of the tenant's machines (a
	// destroyed machine's address may have gone to someone else), and the probe fails
	// without any traffic if not.
	TargetScoped bool `json:"target_scoped"`
}

// HealthCheckSpec is the body of a health check create.
type HealthCheckSpec struct {
	Name   string `json:"name" openapi:"required,limit=check.name"`
	Type   string `json:"type" openapi:"required,enum=http|tcp"`
	Target string `json:"target" openapi:"required,limit=check.target"`
	// IntervalS defaults to DefaultCheckIntervalS, TimeoutMS to DefaultCheckTimeoutMS
	// or half the interval, whichever is shorter.
	IntervalS        int     `json:"interval_s,omitempty" openapi:"limit=check.interval_s" doc:"seconds between probes; default 60"`
	TimeoutMS        int     `json:"timeout_ms,omitempty" openapi:"limit=check.timeout_ms" doc:"probe timeout, below the interval; default 5000, or half the interval when that is shorter"`
	ExpectedStatus   int     `json:"expected_status,omitempty" openapi:"limit=check.expected_status"`
	FailureThreshold int     `json:"failure_threshold,omitempty" openapi:"limit=check.failure_threshold_or_default"`
	MachineID        *string `json:"machine_id,omitempty" openapi:"limit=id"`
	TenantID         *string `json:"tenant_id,omitempty" openapi:"limit=id"`
	// Enabled defaults to true.
	Enabled *bool `json:"enabled,omitempty"`
}

// HealthCheckChange is a partial change of a health check. A change of type, target or
// expected status starts the check afresh (unknown, no failures counted).
type HealthCheckChange struct {
	Name             *string `json:"name,omitempty" openapi:"limit=check.name"`
	Type             *string `json:"type,omitempty" openapi:"enum=http|tcp"`
	Target           *string `json:"target,omitempty" openapi:"limit=check.target"`
	IntervalS        *int    `json:"interval_s,omitempty" openapi:"limit=check.interval_s"`
	TimeoutMS        *int    `json:"timeout_ms,omitempty" openapi:"limit=check.timeout_ms"`
	ExpectedStatus   *int    `json:"expected_status,omitempty" openapi:"limit=check.expected_status"`
	FailureThreshold *int    `json:"failure_threshold,omitempty" openapi:"limit=check.failure_threshold"`
	MachineID        *string `json:"machine_id,omitempty" openapi:"nullable,limit=id"`
	Enabled          *bool   `json:"enabled,omitempty"`
	// TenantID is read-only; it may only name the check's own tenant.
	TenantID *string `json:"tenant_id,omitempty" openapi:"limit=id"`
	// ClearMachine removes machine_id (the body had "machine_id": null).
	ClearMachine bool `json:"-"`
}

// checkChange is a HealthCheckChange as it travels to the check's entity, which may be
// active on another member: the same fields, ClearMachine included, which the API's
// JSON leaves out (the edge sets it from "machine_id": null). The conversion between
// the two stops compiling when they drift apart.
type checkChange struct {
	Name             *string
	Type             *string
	Target           *string
	IntervalS        *int
	TimeoutMS        *int
	ExpectedStatus   *int
	FailureThreshold *int
	MachineID        *string
	Enabled          *bool
	TenantID         *string
	ClearMachine     bool
}

const healthCheckVersion = 1

// Keys of health checks: the record, and a tenant's index.
func hcKey(id string) []byte               { return persistence.Key("hc", id) }
func hcTenantKey(tenant, id string) []byte { return persistence.Key("hc-tenant", tenant, id) }

// HealthChecks owns the health checks. Each check is an entity of the "healthchecks"
// kind, never passivated while enabled, that decides in its mailbox when to probe and
// what a result means; the probe itself runs on a goroutine that reports back, so a
// hanging target holds up nothing but its own check, whose next probe waits for it.
type HealthChecks struct {
	sys    *system
	kind   *kit.Kind
	client *http.Client

	// ctx ends when the system stops, cutting probes short.
	ctx    context.Context
	cancel context.CancelFunc

	timers kit.EntityTimers

	mu       sync.Mutex
	closed   bool
	inflight map[string]bool
	wg       sync.WaitGroup

	// live holds each running check's current record (HealthCheck values), so reads
	// see every probe's result although the store gets them less often. Single node
	// only: see shared.
	live sync.Map
	// shared is set when the store is a cluster's (Store.Shared). A check's entity runs
	// on one member, and a read on any other could see only the store, up to
	// hcPersistEvery old: so every result (and every skipped probe) is written, reads
	// are the store's alone, the same on every member, and live is not kept. A member
	// that takes a check over also resumes from its last result, failures in a row
	// included. The cost is one etcd write per probe.
	shared bool
}

// Messages of a health check entity.
type (
	createCheck struct {
		HC HealthCheck
		// Stamp, for a create made with an Idempotency-Key, is the key's claim,
		// which the create's write carries (kit.Stamp).
		Stamp *kit.Stamp
	}
	updateCheck struct {
		Scope  *string
		Change checkChange
		// Type and Target are what the service validated a tenant's target as; if the
		// check changed meanwhile the update is refused rather than let through unchecked.
		Type, Target string
	}
	deleteCheck struct{ Scope *string }
	// wakeCheck is sent to every enabled check at start; loading arms its timer.
	wakeCheck struct{}
	// tickCheck is a timer's: a probe is due. Gen tells a replaced timer's tick.
	tickCheck struct{ Gen uint64 }
	// probeDone reports a probe's result. Gen is the check's configuration generation
	// when the probe started: a result about a changed target is dropped.
	probeDone struct {
		Gen    int
		Result ProbeResult
	}
)

func startHealthChecks(s *system) *HealthChecks {
	h := &HealthChecks{sys: s, inflight: map[string]bool{}, timers: kit.EntityTimers{Clock: s.rt.Clock}, shared: s.store.Shared()}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.client = &http.Client{
		Transport: &http.Transport{
			// Never through a proxy from the environment: the probe must reach the target
			// itself. No keep-alive: each probe measures a fresh connection.
			Proxy:                  nil,
			DialContext:            (&net.Dialer{}).DialContext,
			DisableKeepAlives:      true,
			MaxResponseHeaderBytes: 64 << 10,
		},
		// Redirects are not followed: a 3xx is an answer (a success when any 2xx/3xx
		// is), and following one would let a tenant's check reach another host.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	h.kind = s.rt.StartKind("healthchecks", 0, func(id string) kit.Entity {
		return &hcEntity{sys: s, hs: h, id: id}
	}, nil)
	return h
}

// WakeAll wakes every enabled stored check, so that its timer runs again after a restart.
func (h *HealthChecks) WakeAll(ctx context.Context) error {
	var ids []string
	prefix := persistence.Prefix("hc")
	err := h.sys.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		var rec HealthCheck
		if _, err := persistence.Decode(v, &rec); err != nil {
			return err
		}
		if rec.Enabled {
			ids = append(ids, rec.ID)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		h.kind.Send(id, &wakeCheck{})
	}
	if len(ids) > 0 {
		h.sys.log.Info("health checks running", zap.Int("checks", len(ids)))
	}
	return nil
}

// Stop disarms every timer, cuts the probes in flight short and waits for them.
func (h *HealthChecks) Stop() {
	h.timers.Stop()
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}

// arm sets the check's one timer to tick after d, replacing any other.
func (h *HealthChecks) arm(id string, d time.Duration) {
	kind := h.kind.Ref()
	h.timers.Arm(id, d, func(gen uint64) {
		h.sys.rt.Send(kind, &kit.Envelope{ID: id, Msg: &tickCheck{Gen: gen}})
	})
}

func (h *HealthChecks) disarm(id string) { h.timers.Disarm(id) }

// take consumes the timer whose tick this is; a replaced or stopped one answers false.
func (h *HealthChecks) take(id string, gen uint64) bool { return h.timers.Take(id, gen) }

// startProbe runs one probe of check id on its own goroutine, unless the previous one
// is still running (busy) or the system is stopping. The in-flight mark lives here, not
// in the entity, so that not even a restarted entity can overlap two probes.
func (h *HealthChecks) startProbe(id string, gen int, hc *HealthCheck) (busy bool) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return false
	}
	if h.inflight[id] {
		h.mu.Unlock()
		return true
	}
	h.inflight[id] = true
	h.wg.Add(1)
	h.mu.Unlock()
	typ, target, expected := hc.Type, hc.Target, hc.ExpectedStatus
	timeout := time.Duration(hc.TimeoutMS) * time.Millisecond
	var owner *string
	if hc.TargetScoped && hc.TenantID != nil {
		owner = hc.TenantID
	}
	kind := h.kind.Ref()
	go func() {
		defer h.wg.Done()
		defer func() {
			h.mu.Lock()
			delete(h.inflight, id)
			h.mu.Unlock()
		}()
		// A panic while probing is this probe's failure: the check goes on.
		defer kit.Recover(h.sys.log, "health probe of check "+id, func(err error) {
			msg := err.Error()
			h.sys.rt.Send(kind, &kit.Envelope{ID: id, Msg: &probeDone{Gen: gen,
				Result: ProbeResult{CheckedAt: time.Now().UTC(), Error: &msg}}})
		})
		var res ProbeResult
		if owner != nil {
			res = h.stillOwned(*owner, typ, target, timeout)
		}
		if res.Error == nil {
			res = probe(h.ctx, h.client, h.prober(), typ, target, expected, timeout)
		}
		if h.ctx.Err() == nil {
			// A probe cut short by the shutdown says nothing about the target.
			h.sys.rt.Send(kind, &kit.Envelope{ID: id, Msg: &probeDone{Gen: gen, Result: res}})
		}
	}()
	return false
}

// prober is the driver's, when its machines answer probes inside it (the sim): their
// addresses are on no real network, so they must not be probed there.
func (h *HealthChecks) prober() hypervisor.Prober {
	p, _ := h.sys.driver.(hypervisor.Prober)
	return p
}

// stillOwned checks a tenant's target again before a probe: a result with an error
// when the address is no longer one of the tenant's machines.
func (h *HealthChecks) stillOwned(tenant, typ, target string, timeout time.Duration) ProbeResult {
	ctx, cancel := context.WithTimeout(h.ctx, timeout)
	defer cancel()
	res := ProbeResult{CheckedAt: time.Now().UTC()}
	if _, err := h.tenantTarget(ctx, tenant, typ, target); err != nil {
		msg := "not probed: " + checkHost(typ, target) + " is no longer an address of the tenant's machines"
		if !errors.Is(err, apierr.ErrInvalidRequest) {
			msg = "not probed: the tenant's machines could not be read"
		}
		res.Error = &msg
	}
	return res
}

// probe performs one check and measures it. prober, when not nil, answers first for
// the addresses it owns; the network is probed only for the others.
func probe(parent context.Context, client *http.Client, prober hypervisor.Prober, typ, target string, expected int, timeout time.Duration) ProbeResult {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	start := time.Now()
	res := ProbeResult{CheckedAt: start.UTC()}
	var err error
	switch typ {
	case CheckTCP:
		if prober != nil {
			if owned, perr := prober.ProbeTCP(ctx, target); owned {
				err = perr
				break
			}
		}
		var conn net.Conn
		conn, err = (&net.Dialer{}).DialContext(ctx, "tcp", target)
		if err == nil {
			conn.Close()
		}
	default:
		code, owned := 0, false
		if prober != nil {
			code, owned, err = prober.ProbeHTTP(ctx, target)
		}
		if !owned {
			code, err = probeHTTP(ctx, client, target)
		}
		if err != nil {
			break
		}
		res.StatusCode = &code
		switch {
		case expected == 0 && (code < 200 || code > 399):
			err = fmt.Errorf("got HTTP status %d; want 2xx or 3xx", code)
		case expected != 0 && code != expected:
			err = fmt.Errorf("got HTTP status %d; want %d", code, expected)
		}
	}
	res.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		msg := err.Error()
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			msg = fmt.Sprintf("no answer within %s", timeout)
		}
		if len(msg) > 300 {
			msg = msg[:300]
		}
		res.Error = &msg
		return res
	}
	res.OK = true
	return res
}

// probeHTTP GETs target over the network and returns the status it answered.
func probeHTTP(ctx context.Context, client *http.Client, target string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("User-Agent", "vmplane-healthcheck/1")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	// A little of the body, so a server that answers is not cut mid-write; the status
	// is what counts.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// Create validates a new check and starts it. scope is the tenant of a tenant user,
// whose check may target only the addresses of that tenant's own machines; operators
// (nil scope) may target anything and name the tenant in spec.TenantID.
func (h *HealthChecks) Create(ctx context.Context, spec HealthCheckSpec, scope *string) (HealthCheck, error) {
	// Made with an Idempotency-Key (ctx carries its stamp), the create's write carries
	// the key's claim, and the retry of a create that applied without an answer gets
	// the check it created.
	st := kit.StampOf(ctx)
	if r, ok, err := kit.Recorded[HealthCheck](st); ok {
		return r, err
	}
	if scope != nil {
		spec.TenantID = scope
	}
	now := time.Now().UTC()
	hc := HealthCheck{ID: persistence.NewID(), Name: strings.TrimSpace(spec.Name), Type: spec.Type, Target: strings.TrimSpace(spec.Target),
		IntervalS: spec.IntervalS, TimeoutMS: spec.TimeoutMS, ExpectedStatus: spec.ExpectedStatus,
		FailureThreshold: spec.FailureThreshold, TenantID: spec.TenantID, Enabled: spec.Enabled == nil || *spec.Enabled,
		CreatedAt: now, UpdatedAt: now, Last: CheckResult{Status: CheckUnknown}, TargetScoped: scope != nil}
	if hc.FailureThreshold == 0 {
		hc.FailureThreshold = DefaultFailureThreshold
	}
	if hc.IntervalS == 0 {
		hc.IntervalS = DefaultCheckIntervalS
	}
	if hc.TimeoutMS == 0 && hc.IntervalS > 0 {
		hc.TimeoutMS = max(min(DefaultCheckTimeoutMS, hc.IntervalS*1000/2), MinCheckTimeoutMS)
	}
	if f := validateCheck(&hc); len(f) > 0 {
		return HealthCheck{}, apierr.Invalid(f...)
	}
	if scope == nil && hc.TenantID != nil {
		if _, err := h.sys.Tenants.Get(ctx, *hc.TenantID); errors.Is(err, apierr.ErrNotFound) {
			return HealthCheck{}, apierr.Invalid(apierr.Field("tenant_id", "no tenant %s", *hc.TenantID))
		} else if err != nil {
			return HealthCheck{}, err
		}
	}
	if spec.MachineID != nil {
		id, err := h.machine(ctx, *spec.MachineID, scope)
		if err != nil {
			return HealthCheck{}, err
		}
		hc.MachineID = &id
	}
	if scope != nil {
		owner, err := h.tenantTarget(ctx, *scope, hc.Type, hc.Target)
		if err != nil {
			return HealthCheck{}, err
		}
		if hc.MachineID == nil {
			// The address tells whose machine this check watches.
			hc.MachineID = &owner
		}
	}
	return h.ask(ctx, hc.ID, &createCheck{HC: hc, Stamp: st})
}

// Update changes a check. A tenant user's new target must again be an address of
// that tenant's own machines.
func (h *HealthChecks) Update(ctx context.Context, id string, ch HealthCheckChange, scope *string) (HealthCheck, error) {
	cur, err := h.Get(ctx, id, scope)
	if err != nil {
		return HealthCheck{}, err
	}
	if ch.TenantID != nil && (cur.TenantID == nil || *ch.TenantID != *cur.TenantID) {
		return HealthCheck{}, apierr.Invalid(apierr.Field("tenant_id", "is read-only: delete the check and create it for the other tenant"))
	}
	if ch.Target != nil {
		t := strings.TrimSpace(*ch.Target)
		ch.Target = &t
	}
	if ch.MachineID != nil {
		mid, err := h.machine(ctx, *ch.MachineID, scope)
		if err != nil {
			return HealthCheck{}, err
		}
		ch.MachineID = &mid
	}
	msg := &updateCheck{Scope: scope, Change: checkChange(ch)}
	if scope != nil && (ch.Type != nil || ch.Target != nil) {
		msg.Type, msg.Target = cur.Type, cur.Target
		if ch.Type != nil {
			msg.Type = *ch.Type
		}
		if ch.Target != nil {
			msg.Target = *ch.Target
		}
		t := HealthCheck{Type: msg.Type, Target: msg.Target}
		if f := validateTarget(&t); len(f) > 0 {
			return HealthCheck{}, apierr.Invalid(f...)
		}
		if _, err := h.tenantTarget(ctx, *scope, msg.Type, msg.Target); err != nil {
			return HealthCheck{}, err
		}
	}
	return h.ask(ctx, id, msg)
}

// Delete removes a check; its timer stops and no probe starts after it.
func (h *HealthChecks) Delete(ctx context.Context, id string, scope *string) error {
	if _, err := h.Get(ctx, id, scope); err != nil {
		return err
	}
	_, err := h.ask(ctx, id, &deleteCheck{Scope: scope})
	return err
}

// Get returns one check with its latest result and recent results. With a tenant
// scope, another tenant's check is not found.
func (h *HealthChecks) Get(ctx context.Context, id string, scope *string) (HealthCheck, error) {
	if !validCheckID(id) {
		return HealthCheck{}, apierr.NotFound("health check", id)
	}
	val, err := h.sys.store.Get(ctx, hcKey(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return HealthCheck{}, apierr.NotFound("health check", id)
	}
	if err != nil {
		return HealthCheck{}, err
	}
	var rec HealthCheck
	if _, err := persistence.Decode(val, &rec); err != nil {
		return HealthCheck{}, err
	}
	if !kit.InScope(scope, rec.TenantID) {
		return HealthCheck{}, apierr.NotFound("health check", id)
	}
	return h.current(rec), nil
}

// List returns checks in creation order with their latest result (not the recent
// results); with a tenant (a user's scope, or an operator's filter) only its checks.
func (h *HealthChecks) List(ctx context.Context, tenant *string, cursor string, limit int) ([]HealthCheck, string, error) {
	strip := func(hc HealthCheck) HealthCheck {
		hc.Results = nil
		return hc
	}
	if tenant == nil {
		return kit.ScanPage(ctx, h.sys.store, persistence.Prefix("hc"), cursor, limit, func(r *HealthCheck) (HealthCheck, bool) {
			return strip(h.current(*r)), true
		})
	}
	// The page's records in one read: on a cluster, one request to etcd, not one each.
	return kit.ScanIndexMany(ctx, h.sys.store, persistence.Prefix("hc-tenant", *tenant), cursor, limit, hcKey, func(_ string, val []byte) (HealthCheck, bool, error) {
		var rec HealthCheck
		if _, err := persistence.Decode(val, &rec); err != nil {
			return HealthCheck{}, false, err
		}
		return strip(h.current(rec)), true, nil
	})
}

// current is the stored record overlaid with its entity's live one, when it runs here
// (on a single node; in a cluster the stored record is the latest, see shared).
func (h *HealthChecks) current(stored HealthCheck) HealthCheck {
	if h.shared {
		return stored
	}
	if v, ok := h.live.Load(stored.ID); ok {
		return v.(HealthCheck)
	}
	return stored
}

func (h *HealthChecks) ask(ctx context.Context, id string, msg any) (HealthCheck, error) {
	return kit.Ask[HealthCheck](ctx, h.kind, id, msg)
}

func validCheckID(id string) bool { return id != "" && len(id) <= 64 && !strings.Contains(id, "/") }

// machine checks the machine a check names: it must exist and, for a tenant user, be
// the tenant's own (another tenant's is answered as a missing one).
func (h *HealthChecks) machine(ctx context.Context, id string, scope *string) (string, error) {
	m, err := h.sys.Machines.Get(ctx, id, scope)
	if errors.Is(err, apierr.ErrNotFound) {
		return "", apierr.Invalid(apierr.Field("machine_id", "no machine %s", id))
	}
	if err != nil {
		return "", err
	}
	return m.ID, nil
}

// tenantTarget checks that a tenant's target is a literal IP address of one of the
// tenant's own machines, and returns that machine's id. DNS names are refused: a name
// could resolve anywhere, and the control plane must not become a probe into the
// operator's network.
func (h *HealthChecks) tenantTarget(ctx context.Context, tenant, typ, target string) (string, error) {
	host := checkHost(typ, target)
	addr, err := netip.ParseAddr(host)
	if err != nil || addr.Zone() != "" {
		return "", apierr.Invalid(apierr.Field("target", "must name an IP address of one of your machines (no DNS names)"))
	}
	ms, _, err := h.sys.Machines.ListTenant(ctx, tenant, "", 0)
	if err != nil {
		return "", err
	}
	for _, m := range ms {
		for _, nic := range m.Interfaces {
			for _, ip := range nic.IPAddresses {
				ip, _, _ = strings.Cut(ip, "/")
				if a, err := netip.ParseAddr(ip); err == nil && a.Unmap() == addr.Unmap() {
					return m.ID, nil
				}
			}
		}
	}
	return "", apierr.Invalid(apierr.Field("target", "%s is not an address of one of your machines", host))
}

// checkHost is the host part of a (valid) target.
func checkHost(typ, target string) string {
	if typ == CheckTCP {
		host, _, _ := net.SplitHostPort(target)
		return host
	}
	u, err := url.Parse(target)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// validateCheck checks a whole check's settings.
func validateCheck(hc *HealthCheck) []apierr.FieldError {
	var f []apierr.FieldError
	if n := len([]rune(hc.Name)); n < MinCheckNameLen || n > MaxCheckNameLen {
		f = append(f, apierr.Field("name", "must be %d..%d characters", MinCheckNameLen, MaxCheckNameLen))
	}
	f = append(f, validateTarget(hc)...)
	if hc.IntervalS < MinCheckIntervalS || hc.IntervalS > MaxCheckIntervalS {
		f = append(f, apierr.Field("interval_s", "must be %d..%d", MinCheckIntervalS, MaxCheckIntervalS))
	}
	switch {
	case hc.TimeoutMS < MinCheckTimeoutMS || hc.TimeoutMS > MaxCheckTimeoutMS:
		f = append(f, apierr.Field("timeout_ms", "must be %d..%d", MinCheckTimeoutMS, MaxCheckTimeoutMS))
	case hc.IntervalS >= MinCheckIntervalS && hc.TimeoutMS >= hc.IntervalS*1000:
		f = append(f, apierr.Field("timeout_ms", "must be less than interval_s (%d ms)", hc.IntervalS*1000))
	}
	switch {
	case hc.Type == CheckTCP && hc.ExpectedStatus != 0:
		f = append(f, apierr.Field("expected_status", "applies to http checks only"))
	case hc.ExpectedStatus != 0 && (hc.ExpectedStatus < MinExpectedStatus || hc.ExpectedStatus > MaxExpectedStatus):
		f = append(f, apierr.Field("expected_status", "must be %d..%d, or 0 for any 2xx or 3xx", MinExpectedStatus, MaxExpectedStatus))
	}
	if hc.FailureThreshold < MinFailureThreshold || hc.FailureThreshold > MaxFailureThreshold {
		f = append(f, apierr.Field("failure_threshold", "must be %d..%d", MinFailureThreshold, MaxFailureThreshold))
	}
	return f
}

// validateTarget checks the type and the target's syntax: an http(s) URL, or host:port
// with a numeric port. Names are not resolved here.
func validateTarget(hc *HealthCheck) []apierr.FieldError {
	bad := func(format string, args ...any) []apierr.FieldError {
		return []apierr.FieldError{apierr.Field("target", format, args...)}
	}
	if len(hc.Target) > MaxCheckTargetLen {
		return bad("must be at most %d characters", MaxCheckTargetLen)
	}
	switch hc.Type {
	case CheckHTTP:
		u, err := url.Parse(hc.Target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
			return bad("must be an http:// or https:// URL with a host")
		}
		if !validHost(u.Hostname()) {
			return bad("has no valid host")
		}
		if p := u.Port(); p != "" && !validPort(p) {
			return bad("port must be 1..65535")
		}
	case CheckTCP:
		host, port, err := net.SplitHostPort(hc.Target)
		if err != nil || !validHost(host) {
			return bad("must be host:port (an IPv6 address in brackets)")
		}
		if !validPort(port) {
			return bad("port must be 1..65535")
		}
	default:
		return []apierr.FieldError{apierr.Field("type", "must be http or tcp")}
	}
	return nil
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && strconv.Itoa(n) == p
}

// validHost accepts an IP address or a DNS name (letters, digits, '-', '.').
func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Zone() == ""
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range label {
			if !(c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
	}
	return true
}

// hcEntity owns one check: its record, its timer (in HealthChecks) and its alert.
type hcEntity struct {
	sys *system
	hs  *HealthChecks
	id  string
	rec *HealthCheck
	// savedAt is when the record was last written; dirty that results are unwritten.
	savedAt time.Time
	dirty   bool
	// gen counts configuration changes, so a probe of the old target is not counted.
	gen int
	// alerted says this incarnation has raised the failing episode's alert, cleared
	// that it has resolved it: after a restart each is asserted once more, which
	// repairs an alert change a crash lost.
	alerted, cleared bool
}

func (e *hcEntity) Load() error {
	e.rec, e.dirty, e.alerted, e.cleared = nil, false, false, false
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	val, err := e.sys.store.Get(ctx, hcKey(e.id))
	if errors.Is(err, persistence.ErrNotFound) {
		e.hs.disarm(e.id)
		e.hs.live.Delete(e.id)
		return nil
	}
	if err != nil {
		return err
	}
	var rec HealthCheck
	if _, err := persistence.Decode(val, &rec); err != nil {
		return err
	}
	e.rec, e.savedAt = &rec, e.sys.rt.Clock.Now()
	e.publishLive()
	if rec.Enabled {
		// Spread the first probes of many checks waking together over one interval.
		e.hs.arm(e.id, rand.N(time.Duration(rec.IntervalS)*time.Second))
	}
	return nil
}

func (e *hcEntity) Handle(ctx *kit.Ctx, msg any) {
	switch m := msg.(type) {
	case *createCheck:
		e.create(ctx, m.HC, m.Stamp)
	case *updateCheck:
		e.update(ctx, m)
	case *deleteCheck:
		e.delete(ctx, m)
	case *wakeCheck:
		// Loading armed the timer.
	case *tickCheck:
		e.tick(m)
	case *probeDone:
		e.done(m)
	default:
		if ctx.Answers() {
			ctx.Fail(apierr.New(apierr.ErrInternal, "unexpected message"))
		}
	}
	if e.rec == nil || !e.rec.Enabled {
		// Nothing to run: do not hold memory for a deleted, disabled or unknown check.
		// A disabled check's result still in flight finds it again and is dropped.
		ctx.Passivate(e.rec == nil)
	}
}

func (e *hcEntity) create(ctx *kit.Ctx, hc HealthCheck, st *kit.Stamp) {
	if e.rec != nil {
		ctx.Fail(apierr.New(apierr.ErrConflict, "health check %s exists", e.id))
		return
	}
	if err := e.save(&hc, st, ctx.Audit()); err != nil {
		ctx.Fail(err)
		return
	}
	if hc.Enabled {
		e.hs.arm(e.id, 0)
	}
	ctx.Respond(hc)
}

func (e *hcEntity) update(ctx *kit.Ctx, m *updateCheck) {
	if e.rec == nil || !kit.InScope(m.Scope, e.rec.TenantID) {
		ctx.Fail(apierr.NotFound("health check", e.id))
		return
	}
	prev := e.rec
	next := *prev
	c := m.Change
	if c.Name != nil {
		next.Name = strings.TrimSpace(*c.Name)
	}
	if c.Type != nil {
		next.Type = *c.Type
	}
	if c.Target != nil {
		next.Target = *c.Target
	}
	if c.IntervalS != nil {
		next.IntervalS = *c.IntervalS
	}
	if c.TimeoutMS != nil {
		next.TimeoutMS = *c.TimeoutMS
	}
	if c.ExpectedStatus != nil {
		next.ExpectedStatus = *c.ExpectedStatus
	}
	if c.FailureThreshold != nil {
		next.FailureThreshold = *c.FailureThreshold
	}
	if c.MachineID != nil {
		next.MachineID = c.MachineID
	}
	if c.ClearMachine {
		next.MachineID = nil
	}
	if c.Enabled != nil {
		next.Enabled = *c.Enabled
	}
	if m.Scope != nil && m.Type != "" && (next.Type != m.Type || next.Target != m.Target) {
		ctx.Fail(apierr.New(apierr.ErrConflict, "health check %s changed meanwhile; try again", e.id))
		return
	}
	if f := validateCheck(&next); len(f) > 0 {
		ctx.Fail(apierr.Invalid(f...))
		return
	}
	if c.Type != nil || c.Target != nil {
		// Whoever sets the target decides whether it is held to the tenant's addresses.
		next.TargetScoped = m.Scope != nil
	}
	reprobe := next.Type != prev.Type || next.Target != prev.Target || next.ExpectedStatus != prev.ExpectedStatus
	if reprobe || !next.Enabled {
		// The old results say nothing about the new target, and a disabled check
		// watches nothing.
		next.Last = CheckResult{Status: CheckUnknown}
	} else if next.Last.Status != CheckPassing && next.Last.ConsecutiveFailures >= next.FailureThreshold {
		next.Last.Status = CheckFailing
	}
	next.UpdatedAt = time.Now().UTC()
	if err := e.save(&next, nil, ctx.Audit()); err != nil {
		ctx.Fail(err)
		return
	}
	if reprobe {
		e.gen++
	}
	switch {
	case !next.Enabled:
		e.hs.disarm(e.id)
	case reprobe || !prev.Enabled || next.IntervalS != prev.IntervalS:
		e.hs.arm(e.id, 0)
	}
	e.assertAlert(prev.Last.Status)
	ctx.Respond(next)
}

func (e *hcEntity) delete(ctx *kit.Ctx, m *deleteCheck) {
	if e.rec == nil || !kit.InScope(m.Scope, e.rec.TenantID) {
		ctx.Fail(apierr.NotFound("health check", e.id))
		return
	}
	b := new(persistence.Batch).Del(hcKey(e.id))
	if e.rec.TenantID != nil {
		b.Del(hcTenantKey(*e.rec.TenantID, e.id))
	}
	if err := e.sys.rt.Audit(b, ctx.Audit().On("", e.id, kit.Deref(e.rec.TenantID))); err != nil {
		ctx.Fail(err)
		return
	}
	if err := e.sys.rt.Commit(b); err != nil {
		ctx.Fail(err)
		return
	}
	e.hs.disarm(e.id)
	e.hs.live.Delete(e.id)
	// The check's episode, if any, ends with it.
	e.sys.Alerts.Clear(alerts.AlertHealthCheck, e.id)
	gone := *e.rec
	e.rec = nil
	ctx.Respond(gone)
}

func (e *hcEntity) tick(m *tickCheck) {
	if e.rec == nil || !e.rec.Enabled || !e.hs.take(e.id, m.Gen) {
		return
	}
	e.hs.arm(e.id, time.Duration(e.rec.IntervalS)*time.Second)
	if e.hs.startProbe(e.id, e.gen, e.rec) {
		next := *e.rec
		next.SkippedProbes++
		e.keep(&next, false)
	}
}

func (e *hcEntity) done(m *probeDone) {
	if e.rec == nil || !e.rec.Enabled || m.Gen != e.gen {
		return
	}
	prev := e.rec.Last.Status
	next := *e.rec
	r := m.Result
	at := r.CheckedAt
	next.Last = CheckResult{Status: prev, CheckedAt: &at, LatencyMS: r.LatencyMS, Error: r.Error}
	if r.OK {
		next.Last.Status = CheckPassing
	} else {
		next.Last.ConsecutiveFailures = e.rec.Last.ConsecutiveFailures + 1
		if next.Last.ConsecutiveFailures >= next.FailureThreshold {
			next.Last.Status = CheckFailing
		}
	}
	keep := e.rec.Results[max(len(e.rec.Results)-(CheckResultsKept-1), 0):]
	next.Results = append(slices.Clip(keep), r)
	e.keep(&next, next.Last.Status != prev)
	e.assertAlert(prev)
}

// keep makes next the check's record after a probe (or a skipped one): written now
// when must, in a cluster (shared) or when the stored one is hcPersistEvery old, else
// kept in memory (dirty) for a later write. A failed write keeps it in memory too.
func (e *hcEntity) keep(next *HealthCheck, must bool) {
	if must || e.hs.shared || e.sys.rt.Clock.Since(e.savedAt) >= hcPersistEvery {
		err := e.save(next, nil, nil)
		if err == nil {
			return
		}
		e.sys.log.Warn("health check result not stored", zap.String("check_id", e.id), zap.Error(err))
	}
	e.rec, e.dirty = next, true
	e.publishLive()
}

// assertAlert raises the check's alert when it goes failing and resolves it when it
// stops failing: one alert per failing episode, not one per probe.
func (e *hcEntity) assertAlert(prev string) {
	if e.rec == nil {
		return
	}
	switch {
	case e.rec.Last.Status == CheckFailing && (prev != CheckFailing || !e.alerted):
		why := "no result"
		if e.rec.Last.Error != nil {
			why = *e.rec.Last.Error
		}
		e.sys.Alerts.Notify(alerts.AlertRaise{Kind: alerts.AlertHealthCheck, Severity: alerts.SeverityCritical, TargetType: "health_check",
			TargetID: e.id, TenantID: e.rec.TenantID, MachineID: e.rec.MachineID,
			Message: fmt.Sprintf("health check %q (%s %s) is failing after %d failed probes: %s",
				e.rec.Name, e.rec.Type, e.rec.Target, e.rec.Last.ConsecutiveFailures, why)})
		e.alerted, e.cleared = true, false
	case e.rec.Last.Status != CheckFailing && (prev == CheckFailing || !e.cleared):
		if e.rec.Last.Status == CheckUnknown && prev != CheckFailing {
			// Not yet known either way: nothing to assert.
			return
		}
		e.sys.Alerts.Clear(alerts.AlertHealthCheck, e.id)
		e.alerted, e.cleared = false, true
	}
}

// save writes the record and its tenant index durably and makes it the live one.
// save writes next. st, when set, is the claim of the request's Idempotency-Key: the
// write carries it, with next as its reply. audit, when set, is the entry of the
// request that made the change (nil for a probe's result): it goes in the same batch.
func (e *hcEntity) save(next *HealthCheck, st *kit.Stamp, audit *kit.AuditEntry) error {
	val, err := persistence.Encode(healthCheckVersion, next)
	if err != nil {
		return err
	}
	b := new(persistence.Batch).Put(hcKey(e.id), val)
	if err := st.Carry(b, *next); err != nil {
		return err
	}
	if err := e.sys.rt.Audit(b, audit.On("", e.id, kit.Deref(next.TenantID))); err != nil {
		return err
	}
	if next.TenantID != nil {
		b.Put(hcTenantKey(*next.TenantID, e.id), nil)
	}
	if err := e.sys.rt.Commit(b); err != nil {
		return err
	}
	e.rec, e.savedAt, e.dirty = next, e.sys.rt.Clock.Now(), false
	e.publishLive()
	return nil
}

// publishLive makes the entity's record what reads see (on a single node: in a cluster
// reads see the store's, see shared). Values stored in live are never modified
// afterwards: every change builds a new record and a new results slice.
func (e *hcEntity) publishLive() {
	if e.rec != nil && !e.hs.shared {
		e.hs.live.Store(e.id, *e.rec)
	}
}
