package app_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vmplane/vmplane/internal/testwait"
)

// The load of TestUpgradeMixedVersionCluster: a load balancer in front of the members
// and the tenants' clients behind it, with what each was told was done.

// Credentials of the cluster's first admin and of the tenants' users.
const (
	upgradeAdminEmail    = "admin@upgrade.test"
	upgradeAdminPassword = "upgrade-admin-password"
	upgradeUserPassword  = "upgrade-user-password"
)

// upgradeAnswerWithin bounds one request through the balancer, its tries on other
// members included: a member's lease is 3 s, so a request for an entity of a member
// that stopped is answered within seconds.
const upgradeAnswerWithin = 45 * time.Second

// balancer sends each request to the next member in turn, as a load balancer in
// front of the cluster does, and tries another member only where a load balancer (or
// a client holding an Idempotency-Key) may: after a refused connection (nothing was
// sent), a 409 saying a member runs an older version, and, for a request with a key,
// a 409 saying its first try is still in progress or a connection cut without an
// answer. It counts those tries, and records every 5xx and every request it could not
// get answered. No 5xx is let through: a member stopping with SIGTERM hands its
// entities over and answers what it was forwarded before it leaves, so a roll answers
// no 504 "the request may have taken effect" (releases up to 2b9d364 did).
type balancer struct {
	client *http.Client

	mu      sync.Mutex
	pool    []*upgradeMember
	next    int
	retried map[string]int // why a request was sent again (or a client went on otherwise), and how often
	sent    map[string]int // requests answered, by the release of the member that answered
	errs    []string       // 5xx answers and requests left without an answer
}

func newBalancer() *balancer {
	return &balancer{
		client:  &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}},
		retried: map[string]int{}, sent: map[string]int{},
	}
}

func (b *balancer) add(m *upgradeMember) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pool = append(b.pool, m)
}

func (b *balancer) remove(m *upgradeMember) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pool = slices.DeleteFunc(b.pool, func(p *upgradeMember) bool { return p == m })
}

// members are the members the balancer sends to.
func (b *balancer) members() []*upgradeMember {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.pool)
}

func (b *balancer) pick() *upgradeMember {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pool) == 0 {
		return nil
	}
	b.next++
	return b.pool[b.next%len(b.pool)]
}

func (b *balancer) count(why string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.retried[why]++
}

func (b *balancer) fail(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errs = append(b.errs, fmt.Sprintf(format, args...))
}

// report fails the test with every 5xx and unanswered request, and logs the retries.
func (b *balancer) report(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	t.Logf("answered requests by the release that answered them: %v; what the clients met and got past: %v", b.sent, b.retried)
	for i, e := range b.errs {
		if i == 20 {
			t.Errorf("... and %d more", len(b.errs)-i)
			break
		}
		t.Errorf("through the balancer: %s", e)
	}
}

// call is one request as a client makes it.
type call struct {
	method, path, token string
	body                any    // JSON
	key                 string // Idempotency-Key, for a POST
	// again marks a request without a key that is harmless to apply twice, which the
	// balancer may send again after a connection cut short (a login: a second one
	// is another session).
	again bool
}

// answer is an HTTP answer read whole, with the member that gave it.
type answer struct {
	status int
	header http.Header
	body   []byte
	member *upgradeMember
}

func (a *answer) decode(v any) error {
	if err := json.Unmarshal(a.body, v); err != nil {
		return fmt.Errorf("decoding %s from %s: %w", a.body, a.member.name, err)
	}
	return nil
}

// want returns nil when a has status, else an error naming the request and answer.
func (a *answer) want(c call, status int) error {
	if a.status == status {
		return nil
	}
	return fmt.Errorf("%s %s on %s (%s): got %d %s; want %d", c.method, c.path, a.member.name, a.member.release, a.status, a.body, status)
}

