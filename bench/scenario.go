package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/valyala/fasthttp"
)

// Scenarios lists the scenarios Run knows.
func Scenarios() []string { return []string{"health", "read", "power", "write", "login", "mix"} }

// mixable are the scenarios a mix may weigh.
func mixable() []string { return []string{"read", "power", "write", "login", "health"} }

// readOps are the requests of the read scenario, as --read-weights names them.
var readOps = []string{"list", "machine", "overview"}

func knownScenario(name string) bool { return contains(Scenarios(), name) }

// Outcomes: the answers a scenario expects, by kind. Any other answer is an error.
const (
	outcomeOK       = "ok"
	outcomeAccepted = "accepted" // 202: the operation was started
	outcomeConflict = "conflict" // 409: one was in flight, or the state forbids it
	outcomeAllowed  = "allowed"  // the limiter let the request through
	outcomeLimited  = "limited"  // 429
)

// opInfo describes one kind of request: how it is reported and which answers are
// expected of it.
type opInfo struct {
	Name     string
	Scenario string
	Method   string
	Route    string
	expect   map[int]string // status → outcome
}

// A scenario is one workload: what it needs on the server before the run, the
// requests its workers send, and what it removes afterwards.
type scenario interface {
	ops() []opInfo
	// setup creates what the scenario needs and checks, with one request each, that
	// the routes it uses exist.
	setup(ctx context.Context, e *env) error
	// generator builds the request source of one worker, which sends to the target
	// of index tgt (of env.targets); the op indexes it returns start at opBase.
	generator(worker, tgt int, rng *rand.Rand, opBase int) generator
	// cleanup removes what the run created (the env removes what setup created).
	cleanup(ctx context.Context, e *env)
}

// A generator fills one worker's request, over and over. It is used by one goroutine.
type generator interface {
	// init sets what stays the same from one request of this scenario to the next
	// (method, headers); req was reset before.
	init(req *fasthttp.Request)
	// next sets what varies and returns the op index of the request.
	next(req *fasthttp.Request) int
	// done sees the answer of the request next prepared.
	done(op int, resp *fasthttp.Response, err error)
}

func newScenario(o Options, name string) (scenario, error) {
	switch name {
	case "health":
		return &healthScenario{}, nil
	case "read":
		w, err := ParseWeights(o.ReadWeights, readOps)
		if err != nil {
			return nil, err
		}
		return &readScenario{weights: w}, nil
	case "power":
		actions, err := parseActions(o.PowerActions)
		if err != nil {
			return nil, err
		}
		return &powerScenario{actions: actions}, nil
	case "write":
		return &writeScenario{}, nil
	case "login":
		return &loginScenario{}, nil
	case "mix":
		w, err := ParseWeights(o.Mix, mixable())
		if err != nil {
			return nil, err
		}
		m := &mixScenario{}
		for _, x := range w {
			if x.Weight == 0 {
				continue
			}
			sc, err := newScenario(o, x.Name)
			if err != nil {
				return nil, err
			}
			m.subs = append(m.subs, sc)
			m.weights = append(m.weights, x.Weight)
		}
		return m, nil
	}
	return nil, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(Scenarios(), ", "))
}

func statusSet(outcome string, statuses ...int) map[int]string {
	m := make(map[int]string, len(statuses))
	for _, s := range statuses {
		m[s] = outcome
	}
	return m
}

// nopDone is the done of generators that do not look at answers.
type nopDone struct{}

func (nopDone) done(int, *fasthttp.Response, error) {}

// --- health: the trivial route, for comparisons with wrk and a bare server.

type healthScenario struct{ uris [][]byte } // by target

func (*healthScenario) ops() []opInfo {
	return []opInfo{{Name: "health", Scenario: "health", Method: "GET", Route: "/api/health", expect: statusSet(outcomeOK, 200)}}
}

func (s *healthScenario) setup(ctx context.Context, e *env) error {
	s.uris = e.urls("/api/health")
	return nil // reach already asked it
}

func (s *healthScenario) generator(_, tgt int, _ *rand.Rand, opBase int) generator {
	return &healthGen{uri: s.uris[tgt], op: opBase}
}

func (*healthScenario) cleanup(context.Context, *env) {}

type healthGen struct {
	nopDone
	uri []byte
	op  int
}

func (g *healthGen) init(req *fasthttp.Request) {
	req.Header.SetMethod(fasthttp.MethodGet)
	req.SetRequestURIBytes(g.uri)
}

func (g *healthGen) next(*fasthttp.Request) int { return g.op }

