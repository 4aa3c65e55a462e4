package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// principal is an account the harness acts as, able to log in again when its token
// has expired (a long cleanup after a long run).
type principal struct {
	who             string // "admin", "user bench-...@..."
	email, password string

	mu        sync.Mutex
	token     string
	expiresIn time.Duration
}

func (p *principal) bearer() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.token
}

// tenant is one tenant the setup created, with its one user and its machines.
type tenant struct {
	id, name string
	userID   string
	user     *principal
	machines []string
	auth     []byte // "Bearer <token>" of the user, for the hot loop
}

// env is what the setup of a run created and what the cleanup must undo; scenarios of
// a mix share it, so the tenants that read and write use are created once.
type env struct {
	o Options
	// t is the first target, the one setup and cleanup talk to; targets are all of
	// them, the load's.
	t       target
	targets []target
	api     *api
	runID   string

	admin *principal

	mu             sync.Mutex
	tenantsDone    bool
	tenantsErr     error
	tenants        []*tenant
	templateID     string
	templateDiskGB int

	setup   SetupReport
	cleanup CleanupReport
	hints   []string
}

func newEnv(o Options, ts []target) *env {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return &env{
		o: o, t: ts[0], targets: ts, api: newAPI(ts[0], o.Timeout), runID: hex.EncodeToString(b[:]),
		admin: &principal{who: "admin", email: o.AdminEmail, password: o.AdminPassword},
	}
}

// urls is the absolute URL of path on each target, in the order of targets.
func (e *env) urls(path string) [][]byte {
	out := make([][]byte, len(e.targets))
	for i, t := range e.targets {
		out[i] = []byte(t.url(path))
	}
	return out
}

func (e *env) hint(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hints = append(e.hints, fmt.Sprintf(format, args...))
}

// reach checks that every target answers at all, so that a server that is down gives
// one clear error instead of a run full of connection errors.
func (e *env) reach(ctx context.Context) error {
	for _, t := range e.targets {
		a := &api{t: t, hc: t.hostClient(1, min(e.o.Timeout, 5*time.Second)), timeout: min(e.o.Timeout, 5*time.Second)}
		_, err := a.call(ctx, "GET", "/api/health", "", nil, nil, fasthttp.StatusOK, fasthttp.StatusServiceUnavailable)
		var ue *unreachableError
		if errors.As(err, &ue) {
			return err
		}
		var he *httpError
		if errors.As(err, &he) && he.Status == fasthttp.StatusNotFound {
			return fmt.Errorf("%s answered 404 to GET /api/health — is it a vmplane server?", t.base)
		}
		if errors.As(err, &he) && he.Status == fasthttp.StatusServiceUnavailable {
			if len(e.targets) > 1 {
				e.hint("%s reports itself degraded (GET /api/health answered 503)", t.base)
			} else {
				e.hint("the server reports itself degraded (GET /api/health answered 503)")
			}
		}
	}
	return nil
}

// checkTokensEverywhere asks, once per account the setup logged in, whether every
// other target takes the token the first one issued (GET /api/auth/me): members of
// one cluster do, and a list of unrelated servers would otherwise make a run of 401s.
func (e *env) checkTokensEverywhere(ctx context.Context) error {
	if len(e.targets) < 2 {
		return nil
	}
	var ps []*principal
	if e.admin.bearer() != "" {
		ps = append(ps, e.admin)
	}
	if us := tenantUsers(e); len(us) > 0 && us[0].bearer() != "" {
		ps = append(ps, us[0])
	}
	for _, p := range ps {
		for _, t := range e.targets[1:] {
			a := newAPI(t, e.o.Timeout)
			_, err := a.call(ctx, "GET", "/api/auth/me", p.bearer(), nil, nil, fasthttp.StatusOK)
			a.hc.CloseIdleConnections()
			var he *httpError
			if errors.As(err, &he) && he.Status == fasthttp.StatusUnauthorized {
				return fmt.Errorf("%s refused the %s token %s issued (GET /api/auth/me answered 401): several --url must be members of one cluster, which take each other's tokens", t.base, p.who, e.t.base)
			}
			if err != nil {
				return fmt.Errorf("checking the %s token on %s: %w", p.who, t.base, err)
			}
		}
	}
	return nil
}