// do sends c through the balancer until a member answers it for good (see balancer),
// or fails after upgradeAnswerWithin.
func (b *balancer) do(c call) (*answer, error) {
	// GETs, POSTs with a key and logins may be sent again after a connection cut
	// short: anything else is sent again only when the member refused the connection.
	replayable := c.method == "GET" || c.key != "" || c.again
	var (
		got  *answer
		err  error
		last = "no member to send to"
	)
	testwait.Poll(upgradeAnswerWithin, func() bool {
		m := b.pick()
		if m == nil {
			return false
		}
		a, sendErr := b.send(m, c, !replayable)
		switch {
		case errors.Is(sendErr, syscall.ECONNREFUSED):
			b.count("connection refused")
			last = sendErr.Error()
			return false
		case sendErr != nil && replayable:
			b.count("connection cut without an answer")
			if errors.Is(sendErr, errTimeout) {
				b.fail("%s %s on %s (%s): no answer in %s", c.method, c.path, m.name, m.release, b.client.Timeout)
			}
			last = sendErr.Error()
			return false
		case sendErr != nil:
			err = fmt.Errorf("%s %s on %s (%s): %w (not sent again: it may have been applied)", c.method, c.path, m.name, m.release, sendErr)
			b.fail("%v", err)
			return true
		case a.status == http.StatusConflict && bytes.Contains(a.body, []byte("older version")):
			b.count("409 a member runs an older version")
			last = fmt.Sprintf("409 %s from %s", a.body, m.name)
			return false
		case a.status == http.StatusConflict && c.key != "" && a.header.Get("Retry-After") != "":
			b.count("409 the first try is still in progress")
			last = fmt.Sprintf("409 %s from %s", a.body, m.name)
			return false
		case a.status >= 500:
			b.fail("%s %s on %s (%s): %d %s", c.method, c.path, m.name, m.release, a.status, a.body)
			if replayable {
				// Recorded as a failure; sent again so that the run goes on and
				// shows every 5xx of the roll, not only the first.
				last = fmt.Sprintf("%d %s from %s", a.status, a.body, m.name)
				return false
			}
		}
		b.mu.Lock()
		b.sent[m.release]++
		b.mu.Unlock()
		got = a
		return true
	})
	if got == nil && err == nil {
		err = fmt.Errorf("%s %s: no answer through the members in %s (last: %s)", c.method, c.path, upgradeAnswerWithin, last)
		b.fail("%v", err)
	}
	return got, err
}

// errTimeout is the client's own timeout of one try.
var errTimeout = errors.New("timeout")

// send sends c to m once. fresh sends it on a connection of its own, so that a
// request that must not be sent twice never meets a kept-alive connection the member
// is closing (which would leave it unknown whether the member read it).
func (b *balancer) send(m *upgradeMember, c call, fresh bool) (*answer, error) {
	var body io.Reader
	if c.body != nil {
		raw, err := json.Marshal(c.body)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(raw)
	}
	hr, err := http.NewRequest(c.method, m.base+c.path, body)
	if err != nil {
		return nil, err
	}
	hr.Close = fresh
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		hr.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.key != "" {
		hr.Header.Set("Idempotency-Key", c.key)
	}
	res, err := b.client.Do(hr)
	if err != nil {
		var ne interface{ Timeout() bool }
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, fmt.Errorf("%w: %w", errTimeout, err)
		}
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	return &answer{status: res.StatusCode, header: res.Header, body: raw, member: m}, nil
}

// doAt sends c to m alone, once: the reads that check what one member serves.
func (b *balancer) doAt(m *upgradeMember, c call) (*answer, error) {
	a, err := b.send(m, c, false)
	if err != nil {
		return nil, fmt.Errorf("%s %s on %s: %w", c.method, c.path, m.name, err)
	}
	if a.status >= 500 {
		b.fail("%s %s on %s (%s): %d %s", c.method, c.path, m.name, m.release, a.status, a.body)
	}
	return a, nil
}

// upgradeWorkload is the tenants and their clients.
type upgradeWorkload struct {
	t       *testing.T
	lb      *balancer
	admin   string
	tenants []*loadTenant

	stopping chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup

	mu   sync.Mutex
	errs []error // what made a client give up
}

