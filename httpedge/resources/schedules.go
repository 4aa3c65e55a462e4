package resources

import (
	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/schedules"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/clientarea"
)

// listTenant is the tenant a resource list covers: the caller's own, or for an
// operator the one named by ?tenant_id= (nil: every tenant's).
func listTenant(c *api.Call, scope *string) *string {
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
func (h *handlers) scheduleResources() []resource {
	svc := h.svc
	return []resource{
		scheduleResource[schedules.PowerSchedule, clientarea.PowerScheduleBody, clientarea.PowerScheduleCreate]("power-schedules", "power schedules",
			func() api.ScheduleService[schedules.PowerSchedule] { return svc.PowerSchedules }),
		scheduleResource[schedules.BackupSchedule, clientarea.BackupScheduleBody, clientarea.BackupScheduleCreate]("backup-schedules", "backup schedules",
			func() api.ScheduleService[schedules.BackupSchedule] { return svc.BackupSchedules }),
		// Backups are taken by backup schedules; they are read and deleted here. A
		// delete removes the backup from the hypervisor, then its record.
		{name: "backups", scoped: true, read: api.Authenticated, write: api.Authenticated, summary: "backups",
			item: itemOf[backups.Backup](), query: scheduleListQuery,
			list: func(c *api.Call, scope *string, cursor string, limit int) (any, string, error) {
				return svc.Backups.List(c.Context(), listTenant(c, scope), c.Query("machine_id"), cursor, limit)
			},
			get: func(c *api.Call, scope *string, id string) (any, error) {
				return svc.Backups.Get(c.Context(), id, scope)
			},
			delete: func(c *api.Call, scope *string, id string) (any, error) {
				return api.NoContent, svc.Backups.Delete(c.Context(), id, scope)
			},
		},
	}
}

// scheduleListQuery declares the filters of schedule and backup lists.
var scheduleListQuery = map[string]string{"tenant_id": "operators: only this tenant's", "machine_id": "only this machine's"}

// scheduleResource is the generic resource of one kind of schedule: T the schedule, B
// its update body, C its create body.
func scheduleResource[T any, B clientarea.ScheduleBody, C clientarea.ScheduleCreateBody](name, summary string, svc func() api.ScheduleService[T]) resource {
	return resource{name: name, scoped: true, read: api.Authenticated, write: api.Authenticated, summary: summary, stamped: true,
		item: itemOf[T](), createBody: *new(C), updateBody: *new(B), query: scheduleListQuery,
		list: func(c *api.Call, scope *string, cursor string, limit int) (any, string, error) {
			return svc().List(c.Context(), listTenant(c, scope), c.Query("machine_id"), cursor, limit)
		},
		get: func(c *api.Call, scope *string, id string) (any, error) { return svc().Get(c.Context(), id, scope) },
		create: func(c *api.Call, _ *string, tenant *string) (any, error) {
			var b C
			if err := c.Decode(&b); err != nil {
				return nil, err
			}
			t, err := requireTenant(tenant)
			if err != nil {
				return nil, err
			}
			in := b.Input()
			in.MachineID = b.Machine()
			return svc().Create(c.Context(), t, in)
		},
		update: func(c *api.Call, scope *string, id string) (any, error) {
			var b B
			if err := c.Decode(&b); err != nil {
				return nil, err
			}
			return svc().Update(c.Context(), id, scope, b.Input())
		},
		delete: func(c *api.Call, scope *string, id string) (any, error) {
			return api.NoContent, svc().Delete(c.Context(), id, scope)
		},
	}
}
