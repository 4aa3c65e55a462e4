// Package backups keeps the records of the backups taken of machines, by a schedule or
// on demand: each is written by its taker in the batch that records the taking (a
// schedule's run, a machine's task) through Put, and removed by retention (Del) or
// through the API (Backups.Delete, after the hypervisor's copy). It also holds what
// every taker shares: the backup modes, the bounds of retention, the result of a backup
// task and the pruning of a schedule's older backups. It asks no other room.
package backups

import (
	"context"
	"errors"
	"sort"
	"strings"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// Backup is a backup a schedule or a user (on demand) took, as the API shows it. Its id is ours (the id of
// the task that took it: creation order, safe in a path); BackupID is the
// hypervisor's name of the archive (a Proxmox volid may hold '/' and ':').
type Backup struct {
	ID        string `json:"id"`
	BackupID  string `json:"backup_id"`
	MachineID string `json:"machine_id"`
	TenantID  string `json:"tenant_id"`
	VMID      int    `json:"vmid"`
	Node      string `json:"node"`
	Storage   string `json:"storage"`
	Mode      string `json:"mode"`
	SizeBytes int64  `json:"size_bytes"`
	// CreatedAt is when the hypervisor took the backup.
	CreatedAt time.Time `json:"created_at"`
	// ScheduleID is the schedule that took it (it may have been deleted since).
	ScheduleID *string `json:"schedule_id"`
	// ScheduledAt is the due time of the run that took it.
	ScheduledAt *time.Time `json:"scheduled_at"`
	// TaskID is the task that took it.
	TaskID *string `json:"task_id"`
	// Origin says who asked for it: a schedule (OriginSchedule) or a user, on demand
	// (OriginOnDemand). Records written before it was kept were all a schedule's.
	Origin string `json:"origin"`
	// Note is what the user wrote when asking for a backup on demand.
	Note string `json:"note"`
	// Location is the hypervisor cluster that holds the archive, its machine's
	// ("default": the one the settings configure); records written before locations
	// existed lack it and read as the default. Archive names repeat across clusters.
	Location hvloc.ID `json:"location_id"`
}

// Ref is the backup's machine as its location's hypervisor knows it, which the calls
// about the archive go to.
func (r *Backup) Ref() hypervisor.Ref {
	return hypervisor.Ref{VMID: r.VMID, Node: r.Node, Location: string(r.Location)}
}

// Keys of backups: the record under its tenant (so that a tenant's backups are one
// range, which the overview counts), an id index for operators who name a backup by
// id alone, and a per-schedule index for retention.
//
//	backup/<tenant>/<id>         record
//	backup-id/<id>               → tenant
//	backup-sched/<schedule>/<id> → nil
func backupKey(tenant, id string) []byte { return persistence.Key("backup", tenant, id) }
func backupIDKey(id string) []byte       { return persistence.Key("backup-id", id) }
func backupScheduleKey(schedule, id string) []byte {
	return persistence.Key("backup-sched", schedule, id)
}

const backupVersion = 1

// Put puts into b the record of backup r and its index entries.
func Put(b *persistence.Batch, r *Backup) error {
	val, err := persistence.Encode(backupVersion, r)
	if err != nil {
		return err
	}
	b.Put(backupKey(r.TenantID, r.ID), val).Put(backupIDKey(r.ID), []byte(r.TenantID))
	if r.ScheduleID != nil {
		b.Put(backupScheduleKey(*r.ScheduleID, r.ID), nil)
	}
	return nil
}

// Del puts into b the deletion of backup r's record and its index entries.
func Del(b *persistence.Batch, r *Backup) {
	b.Del(backupKey(r.TenantID, r.ID)).Del(backupIDKey(r.ID))
	if r.ScheduleID != nil {
		b.Del(backupScheduleKey(*r.ScheduleID, r.ID))
	}
}

// Backups reads and deletes backup records. The records are written by the schedule
// that took each backup (in the batch that records its run, and removed by it when
// retention prunes them) or, for a backup taken on demand, by its machine (in the
// batch that records the task's end); a delete through the API removes the backup from the
// hypervisor first and then its record. Records are written once and deleted once,
// so these two writers never lose each other's update.
type Backups struct {
	rt     *kit.Runtime
	store  persistence.Store
	driver hypervisor.Driver
}

// New returns the backups' service on rt's store; driver deletes a backup's copy.
func New(rt *kit.Runtime, driver hypervisor.Driver) *Backups {
	return &Backups{rt: rt, store: rt.Store, driver: driver}
}

func (b *Backups) load(ctx context.Context, tenant, id string) (*Backup, error) {
	val, err := b.store.Get(ctx, backupKey(tenant, id))
	if err != nil {
		return nil, err
	}
	r, err := decodeBackup(val)
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// decodeBackup reads a backup record. One written before records said their origin
// was a schedule's: nothing else took backups then.
func decodeBackup(val []byte) (Backup, error) {
	var r Backup
	if _, err := persistence.Decode(val, &r); err != nil {
		return Backup{}, err
	}
	if r.Origin == "" {
		r.Origin = OriginSchedule
	}
	return r, nil
}

// Find returns a backup by id; with a tenant scope another tenant's is not found.
func (b *Backups) Find(ctx context.Context, id string, scope *string) (*Backup, error) {
	if id == "" || len(id) > 64 || strings.Contains(id, "/") {
		return nil, apierr.NotFound("backup", id)
	}
	tenant, err := b.store.Get(ctx, backupIDKey(id))
	if err == nil {
		var r *Backup
		if r, err = b.load(ctx, string(tenant), id); err == nil {
			if !kit.InScope(scope, &r.TenantID) {
				return nil, apierr.NotFound("backup", id)
			}
			return r, nil
		}
	}
	if errors.Is(err, persistence.ErrNotFound) {
		return nil, apierr.NotFound("backup", id)
	}
	return nil, err
}

// Get returns one backup; with a tenant scope another tenant's is not found.
func (b *Backups) Get(ctx context.Context, id string, scope *string) (Backup, error) {
	r, err := b.Find(ctx, id, scope)
	if err != nil {
		return Backup{}, err
	}
	return *r, nil
}

// List returns backups, oldest first: a tenant's, or with a nil tenant everyone's (by
// tenant); machineID, when set, keeps only that machine's.
func (b *Backups) List(ctx context.Context, tenant *string, machineID, cursor string, limit int) ([]Backup, string, error) {
	prefix := persistence.Prefix("backup")
	if tenant != nil {
		prefix = persistence.Prefix("backup", *tenant)
	}
	return kit.ScanFiltered(ctx, b.store, prefix, cursor, limit, func(_ string, v []byte) (Backup, bool, error) {
		r, err := decodeBackup(v)
		return r, err == nil && (machineID == "" || r.MachineID == machineID), err
	})
}

// Delete deletes a backup from the hypervisor and then its record. A backup already
// gone from the hypervisor only loses its record.
func (b *Backups) Delete(ctx context.Context, id string, scope *string) error {
	r, err := b.Find(ctx, id, scope)
	if err != nil {
		return err
	}
	if b.driver == nil {
		return apierr.New(apierr.ErrUnavailable, "no hypervisor is configured")
	}
	err = b.driver.DeleteBackup(ctx, r.Ref(), r.BackupID)
	if err != nil && !errors.Is(err, hypervisor.ErrBackupNotFound) {
		return err
	}
	batch := new(persistence.Batch)
	Del(batch, r)
	if err := b.rt.Audit(batch, kit.AuditOf(ctx).On("", r.ID, r.TenantID)); err != nil {
		return err
	}
	return b.rt.Commit(batch)
}

// OfSchedule returns the backups a schedule took, oldest first.
func (b *Backups) OfSchedule(ctx context.Context, tenant, schedule string) ([]*Backup, error) {
	prefix := persistence.Prefix("backup-sched", schedule)
	var ids []string
	if err := b.store.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
		ids = append(ids, string(k[len(prefix):]))
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([]*Backup, 0, len(ids))
	for _, id := range ids {
		r, err := b.load(ctx, tenant, id)
		if errors.Is(err, persistence.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Count counts a tenant's backups on record, up to limit (0: all of them): the
// overview shows the number, and a tenant with one left cannot be deleted.
func (b *Backups) Count(ctx context.Context, tenant string, limit int) (int, error) {
	n := 0
	err := b.store.Scan(ctx, persistence.Prefix("backup", tenant), nil, limit, func(_, _ []byte) error { n++; return nil })
	return n, err
}

// TenantHeld sums a tenant's backups on record (one scan of the tenant's range): what
// its backup_gb quota is checked against.
func (b *Backups) TenantHeld(ctx context.Context, tenant string) (Held, error) {
	var h Held
	var r struct {
		SizeBytes int64 `json:"size_bytes"`
	}
	err := b.store.Scan(ctx, persistence.Prefix("backup", tenant), nil, 0, func(_, v []byte) error {
		r.SizeBytes = 0
		h.Count++
		if _, err := persistence.Decode(v, &r); err != nil {
			return nil // a corrupt record is reported where it is used
		}
		h.Bytes += r.SizeBytes
		return nil
	})
	return h, err
}

// OfMachine returns the backups on record of one machine.
func (b *Backups) OfMachine(tenant, machine string) ([]Backup, error) {
	out, _, err := b.List(context.Background(), &tenant, machine, "", 0)
	return out, err
}

// Result is the result of a backup task (machines' OpBackup).
type Result struct {
	// Backup is the backup taken.
	Backup hypervisor.Backup `json:"backup"`
	// Pruned lists the hypervisor ids of older backups deleted by retention.
	Pruned []string `json:"pruned"`
	// Missing lists the hypervisor ids of older backups that no longer existed.
	Missing []string `json:"missing,omitempty"`
	// PruneErrors says why some could not be deleted; the next run tries again.
	PruneErrors []string `json:"prune_errors,omitempty"`
}

// Prune keeps the newest retention of a schedule's backups: taken, and those
// of prunable that the hypervisor still lists. Only the schedule's own backups are
// counted and deleted; backups taken any other way are never touched. The backup just
// taken is never deleted.
func Prune(ctx context.Context, d hypervisor.Driver, ref hypervisor.Ref, taken hypervisor.Backup, retention int, prunable []string) (pruned, missing, errs []string) {
	if retention < 1 {
		return nil, nil, nil
	}
	list, err := d.Backups(ctx, ref)
	if err != nil {
		return nil, nil, []string{apierr.From(err).Error()}
	}
	mine := map[string]bool{taken.ID: true}
	for _, id := range prunable {
		mine[id] = true
	}
	listed := map[string]bool{}
	kept := []hypervisor.Backup{}
	for _, b := range list {
		listed[b.ID] = true
		if mine[b.ID] {
			kept = append(kept, b)
		}
	}
	if !listed[taken.ID] {
		kept = append(kept, taken)
	}
	for _, id := range prunable {
		if !listed[id] {
			missing = append(missing, id)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].CreatedAt.Before(kept[j].CreatedAt) })
	for i := 0; i < len(kept)-retention; i++ {
		if kept[i].ID == taken.ID {
			continue
		}
		err := d.DeleteBackup(ctx, ref, kept[i].ID)
		switch {
		case err == nil:
			pruned = append(pruned, kept[i].ID)
		case errors.Is(err, hypervisor.ErrBackupNotFound):
			missing = append(missing, kept[i].ID)
		default:
			errs = append(errs, kept[i].ID+": "+apierr.From(err).Error())
		}
	}
	return pruned, missing, errs
}

// Limits of a backup's retention: how many of a schedule's backups are kept.
const MinRetention, MaxRetention = 1, 100

// Modes are the ways a backup may be taken.
var Modes = []hypervisor.BackupMode{hypervisor.BackupSnapshot, hypervisor.BackupSuspend, hypervisor.BackupStop}

// Origins of a backup record: who asked for it.
const (
	OriginSchedule = "schedule"
	OriginOnDemand = "on_demand"
	// OriginExternal: taken outside vmplane (a vzdump job of Proxmox's own), and
	// adopted by the sync (machines' Backups.Adopt).
	OriginExternal = "external"
)

// Held is what one machine's backups on record hold.
type Held struct {
	Count int
	Bytes int64
}

// HeldByMachine sums the backups on record by machine id. It reads every backup
// record, so it is for the hourly usage job, never for a request.
func (b *Backups) HeldByMachine(ctx context.Context) (map[string]Held, error) {
	out := map[string]Held{}
	var r struct {
		MachineID string `json:"machine_id"`
		SizeBytes int64  `json:"size_bytes"`
	}
	err := b.store.Scan(ctx, persistence.Prefix("backup"), nil, 0, func(_, v []byte) error {
		r.MachineID, r.SizeBytes = "", 0
		if _, err := persistence.Decode(v, &r); err != nil {
			return nil // a corrupt record is reported where it is used
		}
		h := out[r.MachineID]
		h.Count++
		h.Bytes += r.SizeBytes
		out[r.MachineID] = h
		return nil
	})
	return out, err
}