// loadTenant is one tenant, its user's session and what it was acknowledged.
type loadTenant struct {
	name, id, email string
	seq             atomic.Int64 // numbers the Idempotency-Keys
	acks            atomic.Int64 // writes acknowledged

	mu      sync.Mutex
	token   string // access token, renewed by the refreshes
	refresh string // the refresh token the next refresh spends
	// kept is a refresh token from a login on a member of the previous release,
	// spent only after the roll.
	kept  string
	rules []ackedRule

	// Written by the tenant's operations worker alone, read after it stopped.
	creates  int // machine creates sent, which name the machines
	machines []*ackedMachine
	powers   []ackedPower
	backups  []ackedBackup
	checks   []ackedCheck
	tasks    []string
}

type ackedRule struct{ id, key, port string }

type ackedMachine struct {
	id, name, ip string
	status       string // after its last task
	cpus         int
	// history is each operation sent and how it ended, for a failure's message.
	history []string
}

// noted adds an operation's end to the machine's history.
func (m *ackedMachine) noted(format string, args ...any) {
	m.history = append(m.history, time.Now().UTC().Format("15:04:05.000")+" "+fmt.Sprintf(format, args...))
}

type ackedPower struct{ id, machine, action, cron string }

type ackedBackup struct {
	id, machine, cron string
	retention         int
}

type ackedCheck struct{ id, name, target string }

func newUpgradeWorkload(t *testing.T, lb *balancer, tenants int) *upgradeWorkload {
	w := &upgradeWorkload{t: t, lb: lb, stopping: make(chan struct{})}
	for i := range tenants {
		name := fmt.Sprintf("Upgrade %c", 'A'+i)
		w.tenants = append(w.tenants, &loadTenant{name: name, email: fmt.Sprintf("upgrade-%c@upgrade.test", 'a'+i)})
	}
	return w
}

// setUp signs the admin in, has the cluster synced, and creates the tenants and their
// users. Each user signs in twice: once on old, a member of the previous release, for
// the refresh token kept for after the roll, and once through the balancer for the
// session its clients use.
func (w *upgradeWorkload) setUp(old *upgradeMember) {
	t := w.t
	t.Helper()
	must := func(a *answer, err error, c call, status int) *answer {
		t.Helper()
		if err == nil {
			err = a.want(c, status)
		}
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	do := func(c call, status int) *answer {
		t.Helper()
		a, err := w.lb.do(c)
		return must(a, err, c, status)
	}
	var pair struct {
		Token        string `json:"token"`
		RefreshToken string `json:"refresh_token"`
	}
	login := call{method: "POST", path: "/api/auth/login", body: map[string]string{"email": upgradeAdminEmail, "password": upgradeAdminPassword}, again: true}
	if err := do(login, 200).decode(&pair); err != nil {
		t.Fatal(err)
	}
	w.admin = pair.Token
	do(call{method: "POST", path: "/api/virt/sync", token: w.admin, key: "upgrade-sync"}, 200)
	for _, ten := range w.tenants {
		var rec struct{ ID string }
		if err := do(call{method: "POST", path: "/api/resources/tenants", token: w.admin, key: "tenant-" + ten.email,
			body: map[string]any{"name": ten.name}}, 201).decode(&rec); err != nil {
			t.Fatal(err)
		}
		ten.id = rec.ID
		do(call{method: "POST", path: "/api/resources/users", token: w.admin, key: "user-" + ten.email, body: map[string]any{
			"email": ten.email, "name": ten.name + " user", "role": "user", "password": upgradeUserPassword, "tenant_id": ten.id}}, 201)
		login := call{method: "POST", path: "/api/auth/login", body: map[string]string{"email": ten.email, "password": upgradeUserPassword}, again: true}
		a, err := w.lb.doAt(old, login)
		if err := must(a, err, login, 200).decode(&pair); err != nil {
			t.Fatal(err)
		}
		ten.kept = pair.RefreshToken
		if err := do(login, 200).decode(&pair); err != nil {
			t.Fatal(err)
		}
		ten.token, ten.refresh = pair.Token, pair.RefreshToken
	}
}

// run starts two clients per tenant: one creating firewall rules one after another,
// one working its machines, schedules, checks and session.
func (w *upgradeWorkload) run() {
	for _, ten := range w.tenants {
		for _, work := range []func(*loadTenant) error{w.createRules, w.operate} {
			w.wg.Add(1)
			go func() {
				defer w.wg.Done()
				if err := work(ten); err != nil {
					w.mu.Lock()
					w.errs = append(w.errs, fmt.Errorf("%s: %w", ten.name, err))
					w.mu.Unlock()
				}
			}()
		}
	}
}

// stop ends the clients and waits for them; each finishes what it was doing (a task
// it waits for included), so that every write it was told about is recorded.
func (w *upgradeWorkload) stop() {
	w.stopOnce.Do(func() { close(w.stopping) })
	w.wg.Wait()
}

func (w *upgradeWorkload) stopped() bool {
	select {
	case <-w.stopping:
		return true
	default:
		return false
	}
}

// failures are the errors that made clients give up.
func (w *upgradeWorkload) failures() []error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.errs)
}

