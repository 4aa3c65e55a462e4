package client

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

func (o ListOptions) values() url.Values {
	q := url.Values{}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	return q
}

// clientQuery is the query of a /api/client route: the tenant acted for, if any.
func (c *Client) clientQuery() url.Values {
	q := url.Values{}
	if c.tenant != "" {
		q.Set("tenant_id", c.tenant)
	}
	return q
}

func esc(id string) string { return url.PathEscape(id) }

// getPage reads one page of the list at path.
func getPage[T any](ctx context.Context, c *Client, path string, q url.Values) (Page[T], error) {
	var p Page[T]
	_, err := c.c.do(ctx, request{method: http.MethodGet, path: path, query: q, out: &p})
	return p, err
}

// all yields every item of a list, page after page, following next_cursor from the
// page opt starts at. It stops at the first error, which it yields.
func all[T any](ctx context.Context, opt ListOptions, page func(context.Context, ListOptions) (Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for {
			p, err := page(ctx, opt)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if p.NextCursor == "" {
				return
			}
			opt.Cursor = p.NextCursor
		}
	}
}

// Health reads GET /api/health (no token needed). A degraded server answers an
// *Error with status 503.
func (c *Client) Health(ctx context.Context) (*Health, error) {
	var h Health
	_, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/health", public: true, out: &h})
	return &h, err
}

// Me is the calling user.
func (c *Client) Me(ctx context.Context) (*User, error) {
	var u User
	_, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/auth/me", out: &u})
	return &u, err
}

// Sync makes the server read the hypervisor's inventory now (operators): nodes,
// templates and machines. A fresh server has no templates before it.
func (c *Client) Sync(ctx context.Context) error {
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/virt/sync"})
	return err
}

// --- tenants (operators) ---

// CreateTenant creates a tenant.
func (c *Client) CreateTenant(ctx context.Context, t TenantCreate) (*Tenant, error) {
	var out Tenant
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/resources/tenants", body: t, out: &out})
	return &out, err
}

// GetTenant reads one tenant.
func (c *Client) GetTenant(ctx context.Context, id string) (*Tenant, error) {
	var out Tenant
	_, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/resources/tenants/" + esc(id), out: &out})
	return &out, err
}

// UpdateTenant changes a tenant's name or quota.
func (c *Client) UpdateTenant(ctx context.Context, id string, ch TenantChange) (*Tenant, error) {
	var out Tenant
	_, err := c.c.do(ctx, request{method: http.MethodPatch, path: "/api/resources/tenants/" + esc(id), body: ch, out: &out})
	return &out, err
}

// DeleteTenant deletes a tenant.
func (c *Client) DeleteTenant(ctx context.Context, id string) error {
	_, err := c.c.do(ctx, request{method: http.MethodDelete, path: "/api/resources/tenants/" + esc(id)})
	return err
}

// TenantsPage reads one page of tenants.
func (c *Client) TenantsPage(ctx context.Context, opt ListOptions) (Page[Tenant], error) {
	return getPage[Tenant](ctx, c, "/api/resources/tenants", opt.values())
}

// Tenants yields every tenant, in creation order.
func (c *Client) Tenants(ctx context.Context, opt ListOptions) iter.Seq2[Tenant, error] {
	return all(ctx, opt, c.TenantsPage)
}

// --- users (operators) ---

// CreateUser creates a user.
func (c *Client) CreateUser(ctx context.Context, u UserCreate) (*User, error) {
	var out User
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/resources/users", body: u, out: &out})
	return &out, err
}

// GetUser reads one user.
func (c *Client) GetUser(ctx context.Context, id string) (*User, error) {
	var out User
	_, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/resources/users/" + esc(id), out: &out})
	return &out, err
}

// UpdateUser changes the fields of a user that ch sets.
func (c *Client) UpdateUser(ctx context.Context, id string, ch UserChange) (*User, error) {
	var out User
	_, err := c.c.do(ctx, request{method: http.MethodPatch, path: "/api/resources/users/" + esc(id), body: ch, out: &out})
	return &out, err
}

// ResetUserTOTP turns a user's second factor off (an operator's help for a user who
// lost it and its recovery codes); every session of the user ends.
func (c *Client) ResetUserTOTP(ctx context.Context, id string) error {
	_, err := c.c.do(ctx, request{method: http.MethodDelete, path: "/api/resources/users/" + esc(id) + "/totp"})
	return err
}

