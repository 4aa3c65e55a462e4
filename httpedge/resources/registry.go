// Package resources holds the generic routes /api/resources/{kind}[/{id}]: one
// registry of record kinds (machines, firewall rules, tasks, tenants, users, nodes,
// templates, schedules, backups, health checks, alert events), each declaring its
// tenant scope, who may read and write it and its operations, expanded into list, get,
// create, change and delete routes that enforce tenant scope in one place.
package resources

import (
	"context"
	"errors"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/isos"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/clientarea"
	"github.com/vmplane/vmplane/hypervisor"
)

// handlers serve the routes from the services they call.
type handlers struct {
	svc api.Services
	// tenantDelete lets tenant users delete their machines (operators always may).
	tenantDelete bool
	// requirePlans has tenant users create machines from plans only.
	requirePlans bool
}

// Routes are the resources routes, the registry's kinds in order, then a plan's
// capacity, the tenants' suspension, the webhooks' deliveries, an ISO image's upload; tenantDelete lets tenant users delete their
// own machines, as the client area's delete does, and requirePlans has a tenant user's
// machine create name a plan (clientarea.Options.RequirePlans).
func Routes(svc api.Services, tenantDelete, requirePlans bool) []api.Route {
	h := &handlers{svc: svc, tenantDelete: tenantDelete, requirePlans: requirePlans}
	routes := append(h.resourceRoutes(), h.planRoutes()...)
	routes = append(routes, h.suspensionRoutes()...)
	routes = append(routes, h.webhookRoutes()...)
	routes = append(routes, h.isoUploadRoute())
	return append(routes, h.usageRoutes()...)
}

// resource is one kind of /api/resources/:resource. Each declares whether it is
// tenant-scoped, who may read and write it, and its operations; the registry turns it
// into routes and enforces tenant scope for all of them in one place (serveResource).
type resource struct {
	name   string
	scoped bool
	read   api.Access // Authenticated (tenant users too) or AdminOnly
	write  api.Access
	// For the OpenAPI document. item is the record type (itemOf). The create answers
	// createStatus (201 when zero) with createReply (the item when nil); the update and
	// delete answer updateStatus and deleteStatus (200 and 204 when zero) with
	// updateReply (the item when nil) and deleteReply; updateAlso lists an update's
	// other answers.
	item                   itemType
	createBody, updateBody any
	createStatus           int
	createReply            any
	updateStatus           int
	updateReply            any
	updateAlso             map[int]any
	deleteStatus           int
	deleteReply            any
	summary                string
	// stamped says the create's one write carries the claim of its Idempotency-Key
	// (Route.Stamped); exempt, for a create that is not, says why it need not be
	// (Route.Exempt).
	stamped bool
	exempt  string
	// query declares a list's filters (name → description), beyond limit and cursor.
	query      map[string]string
	queryTypes map[string]api.QueryType

	// scope is the caller's tenant (nil for operators on every resource, and for
	// anyone on unscoped ones); tenant is the tenant a create is for.
	list   func(c *api.Call, scope *string, cursor string, limit int) (any, string, error)
	get    func(c *api.Call, scope *string, id string) (any, error)
	create func(c *api.Call, scope *string, tenant *string) (any, error)
	update func(c *api.Call, scope *string, id string) (any, error)
	delete func(c *api.Call, scope *string, id string) (any, error)
}

// itemType is a resource's record type as the document needs it: a zero record (the
// answer of a get) and a zero page of records (the answer of a list). itemOf is the only
// way to make one, so that a new resource kind cannot get a list of untyped items.
type itemType struct{ one, page any }

// itemOf is the item type of a resource whose records are T.
func itemOf[T any]() itemType { return itemType{one: *new(T), page: api.Page[T]{}} }

