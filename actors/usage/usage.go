package usage

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/persistence"
)

// Machine is what the hourly close reads of one machine: its holder, plan and sizes
// as its record stands when the hour is closed.
type Machine struct {
	ID        string
	Name      string
	TenantID  *string
	PlanID    *string
	CPUCores  int
	MemoryMB  int
	DiskGB    int
	Snapshots int
	CreatedAt time.Time
}

// Stored is what a machine's backups hold: how many, and their size in bytes where
// the driver reports one (0 where it does not).
type Stored struct {
	Count int
	Bytes int64
}

// Traffic is a machine's network traffic in one hour, in bytes.
type Traffic struct {
	In  int64
	Out int64
}

// UsageLine is what one machine on one plan used over some hours. The counters are
// integers, so sums are exact: memory in MB-hours, backup storage in byte-hours (and
// in backup-hours, a count, for the drivers that report no sizes), snapshots in
// snapshot-hours (a count: no driver reports a snapshot's size).
type UsageLine struct {
	MachineID string  `json:"machine_id"`
	Name      string  `json:"name" doc:"the machine's name when its last hour in the range closed"`
	TenantID  *string `json:"tenant_id"`
	PlanID    *string `json:"plan_id" doc:"null: explicit sizes, no plan"`
	// Hours is how many hours the machine existed on the plan.
	Hours           int64 `json:"hours"`
	CoreHours       int64 `json:"core_hours"`
	MemoryMBHours   int64 `json:"memory_mb_hours"`
	DiskGBHours     int64 `json:"disk_gb_hours"`
	BackupHours     int64 `json:"backup_hours" doc:"backups held, summed over the hours (a count)"`
	BackupByteHours int64 `json:"backup_byte_hours" doc:"bytes of backups held, summed over the hours"`
	SnapshotHours   int64 `json:"snapshot_hours" doc:"snapshots held, summed over the hours (a count)"`
	TrafficInBytes  int64 `json:"traffic_in_bytes"`
	TrafficOutBytes int64 `json:"traffic_out_bytes"`
	// EstimatedHours is how many of Hours were closed late (after a downtime) from
	// the state the machine had then.
	EstimatedHours int64 `json:"estimated_hours"`
}

// add adds o's counters to l.
func (l *UsageLine) add(o UsageLine) {
	l.Hours += o.Hours
	l.CoreHours += o.CoreHours
	l.MemoryMBHours += o.MemoryMBHours
	l.DiskGBHours += o.DiskGBHours
	l.BackupHours += o.BackupHours
	l.BackupByteHours += o.BackupByteHours
	l.SnapshotHours += o.SnapshotHours
	l.TrafficInBytes += o.TrafficInBytes
	l.TrafficOutBytes += o.TrafficOutBytes
	l.EstimatedHours += o.EstimatedHours
}

// hourRecord is what a tenant's machines used in one hour (usage-hour/...).
type hourRecord struct {
	Hour      time.Time   `json:"hour"`
	Estimated bool        `json:"estimated"`
	Machines  []UsageLine `json:"machines"`
	// Run and Parts name the parts that hold the lines after the first partLines
	// (usage-hour/<tenant>/<hour>/<Run>/<n>, n from 1 to Parts); none when Parts is 0.
	Run   string `json:"run,omitempty"`
	Parts int    `json:"parts,omitempty"`
}

// partLines is how many machines' lines one value of an hour holds: some 330 bytes
// each in JSON, so a value stays near a third of the store's 1 MB limit and within
// etcd's request limit.
const partLines = 1000

// deleteChunk is how many keys one batch of the retention deletes.
const deleteChunk = 100

// batchTenants and batchBytes bound one batch of the close's tenant hours: 40
// conditions and 80 writes are within etcd's default of 128 operations a transaction,
// and half a megabyte of values within its request limit of 1.5 MB.
const batchTenants, batchBytes = 40, 512 << 10

