package clientarea

import (
	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/httpedge/api"
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

// Machine is the machine the schedule is for.
func (b PowerScheduleCreate) Machine() *string { return b.MachineID }

// Machine is the machine the schedule is for.
func (b BackupScheduleCreate) Machine() *string { return b.MachineID }

// Input is the body as the schedules service takes it.
func (b PowerScheduleBody) Input() schedules.ScheduleInput {
	return schedules.ScheduleInput{Action: b.Action, Cron: b.Cron, Timezone: b.Timezone, Enabled: b.Enabled, TenantID: b.TenantID}
}

// Input is the body as the schedules service takes it.
func (b BackupScheduleBody) Input() schedules.ScheduleInput {
	return schedules.ScheduleInput{Cron: b.Cron, Timezone: b.Timezone, Enabled: b.Enabled, Retention: b.Retention, Mode: b.Mode, TenantID: b.TenantID}
}

// scheduleRoutes are the client routes of power and backup schedules.
func (h *handlers) scheduleRoutes() []api.Route {
	tag := "client"
	power := func() api.ScheduleService[schedules.PowerSchedule] { return h.svc.PowerSchedules }
	backup := func() api.ScheduleService[schedules.BackupSchedule] { return h.svc.BackupSchedules }
	list := api.WithPage(map[string]string{"tenant_id": tenantQuery["tenant_id"]})
	return []api.Route{
		{Method: "POST", Path: "/api/client/machines/{vmId}/power-schedules", Access: api.Authenticated, Handler: clientCreateSchedule[schedules.PowerSchedule, PowerScheduleBody](h, power), Tag: tag,
			Summary: "Add a power schedule: start, stop, shut down or reboot the machine on a cron expression in a time zone",
			Body:    PowerScheduleBody{}, Reply: schedules.PowerSchedule{}, Status: fasthttp.StatusCreated, Query: tenantQuery, Stamped: true},
		{Method: "GET", Path: "/api/client/machines/{vmId}/power-schedules", Access: api.Authenticated, Handler: clientSchedules(h, power), Tag: tag,
			Summary: "The machine's power schedules", Reply: api.Page[schedules.PowerSchedule]{}, Query: list},
		{Method: "POST", Path: "/api/client/machines/{vmId}/backup-schedules", Access: api.Authenticated, Handler: clientCreateSchedule[schedules.BackupSchedule, BackupScheduleBody](h, backup), Tag: tag,
			Summary: "Add a backup schedule: back the machine up on a cron expression, keeping the newest `retention` backups",
			Body:    BackupScheduleBody{}, Reply: schedules.BackupSchedule{}, Status: fasthttp.StatusCreated, Query: tenantQuery, Stamped: true},
		{Method: "GET", Path: "/api/client/machines/{vmId}/backup-schedules", Access: api.Authenticated, Handler: clientSchedules(h, backup), Tag: tag,
			Summary: "The machine's backup schedules", Reply: api.Page[schedules.BackupSchedule]{}, Query: list},
	}
}

// clientMachine resolves the {vmId} of a client route (a record id or a vmid) to one
// of the tenant's machines: another tenant's is not found.
func (h *handlers) clientMachine(c *api.Call) (tenant string, machineID string, err error) {
	if tenant, err = c.Tenant(); err != nil {
		return "", "", err
	}
	m, err := h.svc.Machines.Get(c.Context(), c.Param("vmId"), &tenant)
	if err != nil {
		return "", "", err
	}
	return tenant, m.ID, nil
}

// clientCreateSchedule is the handler that adds a schedule of one kind (B its body) to
// one of the tenant's machines.
func clientCreateSchedule[T any, B ScheduleBody](h *handlers, svc func() api.ScheduleService[T]) func(*api.Call) (any, error) {
	return func(c *api.Call) (any, error) {
		var b B
		if err := c.Decode(&b); err != nil {
			return nil, err
		}
		t, id, err := h.clientMachine(c)
		if err != nil {
			return nil, err
		}
		if err := c.CheckBodyTenant(t); err != nil {
			return nil, err
		}
		in := b.Input()
		in.MachineID = &id
		r, err := svc().Create(c.Context(), t, in)
		if err != nil {
			return nil, err
		}
		return api.Created(r), nil
	}
}

// clientSchedules is the handler that lists one kind of schedule of one of the
// tenant's machines.
func clientSchedules[T any](h *handlers, svc func() api.ScheduleService[T]) func(*api.Call) (any, error) {
	return func(c *api.Call) (any, error) {
		t, id, err := h.clientMachine(c)
		if err != nil {
			return nil, err
		}
		limit, cursor, err := c.Paging()
		if err != nil {
			return nil, err
		}
		items, next, err := svc().List(c.Context(), &t, id, cursor, limit)
		if err != nil {
			return nil, err
		}
		return api.PageOf(items, next), nil
	}
}

// ScheduleBody is a schedule's update body; a create body also names the machine.
type ScheduleBody interface {
	Input() schedules.ScheduleInput
}

// ScheduleCreateBody is a schedule's create body.
type ScheduleCreateBody interface {
	ScheduleBody
	Machine() *string
}