// fixedRequest says the request stays as init made it, unless a mix re-inits it
// (a mix's generator does not say so, and its requests are serialised each time).
func (g *healthGen) fixedRequest() bool { return true }

// tenantOf is the tenant a worker acts as, of tenants, when the run has targets
// targets: worker i is the (i / targets)-th of its target (see runner.newWorker), and
// the workers of each target take the tenants in turn. So every target sees every
// tenant (given as many workers), as the members behind a load balancer do, rather
// than tenant k only ever on target k mod targets. With one target: worker i, tenant
// i mod tenants.
func tenantOf(worker, targets, tenants int) int { return (worker / targets) % tenants }

// --- read: a tenant's client area: its machine list, one machine, its overview.

type readScenario struct {
	weights []Weight
	choose  chooser
	tenants [][]readTenant // by target, then tenant
}

type readTenant struct {
	auth           []byte
	list, overview []byte
	machines       [][]byte
}

func (*readScenario) ops() []opInfo {
	ok := statusSet(outcomeOK, 200)
	return []opInfo{
		{Name: "read.list", Scenario: "read", Method: "GET", Route: "/api/client/machines", expect: ok},
		{Name: "read.machine", Scenario: "read", Method: "GET", Route: "/api/resources/machines/{id}", expect: ok},
		{Name: "read.overview", Scenario: "read", Method: "GET", Route: "/api/client/overview", expect: ok},
	}
}

func (s *readScenario) setup(ctx context.Context, e *env) error {
	if err := e.ensureTenants(ctx, "read"); err != nil {
		return err
	}
	weights := make([]int, len(s.weights))
	for i, w := range s.weights {
		weights[i] = w.Weight
	}
	if e.o.Machines == 0 && weights[1] > 0 {
		weights[1] = 0
		e.hint("read: --machines 0 leaves no machine to read; the machine request is left out")
		if weights[0]+weights[2] == 0 {
			return fmt.Errorf("scenario read: with --machines 0 only the machine request was weighed; weigh list or overview too")
		}
	}
	s.choose = newChooser(weights)
	s.tenants = make([][]readTenant, len(e.targets))
	for k, tg := range e.targets {
		for _, t := range e.tenants {
			rt := readTenant{auth: t.auth, list: []byte(tg.url("/api/client/machines")), overview: []byte(tg.url("/api/client/overview"))}
			for _, id := range t.machines {
				rt.machines = append(rt.machines, []byte(tg.url("/api/resources/machines/"+id)))
			}
			s.tenants[k] = append(s.tenants[k], rt)
		}
	}
	// One request of each kind: the routes exist and answer this tenant.
	t := e.tenants[0]
	probes := []struct{ route, path string }{{"/api/client/machines", "/api/client/machines"}, {"/api/client/overview", "/api/client/overview"}}
	if len(t.machines) > 0 {
		probes = append(probes, struct{ route, path string }{"/api/resources/machines/{id}", "/api/resources/machines/" + t.machines[0]})
	}
	for _, p := range probes {
		if _, err := e.as(ctx, t.user, "GET", p.path, nil, nil, fasthttp.StatusOK); err != nil {
			return routeMissing("read", "GET", p.route, err)
		}
	}
	return nil
}

func (s *readScenario) generator(worker, tgt int, rng *rand.Rand, opBase int) generator {
	ts := s.tenants[tgt]
	return &readGen{t: ts[tenantOf(worker, len(s.tenants), len(ts))], choose: s.choose, rng: rng, opBase: opBase}
}

func (*readScenario) cleanup(context.Context, *env) {}

type readGen struct {
	nopDone
	t      readTenant
	choose chooser
	rng    *rand.Rand
	opBase int
}

func (g *readGen) init(req *fasthttp.Request) {
	req.Header.SetMethod(fasthttp.MethodGet)
	req.Header.SetBytesV("Authorization", g.t.auth)
}

func (g *readGen) next(req *fasthttp.Request) int {
	r := g.rng.Uint64()
	k := g.choose.pick(r)
	switch k {
	case 0:
		req.SetRequestURIBytes(g.t.list)
	case 1:
		req.SetRequestURIBytes(g.t.machines[(r>>32)%uint64(len(g.t.machines))])
	default:
		req.SetRequestURIBytes(g.t.overview)
	}
	return g.opBase + k
}

// --- power: an operator's power actions spread over many machines.

type powerScenario struct {
	actions []string
	uris    [][][]byte // by target, then machine-major: uris[tgt][m*len(actions)+a]
	auth    []byte
}