// loginAnswer is the answer of POST /api/auth/login.
type loginAnswer struct {
	Token     string `json:"token"`
	ExpiresIn int64  `json:"expires_in"`
	User      struct {
		ID   string `json:"id"`
		Role string `json:"role"`
	} `json:"user"`
}

// login logs p in.
func (e *env) login(ctx context.Context, p *principal) error {
	if p.password == "" {
		return fmt.Errorf("%s login: no password (set --admin-password or VMPLANE_BENCH_ADMIN_PASSWORD)", p.who)
	}
	var ans loginAnswer
	_, err := e.api.call(ctx, "POST", "/api/auth/login", "", map[string]string{"email": p.email, "password": p.password}, &ans, fasthttp.StatusOK)
	if err != nil {
		var he *httpError
		if errors.As(err, &he) {
			msg := fmt.Sprintf("%s login failed: %d", p.who, he.Status)
			if he.Code != "" {
				msg += " " + he.Code
			}
			if he.Status == fasthttp.StatusTooManyRequests {
				msg += fmt.Sprintf(" (the auth limit of this address; retry in %s)", he.RetryAfter)
			}
			return errors.New(msg)
		}
		return fmt.Errorf("%s login failed: %w", p.who, err)
	}
	if ans.Token == "" {
		return fmt.Errorf("%s login failed: the answer carries no token", p.who)
	}
	p.mu.Lock()
	p.token, p.expiresIn = ans.Token, time.Duration(ans.ExpiresIn)*time.Second
	p.mu.Unlock()
	return nil
}

// loginAdmin logs the admin in once.
func (e *env) loginAdmin(ctx context.Context) error {
	if e.admin.bearer() != "" {
		return nil
	}
	if e.o.AdminPassword == "" {
		return errors.New("admin login: no password (set --admin-password or VMPLANE_BENCH_ADMIN_PASSWORD)")
	}
	return e.login(ctx, e.admin)
}

// as calls the API as p, logging in again once when the token has expired.
func (e *env) as(ctx context.Context, p *principal, method, path string, in, out any, want ...int) (int, error) {
	status, err := e.api.call(ctx, method, path, p.bearer(), in, out, want...)
	var he *httpError
	if errors.As(err, &he) && he.Status == fasthttp.StatusUnauthorized && he.Code == "unauthorized" {
		if lerr := e.login(ctx, p); lerr != nil {
			return status, errors.Join(err, lerr)
		}
		return e.api.call(ctx, method, path, p.bearer(), in, out, want...)
	}
	return status, err
}