// waitProgress waits until every tenant had n more writes acknowledged, and fails the
// test at once when a client gave up.
func (w *upgradeWorkload) waitProgress(what string, n int64) {
	t := w.t
	t.Helper()
	from := make([]int64, len(w.tenants))
	for i, ten := range w.tenants {
		from[i] = ten.acks.Load()
	}
	done := func() bool {
		for i, ten := range w.tenants {
			if ten.acks.Load() < from[i]+n {
				return false
			}
		}
		return true
	}
	ok := testwait.Poll(2*upgradeAnswerWithin, func() bool { return len(w.failures()) > 0 || done() })
	if errs := w.failures(); len(errs) > 0 {
		t.Fatalf("%s: a client gave up: %v", what, errors.Join(errs...))
	}
	if !ok {
		var got []string
		for i, ten := range w.tenants {
			got = append(got, fmt.Sprintf("%s %d", ten.name, ten.acks.Load()-from[i]))
		}
		t.Fatalf("%s: waited %s for %d more acknowledged writes of every tenant; got %s", what, 2*upgradeAnswerWithin, n, strings.Join(got, ", "))
	}
}

func (ten *loadTenant) session() string {
	ten.mu.Lock()
	defer ten.mu.Unlock()
	return ten.token
}

// nextKey is a new Idempotency-Key for a request of what: keyPrefix and a number.
func (ten *loadTenant) nextKey(what string) string {
	return fmt.Sprintf("%s%d", ten.keyPrefix(what), ten.seq.Add(1))
}

// keyPrefix begins the tenant's keys for requests of what ("rule": also the comment of
// each of its rules, which tells its rules apart from other tenants').
func (ten *loadTenant) keyPrefix(what string) string {
	return fmt.Sprintf("%s-%s-", strings.ReplaceAll(strings.ToLower(ten.name), " ", "-"), what)
}

// ruleBody is the body of the rule created with key: the same for every try of it.
func ruleBody(key string) map[string]any {
	port := fmt.Sprint(1024 + crc32.ChecksumIEEE([]byte(key))%60000)
	return map[string]any{"direction": "in", "action": "accept", "protocol": "tcp", "port": port, "comment": key}
}

// createRules creates firewall rules one after another until the workload stops.
func (w *upgradeWorkload) createRules(ten *loadTenant) error {
	for !w.stopped() {
		key := ten.nextKey("rule")
		c := call{method: "POST", path: "/api/client/firewall/rules", token: ten.session(), key: key, body: ruleBody(key)}
		a, err := w.lb.do(c)
		if err == nil {
			err = a.want(c, 201)
		}
		var rule struct{ ID string }
		if err == nil {
			err = a.decode(&rule)
		}
		if err != nil {
			return err
		}
		ten.mu.Lock()
		ten.rules = append(ten.rules, ackedRule{id: rule.ID, key: key, port: ruleBody(key)["port"].(string)})
		ten.mu.Unlock()
		ten.acks.Add(1)
	}
	return nil
}