func (s *powerScenario) ops() []opInfo {
	out := make([]opInfo, len(s.actions))
	for i, a := range s.actions {
		out[i] = opInfo{Name: "power." + a, Scenario: "power", Method: "POST", Route: "/api/virt/vms/{id}/actions/" + a,
			expect: map[int]string{202: outcomeAccepted, 409: outcomeConflict}}
	}
	return out
}

func (s *powerScenario) setup(ctx context.Context, e *env) error {
	if err := e.loginAdmin(ctx); err != nil {
		return err
	}
	ids, err := s.listMachines(ctx, e)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		// A fresh server knows its hypervisor's machines only after a sync.
		if _, err := e.as(ctx, e.admin, "POST", "/api/virt/sync", nil, nil, fasthttp.StatusOK); err != nil {
			return routeMissing("power", "POST", "/api/virt/sync", err)
		}
		if ids, err = s.listMachines(ctx, e); err != nil {
			return err
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("scenario power needs machines, and GET /api/virt/vms lists none")
	}
	e.mu.Lock()
	e.setup.PowerTargets = len(ids)
	e.mu.Unlock()
	s.uris = make([][][]byte, len(e.targets))
	for k, tg := range e.targets {
		for _, id := range ids {
			for _, a := range s.actions {
				s.uris[k] = append(s.uris[k], []byte(tg.url("/api/virt/vms/"+id+"/actions/"+a)))
			}
		}
	}
	s.auth = []byte("Bearer " + e.admin.bearer())
	path := "/api/virt/vms/" + ids[0] + "/actions/" + s.actions[0]
	if _, err := e.as(ctx, e.admin, "POST", path, nil, nil, fasthttp.StatusAccepted, fasthttp.StatusConflict); err != nil {
		return routeMissing("power", "POST", "/api/virt/vms/{id}/actions/{action}", err)
	}
	return nil
}

func (s *powerScenario) listMachines(ctx context.Context, e *env) ([]string, error) {
	var ids []string
	cursor := ""
	for page := 0; page < 1000 && len(ids) < e.o.PowerMachines; page++ {
		var p struct {
			Items []struct {
				ID string `json:"id"`
			} `json:"items"`
			NextCursor *string `json:"next_cursor"`
		}
		path := "/api/virt/vms?limit=500"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		if _, err := e.as(ctx, e.admin, "GET", path, nil, &p, fasthttp.StatusOK); err != nil {
			return nil, routeMissing("power", "GET", "/api/virt/vms", err)
		}
		for _, m := range p.Items {
			if len(ids) < e.o.PowerMachines {
				ids = append(ids, m.ID)
			}
		}
		if p.NextCursor == nil || *p.NextCursor == "" {
			break
		}
		cursor = *p.NextCursor
	}
	return ids, nil
}

func (s *powerScenario) generator(_, tgt int, rng *rand.Rand, opBase int) generator {
	return &powerGen{auth: s.auth, uris: s.uris[tgt], actions: len(s.actions), rng: rng, opBase: opBase}
}

func (*powerScenario) cleanup(context.Context, *env) {}

type powerGen struct {
	nopDone
	auth    []byte
	uris    [][]byte // the worker's target's
	actions int
	rng     *rand.Rand
	opBase  int
}

func (g *powerGen) init(req *fasthttp.Request) {
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetBytesV("Authorization", g.auth)
}

func (g *powerGen) next(req *fasthttp.Request) int {
	i := int(g.rng.Uint64() % uint64(len(g.uris)))
	req.SetRequestURIBytes(g.uris[i])
	return g.opBase + i%g.actions
}

// --- write: durable writes, a tenant's firewall rules.

type writeScenario struct {
	uris    [][]byte // by target
	tenants []writeTenant

	mu   sync.Mutex
	gens []*writeGen
}

type writeTenant struct {
	t      *tenant
	bodies [][]byte
}

// writeBodies is how many different rules each tenant's workers cycle through.
const writeBodies = 64

// writeWindow is how many of its rules a write worker keeps: once it holds that many,
// it deletes its newest before it creates the next. A tenant's rule set then stays
// the size a real one has (workers per tenant × writeWindow), instead of growing for
// as long as the run lasts, and every write costs the same from start to end. The
// newest, not the oldest: rules are numbered by position, and deleting one moves
// every rule after it, so deleting from the front would make each delete rewrite the
// whole set.
const writeWindow = 16

func (*writeScenario) ops() []opInfo {
	return []opInfo{
		{Name: "write.rule", Scenario: "write", Method: "POST", Route: "/api/client/firewall/rules", expect: statusSet(outcomeOK, 201)},
		{Name: "write.delete", Scenario: "write", Method: "DELETE", Route: "/api/client/firewall/rules/{id}", expect: statusSet(outcomeOK, 204)},
	}
}

