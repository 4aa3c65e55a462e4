package httpedge

import (
	"context"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/schedules"
)

// PowerScheduleBody is a power schedule as clients write it: the body of the client
// area's create, and of PATCH /api/resources/power-schedules/:id.
type PowerScheduleBody struct {
	// Action is start, stop, shutdown or reboot.
	Action *string `json:"action,omitempty" openapi:"required,enum=start|stop|shutdown|reboot"`
	// Cron is a 5-field cron expression (minute hour day-of-month month day-of-week),
	// optionally with a leading seconds field, or a descriptor such as @daily.
	Cron *string `json:"cron,omitempty" openapi:"required,minLength=1,limit=schedule.cron"`
	// Timezone is the IANA time zone the expression is read in (default UTC).
	Timezone *string `json:"timezone,omitempty" openapi:"minLength=1,limit=schedule.timezone"`
	// Enabled defaults to true.
	Enabled  *bool   `json:"enabled,omitempty"`
	TenantID *string `json:"tenant_id,omitempty" openapi:"limit=id"`
}

// PowerScheduleCreate is the body of POST /api/resources/power-schedules.
type PowerScheduleCreate struct {
	PowerScheduleBody
	MachineID *string `json:"machine_id,omitempty" openapi:"required,minLength=1,limit=id"`
}

// BackupScheduleBody is a backup schedule as clients write it.
type BackupScheduleBody struct {
	Cron     *string `json:"cron,omitempty" openapi:"required,minLength=1,limit=schedule.cron"`
	Timezone *string `json:"timezone,omitempty" openapi:"minLength=1,limit=schedule.timezone"`
	Enabled  *bool   `json:"enabled,omitempty"`
	// Retention is how many of the schedule's backups are kept, 1..100.
	Retention *int `json:"retention,omitempty" openapi:"required,limit=backup.retention"`
	// Mode is snapshot (default), suspend or stop.
	Mode     *string `json:"mode,omitempty" openapi:"enum=snapshot|suspend|stop"`
	TenantID *string `json:"tenant_id,omitempty" openapi:"limit=id"`
}

// BackupScheduleCreate is the body of POST /api/resources/backup-schedules.
type BackupScheduleCreate struct {
	BackupScheduleBody
	MachineID *string `json:"machine_id,omitempty" openapi:"required,minLength=1,limit=id"`
}

func (b PowerScheduleCreate) machine() *string  { return b.MachineID }
func (b BackupScheduleCreate) machine() *string { return b.MachineID }

func (b PowerScheduleBody) input() schedules.ScheduleInput {
	return schedules.ScheduleInput{Action: b.Action, Cron: b.Cron, Timezone: b.Timezone, Enabled: b.Enabled, TenantID: b.TenantID}
}

func (b BackupScheduleBody) input() schedules.ScheduleInput {
	return schedules.ScheduleInput{Cron: b.Cron, Timezone: b.Timezone, Enabled: b.Enabled, Retention: b.Retention, Mode: b.Mode, TenantID: b.TenantID}
}

// scheduleRoutes are the client routes of power and backup schedules.
func (s *Server) scheduleRoutes() []Route {
	tag := "client"
	power := func() ScheduleService[schedules.PowerSchedule] { return s.svc.PowerSchedules }
	backup := func() ScheduleService[schedules.BackupSchedule] { return s.svc.BackupSchedules }
	list := withPage(map[string]string{"tenant_id": tenantQuery["tenant_id"]})
	return []Route{
		{Method: "POST", Path: "/api/client/machines/{vmId}/power-schedules", Access: Authenticated, Handler: clientCreateSchedule[schedules.PowerSchedule, PowerScheduleBody](s, power), Tag: tag,
			Summary: "Add a power schedule: start, stop, shut down or reboot the machine on a cron expression in a time zone",
			Body:    PowerScheduleBody{}, Reply: schedules.PowerSchedule{}, Status: fasthttp.StatusCreated, Query: tenantQuery, Stamped: true},
		{Method: "GET", Path: "/api/client/machines/{vmId}/power-schedules", Access: Authenticated, Handler: clientSchedules(s, power), Tag: tag,
			Summary: "The machine's power schedules", Reply: Page[schedules.PowerSchedule]{}, Query: list},
		{Method: "POST", Path: "/api/client/machines/{vmId}/backup-schedules", Access: Authenticated, Handler: clientCreateSchedule[schedules.BackupSchedule, BackupScheduleBody](s, backup), Tag: tag,
			Summary: "Add a backup schedule: back the machine up on a cron expression, keeping the newest `retention` backups",
			Body:    BackupScheduleBody{}, Reply: schedules.BackupSchedule{}, Status: fasthttp.StatusCreated, Query: tenantQuery, Stamped: true},
		{Method: "GET", Path: "/api/client/machines/{vmId}/backup-schedules", Access: Authenticated, Handler: clientSchedules(s, backup), Tag: tag,
			Summary: "The machine's backup schedules", Reply: Page[schedules.BackupSchedule]{}, Query: list},
	}
}

// clientMachine resolves the {vmId} of a client route (a record id or a vmid) to one
// of the tenant's machines: another tenant's is not found.
func (s *Server) clientMachine(c *Call) (tenant string, machineID string, err error) {
	if tenant, err = c.tenant(); err != nil {
		return "", "", err
	}
	m, err := s.svc.Machines.Get(c.Context(), c.Param("vmId"), &tenant)
	if err != nil {
		return "", "", err
	}
	return tenant, m.ID, nil
}