// closedRecord marks an hour closed (usage-closed/<hour>). It lists no tenants: past
// some 30,000 tenants the list passed the store's value limit, so the hour was never
// marked closed and was closed again every minute (issue 33). What the retention
// deletes is in the hour's index (usage-index/<hour>/...) instead.
type closedRecord struct {
	Hour      time.Time `json:"hour"`
	Estimated bool      `json:"estimated"`
	// Tenants is what a previous release wrote: the tenants of the hour, which the
	// retention still deletes for the hours such a member closed.
	Tenants []string `json:"tenants,omitempty"`
}

// indexRecord is one key of an hour's index (usage-index/<hour>/<tenant>[/<run>]):
// Parts is how many parts the run wrote (from 1), 0 in a tenant's key.
type indexRecord struct {
	Parts int `json:"parts,omitempty"`
}

const hourVersion, closedVersion, indexVersion = 1, 1, 1

// pruneHours is how many hours one call of Prune deletes at most, and indexPage how
// many keys of an hour's index it reads at a time.
const pruneHours, indexPage = 24, 1000

// Defaults of Options.
const (
	// DefaultRetention keeps 13 months: a year of invoices and the month being billed.
	DefaultRetention = 400 * 24 * time.Hour
	// DefaultBackfill is how far back missed hours are closed after a downtime
	// (estimated); older ones stay gaps.
	DefaultBackfill = 7 * 24 * time.Hour
	// Interval is how often the job looks for an hour to close.
	Interval = time.Minute
	// lateAfter: an hour closed this long after its end is marked estimated.
	lateAfter = 10 * time.Minute
	// MaxSpan bounds the hours one read may cover.
	MaxSpan = 366 * 24 * time.Hour
)

// Deps are what the usage needs from outside its package: the runtime (store, clock,
// the cluster's job placement) and the sources of an hour's figures, read when it is
// closed.
type Deps struct {
	Runtime *kit.Runtime
	// Machines lists every machine as its record stands.
	Machines func(ctx context.Context) ([]Machine, error)
	// Backups sums each machine's backups, by machine id; nil: none counted.
	Backups func(ctx context.Context) (map[string]Stored, error)
	// Traffic returns each machine's traffic in the hour starting at hour, by machine
	// id; nil: none counted.
	Traffic func(ctx context.Context, hour time.Time) (map[string]Traffic, error)
	// Retention is how long closed hours are kept (DefaultRetention when 0).
	Retention time.Duration
	// Backfill is how far back missed hours are closed (DefaultBackfill when 0).
	Backfill time.Duration
}

// Usage keeps and reads the hourly usage records.
type Usage struct {
	d     Deps
	store persistence.Store
	log   *zap.Logger
	loop  *kit.Loop
}

// New returns the usage records of d's store, without the job (Run starts it).
func New(d Deps) *Usage {
	if d.Retention <= 0 {
		d.Retention = DefaultRetention
	}
	if d.Backfill <= 0 {
		d.Backfill = DefaultBackfill
	}
	return &Usage{d: d, store: d.Runtime.Store, log: d.Runtime.Log.Named("usage")}
}

// Run starts the cluster-wide job that closes each hour once its end has passed
// (on one member of a cluster at a time) and drops hours past the retention.
func (u *Usage) Run() {
	u.loop = u.d.Runtime.EveryOnOne("usage hours", Interval, true, func(ctx context.Context, now time.Time) {
		if err := u.Close(ctx, now); err != nil && ctx.Err() == nil {
			u.log.Warn("closing usage hours", zap.Error(err))
		}
		if err := u.Prune(ctx, now); err != nil && ctx.Err() == nil {
			u.log.Warn("pruning usage hours", zap.Error(err))
		}
	})
}

// Stop ends the job.
func (u *Usage) Stop() { u.loop.Stop() }

// errStop ends a scan early.
var errStop = errors.New("stop")