// operate works the tenant's machines in a round of steps until the workload stops:
// create a machine (two in all), stop or start one, resize one, give it a power
// schedule, a backup schedule and a health check, renew the session. Each step waits
// for its task, so that one client never has two operations on a machine at once.
func (w *upgradeWorkload) operate(ten *loadTenant) error {
	steps := []func(*loadTenant, int) error{w.createMachine, w.togglePower, w.resize, w.addPowerSchedule, w.addBackupSchedule, w.addCheck, w.renew}
	for round := 0; !w.stopped(); round++ {
		for _, step := range steps {
			if err := step(ten, round); err != nil {
				return err
			}
			ten.acks.Add(1)
		}
	}
	return nil
}

// post sends a POST with a fresh key and returns its answer when it has status.
func (w *upgradeWorkload) post(ten *loadTenant, path string, body any, status int, into any) error {
	c := call{method: "POST", path: path, token: ten.session(), key: ten.nextKey("op"), body: body}
	a, err := w.lb.do(c)
	if err == nil {
		err = a.want(c, status)
	}
	if err == nil && into != nil {
		err = a.decode(into)
	}
	return err
}

// taskAnswer is a 202's body: the task, and for a create the machine.
type taskAnswer struct {
	Machine struct{ ID string } `json:"machine"`
	Task    struct{ ID string } `json:"task"`
}

// errInterrupted is a task that failed because the member running it stopped: a
// graceful stop cancels the hypervisor work in flight, and the member that takes the
// machine over settles the task from what the hypervisor shows, failed when that
// cannot tell the operation happened (a resize, a reboot, a create). That is the
// API's documented outcome (docs/routes.md, machine states); the client looks at the
// machine and goes on from there.
var errInterrupted = errors.New("task failed: its member stopped while it ran")

// interruptedBy is the start of a task's error when its member stopped while it ran.
const interruptedBy = "unavailable: vmplane restarted while this task ran"

// waitTask follows a task through the balancer until it ends, and wants it succeeded
// (or failed by a member's stop: errInterrupted).
func (w *upgradeWorkload) waitTask(ten *loadTenant, id string) error {
	var (
		last struct {
			Status string  `json:"status"`
			Error  *string `json:"error"`
		}
		err error
	)
	testwait.Poll(2*upgradeAnswerWithin, func() bool {
		c := call{method: "GET", path: "/api/tasks/" + id, token: ten.session()}
		var a *answer
		if a, err = w.lb.do(c); err == nil {
			err = a.want(c, 200)
		}
		if err == nil {
			err = a.decode(&last)
		}
		return err != nil || last.Status == "succeeded" || last.Status == "failed"
	})
	switch {
	case err != nil:
		return err
	case last.Status == "failed" && last.Error != nil && strings.HasPrefix(*last.Error, interruptedBy):
		w.lb.count("a task failed by the stop of the member running it")
		return fmt.Errorf("task %s: %w", id, errInterrupted)
	case last.Status != "succeeded":
		why := "none"
		if last.Error != nil {
			why = *last.Error
		}
		return fmt.Errorf("task %s is %q (error: %s); want succeeded", id, last.Status, why)
	}
	ten.tasks = append(ten.tasks, id)
	return nil
}

// machineView is what the test reads of a machine.
type machineView struct {
	ID         string  `json:"id"`
	Name       string  `json:"name"`
	Status     string  `json:"status"`
	CPUCores   int     `json:"cpu_cores"`
	TaskID     *string `json:"task_id"`
	Interfaces []struct {
		IPAddresses []string `json:"ip_addresses"`
	} `json:"interfaces"`
}

