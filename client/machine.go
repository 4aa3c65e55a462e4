package client

import (
	"context"
	"iter"
	"net/http"
)

// One machine of the tenant, through the client area (/api/client/machines/{vmId}):
// its details, graphs, console, reinstall, delete, backups on demand and restores, and
// snapshots. A tenant user reaches its own tenant's machines; an operator names the
// tenant with ForTenant. The machine is named by id or vmid; another tenant's is
// ErrNotFound.

// restoreSpec is the body of RestoreMachine.
type restoreSpec struct {
	StartAfter bool `json:"start_after,omitempty"`
}

func (c *Client) machinePath(id string) string { return "/api/client/machines/" + esc(id) }

// MachineDetails reads one of the tenant's machines with its schedules.
func (c *Client) MachineDetails(ctx context.Context, id string) (*MachineDetail, error) {
	return callFor[MachineDetail](ctx, c, http.MethodGet, c.machinePath(id), c.clientQuery(), nil)
}

// MachineTasksPage reads one page of a machine's tasks, newest first.
func (c *Client) MachineTasksPage(ctx context.Context, id string, opt ListOptions) (Page[Task], error) {
	q := opt.values()
	for k, v := range c.clientQuery() {
		q[k] = v
	}
	return getPage[Task](ctx, c, c.machinePath(id)+"/tasks", q)
}

// MachineTasks yields every task of a machine, newest first.
func (c *Client) MachineTasks(ctx context.Context, id string, opt ListOptions) iter.Seq2[Task, error] {
	return all(ctx, opt, func(ctx context.Context, o ListOptions) (Page[Task], error) { return c.MachineTasksPage(ctx, id, o) })
}

// RemoveMachine deletes one of the tenant's machines through the client area and
// returns the task. A tenant user may only where the operator allows it
// (VMPLANE_TENANT_DELETE); otherwise ErrForbidden.
func (c *Client) RemoveMachine(ctx context.Context, id string) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodDelete, path: c.machinePath(id), query: c.clientQuery()})
}

// Reinstall rebuilds one of the tenant's machines from a template, with a new
// password or SSH keys, and returns the task.
func (c *Client) Reinstall(ctx context.Context, id string, r Reinstall) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, path: c.machinePath(id) + "/reinstall", query: c.clientQuery(), body: r})
}

// MachineConsole asks for a console ticket of one of the tenant's machines, of type
// typ (ConsoleSerial, "" too, or ConsoleVNC); ConsoleURL makes the websocket URL of it.
func (c *Client) MachineConsole(ctx context.Context, id, typ string) (*Console, error) {
	q := c.clientQuery()
	if typ != "" {
		q.Set("type", typ)
	}
	return callFor[Console](ctx, c, http.MethodGet, c.machinePath(id)+"/console", q, nil)
}

// MachineGraph reads the usage graph of one of the tenant's machines over timeframe
// (hour, day, week, month or year; "" for hour).
func (c *Client) MachineGraph(ctx context.Context, id, timeframe string) (*UsageGraph, error) {
	q := c.clientQuery()
	if timeframe != "" {
		q.Set("timeframe", timeframe)
	}
	return callFor[UsageGraph](ctx, c, http.MethodGet, c.machinePath(id)+"/usage-graphs", q, nil)
}

// MachineBackupsPage reads one page of a machine's backups, newest first.
func (c *Client) MachineBackupsPage(ctx context.Context, id string, opt ListOptions) (Page[Backup], error) {
	q := opt.values()
	for k, v := range c.clientQuery() {
		q[k] = v
	}
	return getPage[Backup](ctx, c, c.machinePath(id)+"/backups", q)
}

// MachineBackups yields every backup of a machine, newest first.
func (c *Client) MachineBackups(ctx context.Context, id string, opt ListOptions) iter.Seq2[Backup, error] {
	return all(ctx, opt, func(ctx context.Context, o ListOptions) (Page[Backup], error) {
		return c.MachineBackupsPage(ctx, id, o)
	})
}

// BackupMachine takes a backup of the machine now and returns the task; past the
// tenant's backup quota, ErrQuotaExceeded.
func (c *Client) BackupMachine(ctx context.Context, id string, spec BackupSpec) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, path: c.machinePath(id) + "/backups", query: c.clientQuery(), body: spec})
}

// RestoreMachine restores the machine over itself from one of its backups (stopped
// first; started after when startAfter), and returns the task.
func (c *Client) RestoreMachine(ctx context.Context, id, backupID string, startAfter bool) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, path: c.machinePath(id) + "/backups/" + esc(backupID) + "/restore",
		query: c.clientQuery(), body: restoreSpec{StartAfter: startAfter}})
}

// SnapshotsPage reads one page of a machine's snapshots, oldest first.
func (c *Client) SnapshotsPage(ctx context.Context, id string, opt ListOptions) (Page[Snapshot], error) {
	q := opt.values()
	for k, v := range c.clientQuery() {
		q[k] = v
	}
	return getPage[Snapshot](ctx, c, c.machinePath(id)+"/snapshots", q)
}

// Snapshots yields every snapshot of a machine, oldest first.
func (c *Client) Snapshots(ctx context.Context, id string, opt ListOptions) iter.Seq2[Snapshot, error] {
	return all(ctx, opt, func(ctx context.Context, o ListOptions) (Page[Snapshot], error) { return c.SnapshotsPage(ctx, id, o) })
}

// CreateSnapshot takes a snapshot of the machine and returns the task.
func (c *Client) CreateSnapshot(ctx context.Context, id string, spec SnapshotSpec) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, path: c.machinePath(id) + "/snapshots", query: c.clientQuery(), body: spec})
}

// RollbackSnapshot rolls the machine back to a snapshot and returns the task.
func (c *Client) RollbackSnapshot(ctx context.Context, id, name string) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodPost, path: c.machinePath(id) + "/snapshots/" + esc(name) + "/rollback", query: c.clientQuery()})
}

// DeleteSnapshot deletes a snapshot of the machine and returns the task.
func (c *Client) DeleteSnapshot(ctx context.Context, id, name string) (*Task, error) {
	return c.startTask(ctx, request{method: http.MethodDelete, path: c.machinePath(id) + "/snapshots/" + esc(name), query: c.clientQuery()})
}