// clientCreateSchedule is the handler that adds a schedule of one kind (B its body) to
// one of the tenant's machines.
func clientCreateSchedule[T any, B scheduleBody](s *Server, svc func() ScheduleService[T]) func(*Call) (any, error) {
	return func(c *Call) (any, error) {
		var b B
		if err := c.Decode(&b); err != nil {
			return nil, err
		}
		t, id, err := s.clientMachine(c)
		if err != nil {
			return nil, err
		}
		if err := c.checkBodyTenant(t); err != nil {
			return nil, err
		}
		in := b.input()
		in.MachineID = &id
		r, err := svc().Create(c.Context(), t, in)
		if err != nil {
			return nil, err
		}
		return Created(r), nil
	}
}

// clientSchedules is the handler that lists one kind of schedule of one of the
// tenant's machines.
func clientSchedules[T any](s *Server, svc func() ScheduleService[T]) func(*Call) (any, error) {
	return func(c *Call) (any, error) {
		t, id, err := s.clientMachine(c)
		if err != nil {
			return nil, err
		}
		limit, cursor, err := c.paging()
		if err != nil {
			return nil, err
		}
		items, next, err := svc().List(c.Context(), &t, id, cursor, limit)
		if err != nil {
			return nil, err
		}
		return page(items, next), nil
	}
}

// listTenant is the tenant a resource list covers: the caller's own, or for an
// operator the one named by ?tenant_id= (nil: every tenant's).
func listTenant(c *Call, scope *string) *string {
	if scope != nil {
		return scope
	}
	if t := c.Query("tenant_id"); t != "" {
		return &t
	}
	return nil
}

// scheduleResources are the registry entries of schedules and backups. Lists take
// ?machine_id= to keep one machine's, and operators ?tenant_id=.
func (s *Server) scheduleResources() []resource {
	svc := s.svc
	return []resource{
		scheduleResource[schedules.PowerSchedule, PowerScheduleBody, PowerScheduleCreate]("power-schedules", "power schedules",
			func() ScheduleService[schedules.PowerSchedule] { return svc.PowerSchedules }),
		scheduleResource[schedules.BackupSchedule, BackupScheduleBody, BackupScheduleCreate]("backup-schedules", "backup schedules",
			func() ScheduleService[schedules.BackupSchedule] { return svc.BackupSchedules }),
		// Backups are taken by backup schedules; they are read and deleted here. A
		// delete removes the backup from the hypervisor, then its record.
		{name: "backups", scoped: true, read: Authenticated, write: Authenticated, summary: "backups",
			item: itemOf[machines.Backup](), query: scheduleListQuery,
			list: func(c *Call, scope *string, cursor string, limit int) (any, string, error) {
				return svc.Backups.List(c.Context(), listTenant(c, scope), c.Query("machine_id"), cursor, limit)
			},
			get: func(c *Call, scope *string, id string) (any, error) { return svc.Backups.Get(c.Context(), id, scope) },
			delete: func(c *Call, scope *string, id string) (any, error) {
				return NoContent, svc.Backups.Delete(c.Context(), id, scope)
			},
		},
	}
}

// scheduleListQuery declares the filters of schedule and backup lists.
var scheduleListQuery = map[string]string{"tenant_id": "operators: only this tenant's", "machine_id": "only this machine's"}

// ScheduleService is what power and backup schedules both offer.
type ScheduleService[T any] interface {
	Create(ctx context.Context, tenant string, in schedules.ScheduleInput) (T, error)
	Get(ctx context.Context, id string, scope *string) (T, error)
	Update(ctx context.Context, id string, scope *string, in schedules.ScheduleInput) (T, error)
	Delete(ctx context.Context, id string, scope *string) error
	List(ctx context.Context, tenant *string, machineID, cursor string, limit int) ([]T, string, error)
}

// scheduleBody is a schedule's update body; a create body also names the machine.
type scheduleBody interface {
	input() schedules.ScheduleInput
}

type scheduleCreateBody interface {
	scheduleBody
	machine() *string
}

// scheduleResource is the generic resource of one kind of schedule: T the schedule, B
// its update body, C its create body.
func scheduleResource[T any, B scheduleBody, C scheduleCreateBody](name, summary string, svc func() ScheduleService[T]) resource {
	return resource{name: name, scoped: true, read: Authenticated, write: Authenticated, summary: summary, stamped: true,
		item: itemOf[T](), createBody: *new(C), updateBody: *new(B), query: scheduleListQuery,
		list: func(c *Call, scope *string, cursor string, limit int) (any, string, error) {
			return svc().List(c.Context(), listTenant(c, scope), c.Query("machine_id"), cursor, limit)
		},
		get: func(c *Call, scope *string, id string) (any, error) { return svc().Get(c.Context(), id, scope) },
		create: func(c *Call, _ *string, tenant *string) (any, error) {
			var b C
			if err := c.Decode(&b); err != nil {
				return nil, err
			}
			t, err := requireTenant(tenant)
			if err != nil {
				return nil, err
			}
			in := b.input()
			in.MachineID = b.machine()
			return svc().Create(c.Context(), t, in)
		},
		update: func(c *Call, scope *string, id string) (any, error) {
			var b B
			if err := c.Decode(&b); err != nil {
				return nil, err
			}
			return svc().Update(c.Context(), id, scope, b.input())
		},
		delete: func(c *Call, scope *string, id string) (any, error) {
			return NoContent, svc().Delete(c.Context(), id, scope)
		},
	}
}