// ruleBody is a firewall rule as POST /api/client/firewall/rules takes it.
type ruleBody struct {
	Direction string  `json:"direction"`
	Action    string  `json:"action"`
	Protocol  string  `json:"protocol"`
	Port      string  `json:"port"`
	Source    string  `json:"source"`
	Enabled   bool    `json:"enabled"`
	Comment   string  `json:"comment"`
	MachineID *string `json:"machine_id"`
}

func (s *writeScenario) setup(ctx context.Context, e *env) error {
	if err := e.ensureTenants(ctx, "write"); err != nil {
		return err
	}
	s.uris = e.urls("/api/client/firewall/rules")
	for _, t := range e.tenants {
		wt := writeTenant{t: t}
		for k := range writeBodies {
			r := ruleBody{Direction: "in", Action: "accept", Protocol: "tcp", Port: fmt.Sprint(1024 + k),
				Source: fmt.Sprintf("10.%d.%d.0/24", k/256, k%256), Enabled: true, Comment: "vmplane-bench " + e.runID}
			if len(t.machines) > 0 {
				r.MachineID = &t.machines[k%len(t.machines)]
			}
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			wt.bodies = append(wt.bodies, b)
		}
		s.tenants = append(s.tenants, wt)
	}
	// One rule written and deleted: both routes exist.
	t := e.tenants[0]
	var rule struct {
		ID string `json:"id"`
	}
	if _, err := e.as(ctx, t.user, "POST", "/api/client/firewall/rules", json.RawMessage(s.tenants[0].bodies[0]), &rule, fasthttp.StatusCreated); err != nil {
		return routeMissing("write", "POST", "/api/client/firewall/rules", err)
	}
	if _, err := e.as(ctx, t.user, "DELETE", "/api/client/firewall/rules/"+rule.ID, nil, nil); err != nil {
		return routeMissing("write", "DELETE", "/api/client/firewall/rules/{id}", err)
	}
	return nil
}

func (s *writeScenario) generator(worker, tgt int, rng *rand.Rand, opBase int) generator {
	k := tenantOf(worker, len(s.uris), len(s.tenants))
	g := &writeGen{uri: s.uris[tgt], tenant: k, wt: s.tenants[k], rng: rng, op: opBase}
	g.deleteURI = append(append([]byte(nil), g.uri...), '/')
	s.mu.Lock()
	s.gens = append(s.gens, g)
	s.mu.Unlock()
	return g
}

// cleanup deletes every rule the run created.
func (s *writeScenario) cleanup(ctx context.Context, e *env) {
	type rule struct {
		t  *tenant
		id string
	}
	var rules []rule
	for _, g := range s.gens {
		for _, id := range g.created {
			rules = append(rules, rule{g.wt.t, id})
		}
	}
	_ = parallel(ctx, len(rules), 32, func(ctx context.Context, i int) error {
		if _, err := e.as(ctx, rules[i].t.user, "DELETE", "/api/client/firewall/rules/"+rules[i].id, nil, nil); err != nil {
			e.cleanupFailed(err)
			return nil
		}
		e.deleted("firewall_rules", 1)
		return nil
	})
}

type writeGen struct {
	uri       []byte
	deleteURI []byte // uri + "/", the rule id goes after it
	tenant    int
	wt        writeTenant
	rng       *rand.Rand
	op        int
	// created are the worker's rules, oldest first: the run deletes from the end, the
	// cleanup the rest. A rule leaves it once its delete is answered, so one whose
	// delete was never sent (the run ended) is still deleted by the cleanup.
	created []string
}

func (g *writeGen) init(req *fasthttp.Request) {
	req.Header.SetBytesV("Authorization", g.wt.t.auth)
	req.Header.SetContentType("application/json")
}

func (g *writeGen) next(req *fasthttp.Request) int {
	if len(g.created) >= writeWindow {
		req.Header.SetMethod(fasthttp.MethodDelete)
		req.SetRequestURIBytes(append(g.deleteURI, g.created[len(g.created)-1]...))
		req.SetBodyRaw(nil)
		return g.op + 1
	}
	req.Header.SetMethod(fasthttp.MethodPost)
	req.SetRequestURIBytes(g.uri)
	req.SetBodyRaw(g.wt.bodies[g.rng.Uint64()%uint64(len(g.wt.bodies))])
	return g.op
}