// CreateLoginLink makes a single-use login link for the tenant user id, valid for 60
// seconds: what a billing panel's "log in to the panel" sends the customer's browser
// to (URL, when the server has a public URL), or what WithLoginLink signs in with
// (Token). Operators and keys with the billing scope make them; an operator gets
// none (ErrForbidden), a disabled user neither (ErrConflict).
func (c *Client) CreateLoginLink(ctx context.Context, id string) (*LoginLink, error) {
	var out LoginLink
	if _, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/resources/users/" + esc(id) + "/login-links", out: &out}); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteUser deletes a user, ending its sessions.
func (c *Client) DeleteUser(ctx context.Context, id string) error {
	_, err := c.c.do(ctx, request{method: http.MethodDelete, path: "/api/resources/users/" + esc(id)})
	return err
}

// UsersPage reads one page of users, of one tenant when tenantID is not "".
func (c *Client) UsersPage(ctx context.Context, tenantID string, opt ListOptions) (Page[User], error) {
	q := opt.values()
	if tenantID != "" {
		q.Set("tenant_id", tenantID)
	}
	return getPage[User](ctx, c, "/api/resources/users", q)
}

// TenantByExternalID finds the tenant another system knows by ext (ErrNotFound: none).
func (c *Client) TenantByExternalID(ctx context.Context, ext string) (*Tenant, error) {
	return byExternalID[Tenant](ctx, c, "/api/resources/tenants", "tenant", ext)
}

// UserByExternalID finds the user another system knows by ext (ErrNotFound: none).
func (c *Client) UserByExternalID(ctx context.Context, ext string) (*User, error) {
	return byExternalID[User](ctx, c, "/api/resources/users", "user", ext)
}

// byExternalID reads the one record of the list at path whose external_id is ext.
func byExternalID[T any](ctx context.Context, c *Client, path, kind, ext string) (*T, error) {
	q := url.Values{}
	q.Set("external_id", ext)
	p, err := getPage[T](ctx, c, path, q)
	if err != nil {
		return nil, err
	}
	if len(p.Items) == 0 {
		return nil, &Error{Status: 404, Code: ErrNotFound.Code, Detail: "no " + kind + " with external_id " + ext}
	}
	return &p.Items[0], nil
}

// Users yields every user (of one tenant when tenantID is not "").
func (c *Client) Users(ctx context.Context, tenantID string, opt ListOptions) iter.Seq2[User, error] {
	return all(ctx, opt, func(ctx context.Context, o ListOptions) (Page[User], error) { return c.UsersPage(ctx, tenantID, o) })
}

// --- templates ---

// TemplatesPage reads one page of templates.
func (c *Client) TemplatesPage(ctx context.Context, opt ListOptions) (Page[Template], error) {
	return getPage[Template](ctx, c, "/api/resources/templates", opt.values())
}

// Templates yields every template.
func (c *Client) Templates(ctx context.Context, opt ListOptions) iter.Seq2[Template, error] {
	return all(ctx, opt, c.TemplatesPage)
}

// --- machines ---

// CreateMachine provisions a machine in the tenant (the caller's, or the one of
// ForTenant) and answers at once with the machine and the task that builds it: wait
// for it with WaitTask.
func (c *Client) CreateMachine(ctx context.Context, spec MachineSpec) (*Machine, *Task, error) {
	var out provisioned
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/client/machines", query: c.clientQuery(), body: spec, out: &out})
	if err != nil {
		return nil, nil, err
	}
	return &out.Machine, &out.Task, nil
}

// MachinesPage reads one page of the tenant's machines.
func (c *Client) MachinesPage(ctx context.Context, f MachineFilter) (Page[Machine], error) {
	q := f.query()
	if f.TenantID == "" && c.tenant != "" {
		q.Set("tenant_id", c.tenant)
	}
	return getPage[Machine](ctx, c, "/api/client/machines", q)
}

// query is the query string of a machine list.
func (f MachineFilter) query() url.Values {
	q := f.values()
	for k, v := range map[string]string{"tenant_id": f.TenantID, "name": f.Name, "node": f.Node, "status": f.Status} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// Machines yields every machine the filter selects.
func (c *Client) Machines(ctx context.Context, f MachineFilter) iter.Seq2[Machine, error] {
	return all(ctx, f.ListOptions, func(ctx context.Context, o ListOptions) (Page[Machine], error) {
		g := f
		g.ListOptions = o
		return c.MachinesPage(ctx, g)
	})
}

// GetMachine reads one machine by id.
func (c *Client) GetMachine(ctx context.Context, id string) (*Machine, error) {
	var out Machine
	_, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/resources/machines/" + esc(id), out: &out})
	return &out, err
}

// Power actions of MachineAction.
const (
	ActionStart    = "start"
	ActionStop     = "stop"
	ActionShutdown = "shutdown"
	ActionReboot   = "reboot"
	ActionReset    = "reset"
	ActionSuspend  = "suspend"
	ActionResume   = "resume"
)

// provisioned is the answer of a machine create: the machine and the task building it.
type provisioned struct {
	Machine Machine `json:"machine"`
	Task    Task    `json:"task"`
}

// taskReply is the body of a 202 answer.
type taskReply struct {
	Task Task `json:"task"`
}

func (c *Client) startTask(ctx context.Context, r request) (*Task, error) {
	var out taskReply
	r.out = &out
	if _, err := c.c.do(ctx, r); err != nil {
		return nil, err
	}
	return &out.Task, nil
}

// MachineAction starts a power action (ActionStart, ActionStop, ...) on a machine,
// given by id or vmid, and returns its task.
func (c *Client) MachineAction(ctx context.Context, id, action string) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, query: c.clientQuery(),
		path: "/api/client/machines/" + esc(id) + "/actions/" + esc(action)})
}