func (w *upgradeWorkload) readMachine(ten *loadTenant, id string) (machineView, error) {
	var m machineView
	c := call{method: "GET", path: "/api/resources/machines/" + id, token: ten.session()}
	a, err := w.lb.do(c)
	if err == nil {
		err = a.want(c, 200)
	}
	if err == nil {
		err = a.decode(&m)
	}
	return m, err
}

func (w *upgradeWorkload) createMachine(ten *loadTenant, _ int) error {
	if len(ten.machines) == 2 {
		return nil
	}
	ten.creates++
	name := fmt.Sprintf("vm-%d", ten.creates)
	var p taskAnswer
	if err := w.post(ten, "/api/client/machines", map[string]any{"name": name, "template_id": "tpl-debian-12",
		"cpu_cores": 1, "memory_mb": 512, "disk_gb": 10}, 202, &p); err != nil {
		return err
	}
	if err := w.waitTask(ten, p.Task.ID); errors.Is(err, errInterrupted) {
		return nil // a create cut short: the next round makes another machine
	} else if err != nil {
		return err
	}
	m, err := w.readMachine(ten, p.Machine.ID)
	if err != nil {
		return err
	}
	if len(m.Interfaces) == 0 || len(m.Interfaces[0].IPAddresses) == 0 {
		return fmt.Errorf("machine %s has no address: %+v", m.ID, m)
	}
	am := &ackedMachine{id: m.ID, name: name, ip: m.Interfaces[0].IPAddresses[0], status: m.Status, cpus: m.CPUCores}
	am.noted("created: task %s succeeded; read: %s with %d cores", p.Task.ID, m.Status, m.CPUCores)
	ten.machines = append(ten.machines, am)
	return nil
}

func (w *upgradeWorkload) togglePower(ten *loadTenant, round int) error {
	m := ten.machines[round%len(ten.machines)]
	action, after := "stop", "stopped"
	if m.status != "running" {
		action, after = "start", "running"
	}
	var p taskAnswer
	if err := w.post(ten, "/api/client/machines/"+m.id+"/actions/"+action, nil, 202, &p); err != nil {
		return fmt.Errorf("%w; the machine's operations:\n%s\nits tasks:\n%s", err, strings.Join(m.history, "\n"), w.tasksOf(ten, m.id))
	}
	err := w.waitTask(ten, p.Task.ID)
	m.noted("%s: task %s: %v", action, p.Task.ID, errOr(err, "succeeded"))
	if errors.Is(err, errInterrupted) {
		got, err := w.settledMachine(ten, m.id)
		m.noted("read after the interruption: %s with %d cores", got.Status, got.CPUCores)
		if err == nil && got.CPUCores != m.cpus {
			// The settle refreshed the machine from the hypervisor: what it shows must
			// still hold every change acknowledged before.
			return fmt.Errorf("machine %s has %d cores after its interrupted %s was settled; want %d, from its last resize that succeeded", m.id, got.CPUCores, action, m.cpus)
		}
		m.status = got.Status
		return err
	}
	if err != nil {
		return err
	}
	m.status = after
	return nil
}

func (w *upgradeWorkload) resize(ten *loadTenant, round int) error {
	m := ten.machines[round%len(ten.machines)]
	cpus := 3 - m.cpus // 1 and 2 in turn
	c := call{method: "PATCH", path: "/api/client/machines/" + m.id + "/resources", token: ten.session(), body: map[string]any{"cpu_cores": cpus}}
	a, err := w.lb.do(c)
	if err == nil {
		if err = a.want(c, 202); err != nil {
			// The test's view of the machine and the cluster's disagree: say how each
			// came to be.
			err = fmt.Errorf("%w; the machine's operations:\n%s\nits tasks:\n%s", err, strings.Join(m.history, "\n"), w.tasksOf(ten, m.id))
		}
	}
	var p taskAnswer
	if err == nil {
		err = a.decode(&p)
	}
	if err == nil {
		err = w.waitTask(ten, p.Task.ID)
		m.noted("resize to %d cores: task %s: %v", cpus, p.Task.ID, errOr(err, "succeeded"))
	}
	if errors.Is(err, errInterrupted) {
		got, err := w.settledMachine(ten, m.id)
		m.noted("read after the interruption: %s with %d cores", got.Status, got.CPUCores)
		if err == nil && got.Status != m.status {
			return fmt.Errorf("machine %s is %s after its interrupted resize was settled; want %s, from its last power action that succeeded", m.id, got.Status, m.status)
		}
		m.cpus = got.CPUCores
		return err
	}
	if err != nil {
		return err
	}
	m.cpus = cpus
	return nil
}