// done keeps the id of each created rule and forgets each deleted one; a rule whose
// delete failed stays, to be deleted again by the run or the cleanup.
func (g *writeGen) done(op int, resp *fasthttp.Response, err error) {
	if op == g.op+1 {
		if err == nil && (resp.StatusCode() == fasthttp.StatusNoContent || resp.StatusCode() == fasthttp.StatusNotFound) {
			g.created = g.created[:len(g.created)-1]
		}
		return
	}
	if err != nil || resp.StatusCode() != fasthttp.StatusCreated {
		return
	}
	if id := jsonID(resp.Body()); id != nil {
		g.created = append(g.created, string(id))
	}
}

// jsonID is the first "id" string of a JSON object, found without decoding it.
func jsonID(body []byte) []byte {
	const key = `"id":"`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return nil
	}
	rest := body[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j <= 0 {
		return nil
	}
	return rest[:j]
}

// --- login: a login storm from one address, which the auth limit should meet.

type loginScenario struct {
	uris   [][]byte // by target
	bodies [][]byte
}

func (*loginScenario) ops() []opInfo {
	return []opInfo{{Name: "login", Scenario: "login", Method: "POST", Route: "/api/auth/login",
		expect: map[int]string{200: outcomeAllowed, 401: outcomeAllowed, 429: outcomeLimited}}}
}

func (s *loginScenario) setup(ctx context.Context, e *env) error {
	s.uris = e.urls("/api/auth/login")
	type creds struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if e.o.LoginEmail != "" {
		b, _ := json.Marshal(creds{e.o.LoginEmail, e.o.LoginPassword})
		s.bodies = [][]byte{b}
	} else {
		// Unknown addresses and a wrong password: the server does the same password
		// work as for a real account, and no real account gets locked.
		for k := range e.o.LoginEmails {
			b, _ := json.Marshal(creds{fmt.Sprintf("nobody-%s-%d@bench.invalid", e.runID, k), "wrong-" + e.runID})
			s.bodies = append(s.bodies, b)
		}
	}
	_, err := e.api.call(ctx, "POST", "/api/auth/login", "", json.RawMessage(s.bodies[0]), nil,
		fasthttp.StatusOK, fasthttp.StatusUnauthorized, fasthttp.StatusTooManyRequests)
	if err != nil {
		return routeMissing("login", "POST", "/api/auth/login", err)
	}
	return nil
}

func (s *loginScenario) generator(worker, tgt int, _ *rand.Rand, opBase int) generator {
	return &loginGen{uri: s.uris[tgt], bodies: s.bodies, i: worker, op: opBase}
}

func (*loginScenario) cleanup(context.Context, *env) {}

type loginGen struct {
	nopDone
	uri    []byte
	bodies [][]byte
	i      int
	op     int
}

func (g *loginGen) init(req *fasthttp.Request) {
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	req.SetRequestURIBytes(g.uri)
}

func (g *loginGen) next(req *fasthttp.Request) int {
	g.i++
	req.SetBodyRaw(g.bodies[g.i%len(g.bodies)])
	return g.op
}

// --- mix: a weighted combination of the others.

type mixScenario struct {
	subs    []scenario
	weights []int
}

func (m *mixScenario) ops() []opInfo {
	var out []opInfo
	for _, s := range m.subs {
		out = append(out, s.ops()...)
	}
	return out
}

func (m *mixScenario) setup(ctx context.Context, e *env) error {
	for _, s := range m.subs {
		if err := s.setup(ctx, e); err != nil {
			return err
		}
	}
	return nil
}

func (m *mixScenario) generator(worker, tgt int, rng *rand.Rand, opBase int) generator {
	g := &mixGen{choose: newChooser(m.weights), rng: rng, last: -1}
	for _, s := range m.subs {
		g.subs = append(g.subs, s.generator(worker, tgt, rng, opBase))
		opBase += len(s.ops())
	}
	return g
}

func (m *mixScenario) cleanup(ctx context.Context, e *env) {
	for _, s := range m.subs {
		s.cleanup(ctx, e)
	}
}

type mixGen struct {
	subs   []generator
	choose chooser
	rng    *rand.Rand
	last   int
}

func (g *mixGen) init(*fasthttp.Request) {}

func (g *mixGen) next(req *fasthttp.Request) int {
	k := g.choose.pick(g.rng.Uint64())
	if k != g.last {
		req.Reset()
		g.subs[k].init(req)
		g.last = k
	}
	return g.subs[k].next(req)
}

func (g *mixGen) done(op int, resp *fasthttp.Response, err error) {
	g.subs[g.last].done(op, resp, err)
}