// ResizeMachine changes a machine's CPU, memory or disk and returns the task.
func (c *Client) ResizeMachine(ctx context.Context, id string, r Resize) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPatch, query: c.clientQuery(),
		path: "/api/client/machines/" + esc(id) + "/resources", body: r})
}

// DeleteMachine destroys a machine and returns the task.
func (c *Client) DeleteMachine(ctx context.Context, id string) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodDelete, path: "/api/resources/machines/" + esc(id)})
}

// --- tasks ---

// GetTask reads a task.
func (c *Client) GetTask(ctx context.Context, id string) (*Task, error) {
	var out Task
	_, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/tasks/" + esc(id), out: &out})
	return &out, err
}

// WaitTask waits until the task ends and returns it. It reads the task, then waits for
// its task.updated event on the client's event stream (one stream, opened while some
// WaitTask waits, shared by all), and reads it again with a pause growing from 50ms to
// 2s in case the stream is late or cannot be opened. A failed task is returned with a
// *TaskError (errors.Is(err, ErrTaskFailed)) carrying the server's explanation; ctx
// bounds the wait.
func (c *Client) WaitTask(ctx context.Context, id string) (*Task, error) {
	updates, done := c.c.tasks.watch(c, id)
	defer done()
	pause := 50 * time.Millisecond
	for {
		t, err := c.GetTask(ctx, id)
		if err != nil {
			return nil, err
		}
		for {
			switch t.Status {
			case TaskSucceeded:
				return t, nil
			case TaskFailed:
				return t, &TaskError{Task: t}
			}
			timer := time.NewTimer(pause)
			select {
			case u := <-updates:
				timer.Stop()
				t = u
				continue
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
				return t, ctx.Err()
			}
			break
		}
		pause = min(pause*2, 2*time.Second)
	}
}

// --- firewall rules ---

// FirewallRulesPage reads one page of the tenant's rules, in position order; of one
// machine's when machineID is not "".
func (c *Client) FirewallRulesPage(ctx context.Context, machineID string, opt ListOptions) (Page[FirewallRule], error) {
	q := opt.values()
	for k, v := range c.clientQuery() {
		q[k] = v
	}
	if machineID != "" {
		q.Set("machine_id", machineID)
	}
	return getPage[FirewallRule](ctx, c, "/api/client/firewall/rules", q)
}

// FirewallRules yields every rule of the tenant (of one machine when machineID is not "").
func (c *Client) FirewallRules(ctx context.Context, machineID string, opt ListOptions) iter.Seq2[FirewallRule, error] {
	return all(ctx, opt, func(ctx context.Context, o ListOptions) (Page[FirewallRule], error) {
		return c.FirewallRulesPage(ctx, machineID, o)
	})
}

// CreateFirewallRule adds a rule; Direction, Action and Protocol are required.
func (c *Client) CreateFirewallRule(ctx context.Context, r FirewallRuleSpec) (*FirewallRule, error) {
	var out FirewallRule
	_, err := c.c.do(ctx, request{method: http.MethodPost, path: "/api/client/firewall/rules", query: c.clientQuery(), body: r, out: &out})
	return &out, err
}

// UpdateFirewallRule changes the fields of a rule that r sets.
func (c *Client) UpdateFirewallRule(ctx context.Context, id string, r FirewallRuleSpec) (*FirewallRule, error) {
	var out FirewallRule
	_, err := c.c.do(ctx, request{method: http.MethodPatch, path: "/api/client/firewall/rules/" + esc(id), query: c.clientQuery(), body: r, out: &out})
	return &out, err
}

// DeleteFirewallRule deletes a rule.
func (c *Client) DeleteFirewallRule(ctx context.Context, id string) error {
	_, err := c.c.do(ctx, request{method: http.MethodDelete, path: "/api/client/firewall/rules/" + esc(id), query: c.clientQuery()})
	return err
}

// --- overview ---

// Overview is the tenant's dashboard.
func (c *Client) Overview(ctx context.Context) (*Overview, error) {
	var out Overview
	_, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/client/overview", query: c.clientQuery(), out: &out})
	return &out, err
}

// OpenAPI reads the server's OpenAPI 3.1 document (GET /api/openapi.json, no token
// needed): the reference of every route and type this package models.
func (c *Client) OpenAPI(ctx context.Context) (json.RawMessage, error) {
	var doc json.RawMessage
	_, err := c.c.do(ctx, request{method: http.MethodGet, path: "/api/openapi.json", public: true, out: &doc})
	return doc, err
}