// resourceRoutes expands the registry into routes.
func (h *handlers) resourceRoutes() []api.Route {
	var out []api.Route
	for _, r := range h.registry() {
		r := r
		base := "/api/resources/" + r.name
		tag := "resources"
		scope := ""
		if r.scoped {
			scope = " A tenant user sees only its own tenant's; an operator sees every tenant's."
		}
		if r.list != nil {
			out = append(out, api.Route{Method: "GET", Path: base, Access: r.read, Tag: tag, Query: api.WithPage(r.query), QueryTypes: r.queryTypes,
				Summary: "List " + r.summary, Reply: r.item.page, Handler: h.serveResource(&r, "list"),
				Description: "A page of " + r.summary + " in creation order; follow next_cursor for the next page." + scope})
		}
		if r.get != nil {
			out = append(out, api.Route{Method: "GET", Path: base + "/{id}", Access: r.read, Tag: tag,
				Summary: "Get one of the " + r.summary, Reply: r.item.one, Handler: h.serveResource(&r, "get"),
				Description: "One of the " + r.summary + " by id." + scope + " Another tenant's record answers 404, as one that does not exist."})
		}
		if r.create != nil {
			status := r.createStatus
			if status == 0 {
				status = fasthttp.StatusCreated
			}
			reply := r.createReply
			if reply == nil {
				reply = r.item.one
			}
			rt := api.Route{Method: "POST", Path: base, Access: r.write, Tag: tag, Status: status, Stamped: r.stamped, Exempt: r.exempt,
				Summary: "Create one of the " + r.summary, Body: r.createBody, Reply: reply, Handler: h.serveResource(&r, "create")}
			rt.Description = api.Describe(&rt)
			switch {
			case r.scoped && r.write == api.AdminOnly:
				rt.Description += " tenant_id names the one tenant the record is for; without it, the record is every tenant's."
			case r.scoped:
				rt.Description += " A tenant user creates for its own tenant (tenant_id may only name it); an operator names the tenant with tenant_id."
			}
			out = append(out, rt)
		}
		if r.update != nil {
			reply := r.updateReply
			if reply == nil {
				reply = r.item.one
			}
			rt := api.Route{Method: "PATCH", Path: base + "/{id}", Access: r.write, Tag: tag, Patch: true, Status: r.updateStatus, Also: r.updateAlso,
				Summary: "Change one of the " + r.summary, Body: r.updateBody, Reply: reply, Handler: h.serveResource(&r, "update")}
			out = append(out, rt)
		}
		if r.delete != nil {
			status := r.deleteStatus
			if status == 0 {
				status = fasthttp.StatusNoContent
			}
			out = append(out, api.Route{Method: "DELETE", Path: base + "/{id}", Access: r.write, Tag: tag, Reply: r.deleteReply,
				Summary: "Delete one of the " + r.summary, Status: status, Handler: h.serveResource(&r, "delete")})
		}
	}
	return out
}