// errOr is err's text, or ok when err is nil.
func errOr(err error, ok string) string {
	if err != nil {
		return err.Error()
	}
	return ok
}

// settledMachine reads a machine once no task runs on it.
func (w *upgradeWorkload) settledMachine(ten *loadTenant, id string) (machineView, error) {
	var (
		m   machineView
		err error
	)
	testwait.Poll(2*upgradeAnswerWithin, func() bool {
		m, err = w.readMachine(ten, id)
		return err != nil || m.TaskID == nil
	})
	if err == nil && m.TaskID != nil {
		err = fmt.Errorf("machine %s still runs task %s", id, *m.TaskID)
	}
	return m, err
}

func (w *upgradeWorkload) addPowerSchedule(ten *loadTenant, round int) error {
	m := ten.machines[round%len(ten.machines)]
	// Due once a year: the schedule is a record to keep, not a run to wait for.
	p := ackedPower{machine: m.id, action: "reboot", cron: fmt.Sprintf("%d 3 1 1 *", round%60)}
	var rec struct{ ID string }
	if err := w.post(ten, "/api/client/machines/"+m.id+"/power-schedules", map[string]any{"action": p.action, "cron": p.cron}, 201, &rec); err != nil {
		return err
	}
	p.id = rec.ID
	ten.powers = append(ten.powers, p)
	return nil
}

func (w *upgradeWorkload) addBackupSchedule(ten *loadTenant, round int) error {
	m := ten.machines[round%len(ten.machines)]
	b := ackedBackup{machine: m.id, cron: fmt.Sprintf("%d 2 1 1 *", round%60), retention: 1 + round%5}
	var rec struct{ ID string }
	if err := w.post(ten, "/api/client/machines/"+m.id+"/backup-schedules", map[string]any{"cron": b.cron, "retention": b.retention}, 201, &rec); err != nil {
		return err
	}
	b.id = rec.ID
	ten.backups = append(ten.backups, b)
	return nil
}

func (w *upgradeWorkload) addCheck(ten *loadTenant, round int) error {
	m := ten.machines[round%len(ten.machines)]
	ch := ackedCheck{name: fmt.Sprintf("ssh %d", round), target: m.ip + ":22"}
	var rec struct{ ID string }
	if err := w.post(ten, "/api/resources/health-checks", map[string]any{"name": ch.name, "type": "tcp", "target": ch.target,
		"interval_s": 60, "timeout_ms": 500}, 201, &rec); err != nil {
		return err
	}
	ch.id = rec.ID
	ten.checks = append(ten.checks, ch)
	return nil
}

// renew spends the session's refresh token for a new pair, as a client does before
// its access token expires.
func (w *upgradeWorkload) renew(ten *loadTenant, _ int) error {
	ten.mu.Lock()
	refresh := ten.refresh
	ten.mu.Unlock()
	c := call{method: "POST", path: "/api/auth/refresh", body: map[string]string{"refresh_token": refresh}}
	a, err := w.lb.do(c)
	if err == nil {
		err = a.want(c, 200)
	}
	var pair struct {
		Token        string `json:"token"`
		RefreshToken string `json:"refresh_token"`
	}
	if err == nil {
		err = a.decode(&pair)
	}
	if err != nil {
		return err
	}
	ten.mu.Lock()
	ten.token, ten.refresh = pair.Token, pair.RefreshToken
	ten.mu.Unlock()
	return nil
}
