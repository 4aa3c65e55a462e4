package httpedge

import (
	"bytes"
	"encoding/json"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// resource is one kind of /api/resources/:resource. Each declares whether it is
// tenant-scoped, who may read and write it, and its operations; the registry turns it
// into routes and enforces tenant scope for all of them in one place (serveResource).
type resource struct {
	name   string
	scoped bool
	read   Access // Authenticated (tenant users too) or AdminOnly
	write  Access
	// For the OpenAPI document.
	item, createBody, updateBody any
	createStatus                 int
	summary                      string

	// scope is the caller's tenant (nil for operators on every resource, and for
	// anyone on unscoped ones); tenant is the tenant a create is for.
	list   func(c *Call, scope *string, cursor string, limit int) (any, string, error)
	get    func(c *Call, scope *string, id string) (any, error)
	create func(c *Call, scope *string, tenant *string) (any, error)
	update func(c *Call, scope *string, id string) (any, error)
	delete func(c *Call, scope *string, id string) (any, error)
}

// tenantField is what the registry reads of every write body before the handler decodes
// it strictly: the tenant a write names.
type tenantField struct {
	TenantID *string `json:"tenant_id"`
}

// resourceRoutes expands the registry into routes.
func (s *Server) resourceRoutes() []Route {
	var out []Route
	page := map[string]string{"limit": "page size, 1..500 (default 50)", "cursor": "next_cursor of the previous page"}
	for _, r := range s.registry() {
		r := r
		base := "/api/resources/" + r.name
		tag := "resources"
		if r.list != nil {
			out = append(out, Route{Method: "GET", Path: base, Access: r.read, Tag: tag, Query: page,
				Summary: "List " + r.summary, Reply: listDoc(r.item), Handler: s.serveResource(&r, "list")})
		}
		if r.get != nil {
			out = append(out, Route{Method: "GET", Path: base + "/{id}", Access: r.read, Tag: tag,
				Summary: "One of the " + r.summary, Reply: r.item, Handler: s.serveResource(&r, "get")})
		}
		if r.create != nil {
			status := r.createStatus
			if status == 0 {
				status = fasthttp.StatusCreated
			}
			out = append(out, Route{Method: "POST", Path: base, Access: r.write, Tag: tag, Status: status,
				Summary: "Create one of the " + r.summary, Body: r.createBody, Reply: r.item, Handler: s.serveResource(&r, "create")})
		}
		if r.update != nil {
			out = append(out, Route{Method: "PATCH", Path: base + "/{id}", Access: r.write, Tag: tag,
				Summary: "Change one of the " + r.summary, Body: r.updateBody, Reply: r.item, Handler: s.serveResource(&r, "update")})
		}
		if r.delete != nil {
			out = append(out, Route{Method: "DELETE", Path: base + "/{id}", Access: r.write, Tag: tag,
				Summary: "Delete one of the " + r.summary, Status: fasthttp.StatusNoContent, Handler: s.serveResource(&r, "delete")})
		}
	}
	return out
}

func listDoc(item any) any {
	switch item.(type) {
	case actors.Machine:
		return Page[actors.Machine]{}
	case actors.FirewallRule:
		return Page[actors.FirewallRule]{}
	case actors.Task:
		return Page[actors.Task]{}
	case actors.Tenant:
		return Page[actors.Tenant]{}
	case actors.User:
		return Page[actors.User]{}
	case actors.Node:
		return Page[actors.Node]{}
	case hypervisor.Template:
		return Page[hypervisor.Template]{}
	case actors.HealthCheck:
		return Page[actors.HealthCheck]{}
	case actors.Alert:
		return Page[actors.Alert]{}
	case actors.PowerSchedule:
		return Page[actors.PowerSchedule]{}
	case actors.BackupSchedule:
		return Page[actors.BackupSchedule]{}
	case actors.Backup:
		return Page[actors.Backup]{}
	}
	return Page[any]{}
}

// serveResource is the registry's one wrapper: it computes the caller's scope and, for
// writes, checks the tenant a body names, before any resource code runs.
func (s *Server) serveResource(r *resource, op string) Handler {
	return func(c *Call) (any, error) {
		var scope *string
		if r.scoped {
			scope = c.scope()
		}
		var tenant *string
		if (op == "create" || op == "update") && r.scoped {
			var tf tenantField
			// Lenient here; the handler decodes strictly and reports bad JSON itself.
			_ = json.Unmarshal(c.rc.PostBody(), &tf)
			if scope != nil && tf.TenantID != nil && *tf.TenantID != *scope {
				return nil, apierr.New(apierr.ErrForbidden, "a %s belongs to your own tenant; tenant_id cannot name another", r.name)
			}
			tenant = scope
			if scope == nil {
				tenant = tf.TenantID
			}
		}
		switch op {
		case "list":
			limit, cursor, err := c.paging()
			if err != nil {
				return nil, err
			}
			items, next, err := r.list(c, scope, cursor, limit)
			if err != nil {
				return nil, err
			}
			return pageAny(items, next), nil
		case "get":
			return r.get(c, scope, c.Param("id"))
		case "create":
			return r.create(c, scope, tenant)
		case "update":
			return r.update(c, scope, c.Param("id"))
		case "delete":
			return r.delete(c, scope, c.Param("id"))
		}
		return nil, apierr.New(apierr.ErrInternal, "unknown resource operation")
	}
}

// anyPage is a page of a resource's items, whatever their type (always a non-nil slice).
type anyPage struct {
	Items      any     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

func pageAny(items any, next string) anyPage {
	p := anyPage{Items: items}
	if next != "" {
		p.NextCursor = &next
	}
	return p
}

// requireTenant is the tenant an operator's create must name.
func requireTenant(tenant *string) (string, error) {
	if tenant == nil || *tenant == "" {
		return "", apierr.Invalid(apierr.Field("tenant_id", "is required when an operator creates for a tenant"))
	}
	return *tenant, nil
}

// MachineCreate is the body of a machine create.
type MachineCreate struct {
	actors.MachineSpec
	TenantID *string `json:"tenant_id,omitempty"`
}

// MachinePatch is the body of PATCH /api/resources/machines/:id.
type MachinePatch struct {
	Name *string `json:"name,omitempty"`
	// TenantID (operators only) moves the machine to another tenant.
	TenantID *string `json:"tenant_id,omitempty"`
}

// TenantCreate is the body of a tenant create.
type TenantCreate struct {
	Name string `json:"name"`
	// Quota's omitted limits take their default; -1 is unlimited.
	Quota *actors.QuotaChange `json:"quota,omitempty"`
}

// UserCreate is the body of a user create.
type UserCreate struct {
	Email    string  `json:"email"`
	Name     string  `json:"name"`
	Role     string  `json:"role"`
	Password string  `json:"password"`
	TenantID *string `json:"tenant_id,omitempty"`
}

// RuleBody is a firewall rule as written by clients; null clears machine_id, port,
// source and destination.
type RuleBody struct {
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
	TenantID    *string `json:"tenant_id,omitempty"`
}

// decodeRule decodes a rule body strictly and notes which nullable fields were null.
func (c *Call) decodeRule() (actors.RuleInput, error) {
	var b RuleBody
	if err := c.Decode(&b); err != nil {
		return actors.RuleInput{}, err
	}
	in := actors.RuleInput{MachineID: b.MachineID, Direction: b.Direction, Action: b.Action, Protocol: b.Protocol,
		Port: b.Port, Source: b.Source, Destination: b.Destination, Enabled: b.Enabled, Position: b.Position, Comment: b.Comment}
	// Only a body with a null in it can clear a field (null cannot be escaped): the
	// second decode is skipped for the others.
	var present map[string]json.RawMessage
	if body := c.rc.PostBody(); bytes.Contains(body, []byte("null")) && json.Unmarshal(body, &present) == nil {
		for _, f := range []string{"machine_id", "port", "source", "destination"} {
			if v, ok := present[f]; ok && string(v) == "null" {
				in.Clear = append(in.Clear, f)
			}
		}
	}
	return in, nil
}

func (s *Server) registry() []resource {
	rs := append(s.coreResources(), s.scheduleResources()...)
	return append(rs, s.monitoringResources()...)
}

func (s *Server) coreResources() []resource {
	sys := s.sys
	fw := func() actors.Firewall { return sys.Tenants.Firewall() }
	return []resource{
		{name: "machines", scoped: true, read: Authenticated, write: Authenticated, summary: "machines",
			item: actors.Machine{}, createBody: MachineCreate{}, updateBody: MachinePatch{}, createStatus: fasthttp.StatusAccepted,
			list: func(c *Call, scope *string, cursor string, limit int) (any, string, error) {
				if scope != nil {
					return sys.Machines.ListTenant(c.Context(), *scope, cursor, limit)
				}
				if t := c.Query("tenant_id"); t != "" {
					return sys.Machines.ListTenant(c.Context(), t, cursor, limit)
				}
				return sys.Machines.List(c.Context(), cursor, limit, nil)
			},
			get: func(c *Call, scope *string, id string) (any, error) { return sys.Machines.Get(c.Context(), id, scope) },
			create: func(c *Call, scope *string, tenant *string) (any, error) {
				var b MachineCreate
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				t, err := requireTenant(tenant)
				if err != nil {
					return nil, err
				}
				p, err := sys.Tenants.CreateMachine(c.Context(), t, b.MachineSpec)
				if err != nil {
					return nil, err
				}
				return Accepted(p, "/api/tasks/"+p.Task.ID), nil
			},
			update: func(c *Call, scope *string, id string) (any, error) {
				var b MachinePatch
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				if b.TenantID != nil && scope == nil {
					t := b.TenantID
					if *t == "" {
						t = nil
					}
					m, err := sys.Machines.Assign(c.Context(), id, t)
					if err != nil || b.Name == nil {
						return m, err
					}
				}
				if b.Name == nil {
					if b.TenantID != nil { // a user naming its own tenant: nothing to do
						return sys.Machines.Get(c.Context(), id, scope)
					}
					return nil, apierr.Invalid(apierr.Field("body", "name is required"))
				}
				t, err := sys.Machines.Start(c.Context(), id, actors.Operation{Type: actors.OpConfig, Config: &hypervisor.ConfigChange{Name: b.Name}}, scope)
				if err != nil {
					return nil, err
				}
				return accepted(t), nil
			},
			delete: func(c *Call, scope *string, id string) (any, error) {
				t, err := sys.Machines.Destroy(c.Context(), id, scope)
				if err != nil {
					return nil, err
				}
				return accepted(t), nil
			},
		},
		{name: "firewall-rules", scoped: true, read: Authenticated, write: Authenticated, summary: "firewall rules",
			item: actors.FirewallRule{}, createBody: RuleBody{}, updateBody: RuleBody{},
			list: func(c *Call, scope *string, cursor string, limit int) (any, string, error) {
				if scope != nil {
					rules, err := fw().List(c.Context(), *scope, nil)
					return rules, "", err
				}
				return fw().ListAll(c.Context(), cursor, limit)
			},
			get: func(c *Call, scope *string, id string) (any, error) {
				t, err := ruleTenant(fw(), scope, id)
				if err != nil {
					return nil, err
				}
				return fw().Get(c.Context(), t, id)
			},
			create: func(c *Call, scope *string, tenant *string) (any, error) {
				in, err := c.decodeRule()
				if err != nil {
					return nil, err
				}
				t, err := requireTenant(tenant)
				if err != nil {
					return nil, err
				}
				return fw().Create(c.Context(), t, in)
			},
			update: func(c *Call, scope *string, id string) (any, error) {
				in, err := c.decodeRule()
				if err != nil {
					return nil, err
				}
				t, err := ruleTenant(fw(), scope, id)
				if err != nil {
					return nil, err
				}
				return fw().Update(c.Context(), t, id, in)
			},
			delete: func(c *Call, scope *string, id string) (any, error) {
				t, err := ruleTenant(fw(), scope, id)
				if err != nil {
					return nil, err
				}
				return NoContent, fw().Delete(c.Context(), t, id)
			},
		},
		{name: "tasks", scoped: true, read: Authenticated, summary: "tasks", item: actors.Task{},
			list: func(c *Call, scope *string, cursor string, limit int) (any, string, error) {
				return sys.Tasks.List(c.Context(), scope, cursor, limit)
			},
			get: func(c *Call, scope *string, id string) (any, error) { return sys.Tasks.Get(c.Context(), id, scope) },
		},
		{name: "tenants", read: AdminOnly, write: AdminOnly, summary: "tenants",
			item: actors.Tenant{}, createBody: TenantCreate{}, updateBody: actors.TenantChange{},
			list: func(c *Call, _ *string, cursor string, limit int) (any, string, error) {
				return sys.Tenants.List(c.Context(), cursor, limit)
			},
			get: func(c *Call, _ *string, id string) (any, error) { return sys.Tenants.Get(c.Context(), id) },
			create: func(c *Call, _ *string, _ *string) (any, error) {
				var b TenantCreate
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				return sys.Tenants.Create(c.Context(), b.Name, b.Quota)
			},
			update: func(c *Call, _ *string, id string) (any, error) {
				var b actors.TenantChange
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				return sys.Tenants.Update(c.Context(), id, b)
			},
			delete: func(c *Call, _ *string, id string) (any, error) {
				return NoContent, sys.Tenants.Delete(c.Context(), id)
			},
		},
		{name: "users", read: AdminOnly, write: AdminOnly, summary: "users",
			item: actors.User{}, createBody: UserCreate{}, updateBody: actors.UserChange{},
			list: func(c *Call, _ *string, cursor string, limit int) (any, string, error) {
				var tenant *string
				if t := c.Query("tenant_id"); t != "" {
					tenant = &t
				}
				return sys.Users.List(c.Context(), tenant, cursor, limit)
			},
			get: func(c *Call, _ *string, id string) (any, error) { return sys.Users.Get(c.Context(), id) },
			create: func(c *Call, _ *string, _ *string) (any, error) {
				var b UserCreate
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				if b.Role == actors.RoleUser && b.TenantID == nil {
					return nil, apierr.Invalid(apierr.Field("tenant_id", "a user belongs to a tenant"))
				}
				if b.Role == actors.RoleAdmin && b.TenantID != nil {
					return nil, apierr.Invalid(apierr.Field("tenant_id", "an admin belongs to no tenant"))
				}
				if b.TenantID != nil {
					if _, err := sys.Tenants.Get(c.Context(), *b.TenantID); err != nil {
						return nil, apierr.Invalid(apierr.Field("tenant_id", "no tenant %s", *b.TenantID))
					}
				}
				return sys.Users.Create(c.Context(), b.Email, b.Name, b.Role, b.Password, b.TenantID)
			},
			update: func(c *Call, _ *string, id string) (any, error) {
				var b actors.UserChange
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				return sys.Users.Update(c.Context(), id, b)
			},
			delete: func(c *Call, _ *string, id string) (any, error) {
				return NoContent, sys.Users.Delete(c.Context(), id)
			},
		},
		{name: "nodes", read: AdminOnly, summary: "nodes", item: actors.Node{},
			list: func(c *Call, _ *string, cursor string, limit int) (any, string, error) {
				return sys.Nodes.List(c.Context(), cursor, limit)
			},
			get: func(c *Call, _ *string, id string) (any, error) { return sys.Nodes.Get(c.Context(), id) },
		},
		{name: "templates", read: Authenticated, write: AdminOnly, summary: "OS templates", item: hypervisor.Template{},
			list: func(c *Call, _ *string, _ string, _ int) (any, string, error) {
				ts, err := sys.Cluster.Templates(c.Context())
				return ts, "", err
			},
			get: func(c *Call, _ *string, id string) (any, error) { return sys.Cluster.Template(c.Context(), id) },
		},
	}
}

// ruleTenant finds a rule's tenant: the caller's own, or for operators the rule's.
func ruleTenant(fw actors.Firewall, scope *string, id string) (string, error) {
	if scope != nil {
		return *scope, nil
	}
	return fw.TenantOf(id)
}