// serveResource is the registry's one wrapper: it computes the caller's scope and, for
// writes, checks the tenant a body names, before any resource code runs.
func (h *handlers) serveResource(r *resource, op string) api.Handler {
	return func(c *api.Call) (any, error) {
		var scope *string
		if r.scoped {
			scope = c.Scope()
		}
		if op == "update" && r.get != nil {
			// Existence and scope first: an unknown record (or another tenant's) is a
			// 404 whatever the body would meet (a tenant_id it may not name, a taken
			// name, a rule it breaks).
			if _, err := r.get(c, scope, c.Param("id")); err != nil {
				return nil, err
			}
		}
		var tenant *string
		if (op == "create" || op == "update") && r.scoped {
			// Lenient here; the handler decodes strictly and reports bad JSON itself.
			named := c.BodyString("tenant_id")
			if scope != nil && named != nil && *named != *scope {
				return nil, apierr.New(apierr.ErrForbidden, "a %s belongs to your own tenant; tenant_id cannot name another", r.name)
			}
			tenant = scope
			if scope == nil {
				tenant = named
			}
		}
		switch op {
		case "list":
			limit, cursor, err := c.Paging()
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
	tenants.MachineSpec
	TenantID *string `json:"tenant_id,omitempty" openapi:"limit=id"`
}

// MachinePatch is the body of PATCH /api/resources/machines/:id.
type MachinePatch struct {
	Name *string `json:"name,omitempty" openapi:"limit=machine.name"`
	// TenantID (operators only) moves the machine to another tenant; null (or "")
	// takes it from its tenant.
	TenantID *string `json:"tenant_id,omitempty" openapi:"nullable,limit=id"`
}

// TenantCreate is the body of a tenant create.
type TenantCreate struct {
	Name string `json:"name" openapi:"required,limit=tenant.name"`
	// Quota's omitted limits take their default; -1 is unlimited.
	Quota *tenants.QuotaChange `json:"quota,omitempty"`
	// ExternalID is the id another system (a billing system) knows the tenant by; no
	// other tenant may have it.
	ExternalID *string `json:"external_id,omitempty" openapi:"limit=external_id"`
	// RequireTOTP: the tenant's users must sign in with a second factor.
	RequireTOTP bool `json:"require_totp,omitempty"`
}

// UserCreate is the body of a user create.
type UserCreate struct {
	Email    string  `json:"email" openapi:"required,limit=user.email"`
	Name     string  `json:"name" openapi:"required,limit=user.name"`
	Role     string  `json:"role" openapi:"required,enum=admin|user"`
	Password string  `json:"password" openapi:"required,limit=user.password"`
	TenantID *string `json:"tenant_id,omitempty" openapi:"limit=id"`
	// ExternalID is the id another system (a billing system) knows the user by; no
	// other user may have it.
	ExternalID *string `json:"external_id,omitempty" openapi:"limit=external_id"`
}

func (h *handlers) registry() []resource {
	rs := append(h.coreResources(), h.scheduleResources()...)
	rs = append(rs, h.monitoringResources()...)
	rs = append(rs, h.planResources()...)
	rs = append(rs, h.webhookResources()...)
	rs = append(rs, h.ipPoolResources()...)
	return append(rs, h.locationResources()...)
}

func (h *handlers) coreResources() []resource {
	svc := h.svc
	fw := func() api.Firewall { return svc.Firewall }
	return []resource{
		{name: "machines", scoped: true, read: api.Authenticated, write: api.Authenticated, summary: "machines", stamped: true,
			item: itemOf[machines.Machine](), createBody: MachineCreate{}, updateBody: MachinePatch{},
			createStatus: fasthttp.StatusAccepted, createReply: tenants.Provisioned{},
			updateStatus: fasthttp.StatusAccepted, updateReply: api.TaskReply{}, updateAlso: map[int]any{fasthttp.StatusOK: machines.Machine{}},
			deleteStatus: fasthttp.StatusAccepted, deleteReply: api.TaskReply{},
			query: api.MachineQuery, queryTypes: api.MachineQueryTypes,
			list: func(c *api.Call, scope *string, cursor string, limit int) (any, string, error) {
				return api.ListMachines(c, svc.Machines, listTenant(c, scope), cursor, limit)
			},
			get: func(c *api.Call, scope *string, id string) (any, error) {
				return svc.Machines.Get(c.Context(), id, scope)
			},
			create: func(c *api.Call, scope *string, tenant *string) (any, error) {
				var b MachineCreate
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				t, err := requireTenant(tenant)
				if err != nil {
					return nil, err
				}
				if err := clientarea.CheckPlanRequired(c, h.requirePlans, b.MachineSpec); err != nil {
					return nil, err
				}
				if err := clientarea.CheckOperatorFields(c, b.MachineSpec); err != nil {
					return nil, err
				}
				p, err := svc.Tenants.CreateMachine(c.Context(), t, b.MachineSpec)
				if err != nil {
					return nil, err
				}
				return api.Accepted(p, "/api/tasks/"+p.Task.ID), nil
			},
			update: func(c *api.Call, scope *string, id string) (any, error) {
				var b MachinePatch
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				if c.Nulls()["tenant_id"] && scope == nil {
					// null takes the machine from its tenant, as "" always did.
					empty := ""
					b.TenantID = &empty
				}
				if b.TenantID != nil && scope == nil {
					t := b.TenantID
					if *t == "" {
						t = nil
					}
					m, err := svc.Machines.Assign(c.Context(), id, t)
					if err != nil {
						return nil, err
					}
					if b.Name == nil {
						// Assigning is done at once: 200 with the machine, not a task.
						return api.Reply{Status: fasthttp.StatusOK, Body: m}, nil
					}
				}
				if b.Name == nil {
					if b.TenantID != nil { // a user naming its own tenant: nothing to do
						m, err := svc.Machines.Get(c.Context(), id, scope)
						if err != nil {
							return nil, err
						}
						return api.Reply{Status: fasthttp.StatusOK, Body: m}, nil
					}
					return nil, apierr.Invalid(apierr.Field("body", "name is required"))
				}
				t, err := svc.Machines.Start(c.Context(), id, machines.Operation{Type: machines.OpConfig, Config: &hypervisor.ConfigChange{Name: b.Name}}, scope)
				if err != nil {
					return nil, err
				}
				return api.TaskAccepted(t), nil
			},
			delete: func(c *api.Call, scope *string, id string) (any, error) {
				if scope != nil && !h.tenantDelete {
					return nil, clientarea.ErrDeleteOff
				}
				t, err := svc.Machines.Destroy(c.Context(), id, scope)
				if err != nil {
					return nil, err
				}
				return api.TaskAccepted(t), nil
			},
		},
		{name: "firewall-rules", scoped: true, read: api.Authenticated, write: api.Authenticated, summary: "firewall rules", stamped: true,
			item: itemOf[tenants.FirewallRule](), createBody: clientarea.RuleBody{}, updateBody: clientarea.RuleBody{},
			list: func(c *api.Call, scope *string, cursor string, limit int) (any, string, error) {
				if scope != nil {
					return fw().Page(c.Context(), *scope, nil, cursor, limit)
				}
				return fw().ListAll(c.Context(), cursor, limit)
			},
			get: func(c *api.Call, scope *string, id string) (any, error) {
				t, err := ruleTenant(c.Context(), fw(), scope, id)
				if err != nil {
					return nil, err
				}
				return fw().Get(c.Context(), t, id)
			},
			create: func(c *api.Call, scope *string, tenant *string) (any, error) {
				in, err := clientarea.DecodeRule(c)
				if err != nil {
					return nil, err
				}
				t, err := requireTenant(tenant)
				if err != nil {
					return nil, err
				}
				return fw().Create(c.Context(), t, in)
			},
			update: func(c *api.Call, scope *string, id string) (any, error) {
				in, err := clientarea.DecodeRule(c)
				if err != nil {
					return nil, err
				}
				t, err := ruleTenant(c.Context(), fw(), scope, id)
				if err != nil {
					return nil, err
				}
				return fw().Update(c.Context(), t, id, in)
			},
			delete: func(c *api.Call, scope *string, id string) (any, error) {
				t, err := ruleTenant(c.Context(), fw(), scope, id)
				if err != nil {
					return nil, err
				}
				return api.NoContent, fw().Delete(c.Context(), t, id)
			},
		},
		{name: "tasks", scoped: true, read: api.Authenticated, summary: "tasks", item: itemOf[tasks.Task](),
			list: func(c *api.Call, scope *string, cursor string, limit int) (any, string, error) {
				return svc.Tasks.List(c.Context(), scope, cursor, limit)
			},
			get: func(c *api.Call, scope *string, id string) (any, error) { return svc.Tasks.Get(c.Context(), id, scope) },
		},
		{name: "tenants", read: api.AdminOnly, write: api.AdminOnly, summary: "tenants", stamped: true,
			item: itemOf[tenants.Tenant](), createBody: TenantCreate{}, updateBody: tenants.TenantChange{},
			query: map[string]string{"external_id": "only the tenant another system knows by this id (a page of one, or none)"},
			list: func(c *api.Call, _ *string, cursor string, limit int) (any, string, error) {
				if ext := c.Query("external_id"); ext != "" {
					ten, err := svc.Tenants.ByExternalID(c.Context(), ext)
					if errors.Is(err, apierr.ErrNotFound) {
						return []tenants.Tenant{}, "", nil
					}
					if err != nil {
						return nil, "", err
					}
					return []tenants.Tenant{ten}, "", nil
				}
				return svc.Tenants.List(c.Context(), cursor, limit)
			},
			get: func(c *api.Call, _ *string, id string) (any, error) { return svc.Tenants.Get(c.Context(), id) },
			create: func(c *api.Call, _ *string, _ *string) (any, error) {
				var b TenantCreate
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				return svc.Tenants.CreateTenant(c.Context(), tenants.NewTenant{Name: b.Name, Quota: b.Quota, ExternalID: b.ExternalID, RequireTOTP: b.RequireTOTP})
			},
			update: func(c *api.Call, _ *string, id string) (any, error) {
				var b tenants.TenantChange
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				b.ClearExternalID = c.Nulls()["external_id"]
				return svc.Tenants.Update(c.Context(), id, b)
			},
			delete: func(c *api.Call, _ *string, id string) (any, error) {
				return api.NoContent, svc.Tenants.Delete(c.Context(), id)
			},
		},
		{name: "users", read: api.AdminOnly, write: api.AdminOnly, summary: "users", stamped: true,
			item: itemOf[auth.User](), createBody: UserCreate{}, updateBody: auth.UserChange{},
			query: map[string]string{"tenant_id": "only this tenant's users", "external_id": "only the user another system knows by this id (a page of one, or none)"},
			list: func(c *api.Call, _ *string, cursor string, limit int) (any, string, error) {
				if ext := c.Query("external_id"); ext != "" {
					u, err := svc.Users.ByExternalID(c.Context(), ext)
					if errors.Is(err, apierr.ErrNotFound) {
						return []auth.User{}, "", nil
					}
					if err != nil {
						return nil, "", err
					}
					if t := c.Query("tenant_id"); t != "" && (u.TenantID == nil || *u.TenantID != t) {
						return []auth.User{}, "", nil
					}
					return []auth.User{u}, "", nil
				}
				var tenant *string
				if t := c.Query("tenant_id"); t != "" {
					tenant = &t
				}
				return svc.Users.List(c.Context(), tenant, cursor, limit)
			},
			get: func(c *api.Call, _ *string, id string) (any, error) { return svc.Users.Get(c.Context(), id) },
			create: func(c *api.Call, _ *string, _ *string) (any, error) {
				var b UserCreate
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				if b.Role == auth.RoleUser && b.TenantID == nil {
					return nil, apierr.Invalid(apierr.Field("tenant_id", "a user belongs to a tenant"))
				}
				if b.Role == auth.RoleAdmin && b.TenantID != nil {
					return nil, apierr.Invalid(apierr.Field("tenant_id", "an admin belongs to no tenant"))
				}
				if b.TenantID != nil {
					if _, err := svc.Tenants.Get(c.Context(), *b.TenantID); err != nil {
						return nil, apierr.Invalid(apierr.Field("tenant_id", "no tenant %s", *b.TenantID))
					}
				}
				return svc.Users.CreateUser(c.Context(), auth.NewUser{Email: b.Email, Name: b.Name, Role: b.Role, Password: b.Password,
					TenantID: b.TenantID, ExternalID: b.ExternalID})
			},
			update: func(c *api.Call, _ *string, id string) (any, error) {
				var b auth.UserChange
				if err := c.Decode(&b); err != nil {
					return nil, err
				}
				b.ClearExternalID = c.Nulls()["external_id"]
				return svc.Users.Update(c.Context(), id, b)
			},
			delete: func(c *api.Call, _ *string, id string) (any, error) {
				return api.NoContent, svc.Users.Delete(c.Context(), id)
			},
		},
		{name: "nodes", read: api.AdminOnly, summary: "nodes", item: itemOf[capacity.Node](),
			list: func(c *api.Call, _ *string, cursor string, limit int) (any, string, error) {
				return svc.Nodes.List(c.Context(), cursor, limit)
			},
			get: func(c *api.Call, _ *string, id string) (any, error) { return svc.Nodes.Get(c.Context(), id) },
		},
		{name: "templates", read: api.Authenticated, write: api.AdminOnly, summary: "OS templates", item: itemOf[hypervisor.Template](),
			list: func(c *api.Call, _ *string, cursor string, limit int) (any, string, error) {
				return svc.Inventory.TemplatePage(c.Context(), cursor, limit)
			},
			get: func(c *api.Call, _ *string, id string) (any, error) { return svc.Inventory.Template(c.Context(), id) },
		},
		isoResource(svc),
	}
}

// isoResource is the ISO library. Tenants read the public images and their own;
// operators alone add and delete them: vmplane (or, on Proxmox, a hypervisor node)
// fetches the URL from inside the operator's network, and no check of a URL's host
// can tell a tenant's server from one of the operator's own that the fetch could
// reach, so a tenant-given URL would make vmplane a way into that network.
func isoResource(svc api.Services) resource {
	return resource{name: "isos", scoped: true, read: api.Authenticated, write: api.AdminOnly, summary: "ISO images", stamped: true,
		item: itemOf[isos.ISO](), createBody: isos.NewISO{}, createStatus: fasthttp.StatusAccepted, createReply: isos.ISOAdded{},
		list: func(c *api.Call, scope *string, cursor string, limit int) (any, string, error) {
			return svc.ISOs.List(c.Context(), scope, cursor, limit)
		},
		get: func(c *api.Call, scope *string, id string) (any, error) { return svc.ISOs.Get(c.Context(), id, scope) },
		create: func(c *api.Call, _ *string, tenant *string) (any, error) {
			var b isos.NewISO
			if err := c.Decode(&b); err != nil {
				return nil, err
			}
			b.TenantID = tenant
			a, err := svc.ISOs.Add(c.Context(), b)
			if err != nil {
				return nil, err
			}
			return api.Accepted(a, "/api/tasks/"+a.Task.ID), nil
		},
		delete: func(c *api.Call, scope *string, id string) (any, error) {
			return api.NoContent, svc.ISOs.Delete(c.Context(), id, scope)
		},
	}
}

// isoUploadRoute is PUT /api/resources/isos/{id}/content: the content of an image
// added with upload: true, streamed by the library to its file (never held whole),
// for operators alone, as every write of the library.
func (h *handlers) isoUploadRoute() api.Route {
	return api.Route{Method: "PUT", Path: "/api/resources/isos/{id}/content", Access: api.AdminOnly, Tag: "resources",
		Summary: "Upload an ISO image's content", Stream: true,
		Body: api.RawBody{ContentType: "application/octet-stream"}, Reply: isos.ISO{}, Errors: []int{fasthttp.StatusUnprocessableEntity},
		Description: "The content of an image added with `upload: true` (status `awaiting_upload`), as the raw body " +
			"(application/octet-stream, with its Content-Length), streamed to the server's disk and checked against the image's checksum " +
			"as it arrives. Answers the image, ready, once its file and record are durable (and, on Proxmox VE, the file is on the ISO storage). " +
			"413 payload_too_large for a Content-Length over VMPLANE_ISO_MAX_BYTES, before the body is read; " +
			"422 checksum_mismatch when the content does not match: nothing is kept and the image is failed with the reason (add it again); " +
			"400 for a body without a length or one that ends early (the image still awaits its content); " +
			"409 for an image not awaiting its content (a second upload of a ready one) or whose upload runs. Operators only.",
		Handler: func(c *api.Call) (any, error) {
			return h.svc.ISOs.Upload(c.Context(), c.Param("id"), c.Scope(), c.BodyStream(), c.ContentLength())
		}}
}

// ruleTenant finds a rule's tenant: the caller's own, or for operators the rule's.
func ruleTenant(ctx context.Context, fw api.Firewall, scope *string, id string) (string, error) {
	if scope != nil {
		return *scope, nil
	}
	return fw.TenantOf(ctx, id)
}