// parallel runs fn for 0..n-1 with at most limit at once; the first error cancels the
// rest and is returned.
func parallel(ctx context.Context, n, limit int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(ctx, i); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// taskAnswer is the part of a task the harness reads.
type taskAnswer struct {
	ID     string  `json:"id"`
	Status string  `json:"status"`
	Error  *string `json:"error"`
}

// waitTasks polls tasks until each has ended; a failed one is an error.
func (e *env) waitTasks(ctx context.Context, p *principal, ids []string) error {
	return parallel(ctx, len(ids), 16, func(ctx context.Context, i int) error {
		for attempt := 0; attempt < maxTaskPolls; attempt++ {
			var t taskAnswer
			if _, err := e.as(ctx, p, "GET", "/api/tasks/"+ids[i], nil, &t, fasthttp.StatusOK); err != nil {
				return err
			}
			switch t.Status {
			case "succeeded":
				return nil
			case "failed":
				msg := "failed"
				if t.Error != nil {
					msg = *t.Error
				}
				return fmt.Errorf("task %s failed: %s", ids[i], msg)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("task %s still %s: %w", ids[i], t.Status, ctx.Err())
			case <-time.After(min(time.Duration(attempt+1)*20*time.Millisecond, 500*time.Millisecond)):
			}
		}
		return fmt.Errorf("task %s did not end after %d polls", ids[i], maxTaskPolls)
	})
}

// maxTaskPolls bounds the polling of one task (beyond the phase's timeout).
const maxTaskPolls = 10000

// ensureTenants creates, once, the tenants of the run: each with a quota, one user
// (logged in) and its machines, provisioned and waited for.
func (e *env) ensureTenants(ctx context.Context, scenario string) error {
	e.mu.Lock()
	done := e.tenantsDone
	e.tenantsDone = true
	e.mu.Unlock()
	if done {
		return e.tenantsErr
	}
	e.tenantsErr = e.createTenants(ctx, scenario)
	return e.tenantsErr
}

func (e *env) createTenants(ctx context.Context, scenario string) error {
	if err := e.loginAdmin(ctx); err != nil {
		return err
	}
	if e.o.Machines > 0 {
		if err := e.pickTemplate(ctx, scenario); err != nil {
			return err
		}
	}
	n, m := e.o.Tenants, e.o.Machines
	diskGB := max(10, e.templateDiskGB)
	e.tenants = make([]*tenant, n)
	err := parallel(ctx, n, 8, func(ctx context.Context, i int) error {
		name := fmt.Sprintf("vmplane-bench-%s-%d", e.runID, i)
		var tn struct {
			ID string `json:"id"`
		}
		quota := map[string]int{"machines": m, "cpu_cores": m, "memory_mb": m * 512, "disk_gb": m * diskGB}
		if _, err := e.as(ctx, e.admin, "POST", "/api/resources/tenants", map[string]any{"name": name, "quota": quota}, &tn); err != nil {
			return routeMissing(scenario, "POST", "/api/resources/tenants", err)
		}
		t := &tenant{id: tn.ID, name: name}
		e.mu.Lock()
		e.tenants[i] = t
		e.setup.Tenants++
		e.mu.Unlock()

		var pw [12]byte
		_, _ = rand.Read(pw[:])
		t.user = &principal{email: fmt.Sprintf("bench-%s-%d@bench.invalid", e.runID, i), password: hex.EncodeToString(pw[:])}
		t.user.who = "user " + t.user.email
		var u struct {
			ID string `json:"id"`
		}
		body := map[string]any{"email": t.user.email, "name": name, "role": "user", "password": t.user.password, "tenant_id": t.id}
		if _, err := e.as(ctx, e.admin, "POST", "/api/resources/users", body, &u); err != nil {
			return routeMissing(scenario, "POST", "/api/resources/users", err)
		}
		e.mu.Lock()
		t.userID = u.ID
		e.setup.Users++
		e.mu.Unlock()
		if err := e.login(ctx, t.user); err != nil {
			return err
		}
		t.auth = []byte("Bearer " + t.user.bearer())

		var tasks []string
		for k := range m {
			var ans struct {
				Machine struct {
					ID string `json:"id"`
				} `json:"machine"`
				Task taskAnswer `json:"task"`
			}
			spec := map[string]any{"name": fmt.Sprintf("bench-%s-%d-%d", e.runID, i, k), "template_id": e.templateID,
				"cpu_cores": 1, "memory_mb": 512, "disk_gb": diskGB}
			if _, err := e.as(ctx, t.user, "POST", "/api/client/machines", spec, &ans, fasthttp.StatusAccepted); err != nil {
				return routeMissing(scenario, "POST", "/api/client/machines", err)
			}
			e.mu.Lock()
			t.machines = append(t.machines, ans.Machine.ID)
			e.setup.Machines++
			e.mu.Unlock()
			if ans.Task.ID != "" {
				tasks = append(tasks, ans.Task.ID)
			}
		}
		if err := e.waitTasks(ctx, t.user, tasks); err != nil {
			return fmt.Errorf("scenario %s: provisioning the machines of tenant %s: %w", scenario, name, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return nil
}

// pickTemplate chooses the OS template of created machines: --template, or the first
// the server lists.
func (e *env) pickTemplate(ctx context.Context, scenario string) error {
	if e.o.TemplateID != "" {
		e.templateID = e.o.TemplateID
		return nil
	}
	var page struct {
		Items []struct {
			ID     string `json:"id"`
			DiskGB int    `json:"disk_gb"`
		} `json:"items"`
	}
	list := func() error {
		_, err := e.as(ctx, e.admin, "GET", "/api/virt/templates", nil, &page, fasthttp.StatusOK)
		if err != nil {
			if _, err2 := e.as(ctx, e.admin, "GET", "/api/resources/templates", nil, &page, fasthttp.StatusOK); err2 != nil {
				return fmt.Errorf("scenario %s needs an OS template for its machines: %w (or set --template)", scenario, err)
			}
		}
		return nil
	}
	if err := list(); err != nil {
		return err
	}
	if len(page.Items) == 0 {
		// The server knows the hypervisor's templates only after a sync.
		if _, err := e.as(ctx, e.admin, "POST", "/api/virt/sync", nil, nil, fasthttp.StatusOK); err != nil {
			return routeMissing(scenario, "POST", "/api/virt/sync", err)
		}
		if err := list(); err != nil {
			return err
		}
	}
	if len(page.Items) == 0 {
		return fmt.Errorf("scenario %s needs an OS template for its machines, and the server lists none (set --template)", scenario)
	}
	e.templateID, e.templateDiskGB = page.Items[0].ID, page.Items[0].DiskGB
	return nil
}

// cleanupFailed records a cleanup error; the first few are kept verbatim.
func (e *env) cleanupFailed(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cleanup.ErrorCount++
	if len(e.cleanup.Errors) < 10 {
		e.cleanup.Errors = append(e.cleanup.Errors, err.Error())
	}
}

func (e *env) deleted(kind string, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cleanup.Deleted == nil {
		e.cleanup.Deleted = map[string]int{}
	}
	e.cleanup.Deleted[kind] += n
}

// cleanupTenants deletes the machines, users and tenants the setup created.
func (e *env) cleanupTenants(ctx context.Context) {
	var ts []*tenant
	for _, t := range e.tenants {
		if t != nil {
			ts = append(ts, t)
		}
	}
	_ = parallel(ctx, len(ts), 8, func(ctx context.Context, i int) error {
		t := ts[i]
		var tasks []string
		for _, id := range t.machines {
			if id == "" {
				continue
			}
			var ans struct {
				Task taskAnswer `json:"task"`
			}
			// As the operator: a server may keep machine deletes to operators
			// (VMPLANE_TENANT_DELETE off, its default).
			if _, err := e.as(ctx, e.admin, "DELETE", "/api/resources/machines/"+id, nil, &ans); err != nil {
				e.cleanupFailed(err)
				continue
			}
			e.deleted("machines", 1)
			if ans.Task.ID != "" {
				tasks = append(tasks, ans.Task.ID)
			}
		}
		if err := e.waitTasks(ctx, e.admin, tasks); err != nil {
			e.cleanupFailed(err)
		}
		if t.userID != "" {
			if _, err := e.as(ctx, e.admin, "DELETE", "/api/resources/users/"+t.userID, nil, nil); err != nil {
				e.cleanupFailed(err)
			} else {
				e.deleted("users", 1)
			}
		}
		if _, err := e.as(ctx, e.admin, "DELETE", "/api/resources/tenants/"+t.id, nil, nil); err != nil {
			e.cleanupFailed(err)
		} else {
			e.deleted("tenants", 1)
		}
		return nil // a failed deletion must not stop the others
	})
}
