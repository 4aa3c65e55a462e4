package schedules

import (
	"bytes"
	"context"
	"errors"
	"math"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Bounds an operator sets on the schedules (ScheduleOptions), so that a tenant cannot
// run backups every 15 s against the hypervisor: the shortest time between two runs of
// a schedule of each kind, and how many schedules a tenant may have.

// DefaultMinBackupInterval and DefaultMinPowerInterval are the configuration's
// defaults of ScheduleOptions.MinBackupInterval and MinPowerInterval.
const (
	DefaultMinBackupInterval = time.Hour
	DefaultMinPowerInterval  = 5 * time.Minute
)

// gapSamples bounds the due times shortestGap looks at: a cron expression's pattern
// repeats within a year, and one whose gaps are all long enough is read to its end in
// well under a millisecond.
const gapSamples = 5000

// shortestGap is the shortest time between two due times of sched in loc over the
// year from from (at most gapSamples due times), or the first gap found shorter than
// bound. It is math.MaxInt64 for a schedule that fires once or never in that year.
func shortestGap(sched cron.Schedule, loc *time.Location, from time.Time, bound time.Duration) time.Duration {
	if c, ok := sched.(cron.ConstantDelaySchedule); ok {
		return c.Delay // @every: the same gap every time
	}
	shortest := time.Duration(math.MaxInt64)
	end := from.AddDate(1, 0, 0)
	prev := sched.Next(from.In(loc))
	for i := 0; i < gapSamples && !prev.IsZero() && prev.Before(end); i++ {
		next := sched.Next(prev)
		if next.IsZero() {
			break
		}
		if gap := next.Sub(prev); gap < shortest {
			shortest = gap
			if gap < bound {
				break
			}
		}
		prev = next
	}
	return shortest
}

// minInterval is the operator's bound on the time between two runs of a schedule of
// kind (0: none).
func (s *Schedules) minInterval(kind string) time.Duration {
	if kind == ScheduleBackup {
		return s.opts.MinBackupInterval
	}
	return s.opts.MinPowerInterval
}

// checkInterval refuses a schedule whose cron fires more often than the operator
// allows for its kind: 400 naming cron and the bound. Call it on a valid record.
func (s *Schedules) checkInterval(r *scheduleRecord) []apierr.FieldError {
	bound := s.minInterval(r.Kind)
	if bound <= 0 {
		return nil
	}
	sched, loc, f := compileSchedule(r.Cron, r.Timezone)
	if len(f) > 0 {
		return f
	}
	if gap := shortestGap(sched, loc, s.now(), bound); gap < bound {
		return []apierr.FieldError{apierr.Field("cron", "fires %s apart at the shortest; %s allow at least %s between runs",
			gap, kindName(r.Kind)+"s", bound)}
	}
	return nil
}

// checkCount refuses a tenant's schedule beyond the operator's count (both kinds
// together): 409 quota_exceeded. It returns what the tenant's count key held when
// counted (nil: absent), which the create's batch requires unchanged (claimCount):
// two creates of one tenant at the same moment counted the same schedules, and the
// one whose batch lands second is refused and counts again.
func (s *Schedules) checkCount(ctx context.Context, tenant string) (counted bool, read []byte, err error) {
	most := s.opts.PerTenant
	if most <= 0 {
		return false, nil, nil
	}
	// The key first: a create that lands after this read changes it, whether or not
	// the scan below saw its schedule.
	read, err = s.sys.store.Get(ctx, countKey(tenant))
	if errors.Is(err, persistence.ErrNotFound) {
		read, err = nil, nil
	}
	if err != nil {
		return false, nil, err
	}
	n := 0
	if err := s.sys.store.Scan(ctx, persistence.Prefix("sched-tenant", tenant), nil, most, func(_, _ []byte) error {
		n++
		return nil
	}); err != nil {
		return false, nil, err
	}
	if n >= most {
		e := apierr.New(apierr.ErrQuotaExceeded, "the tenant has %d schedules, the most allowed", most)
		e.Fields = []apierr.FieldError{apierr.Field("schedules", "at most %d a tenant, in use %d", most, n)}
		return false, nil, e
	}
	return true, read, nil
}

// countKey is sched-count/<tenant>: a fresh value at every create of the tenant's
// schedules that was counted, so that a create counted against what it read fails
// once another lands first. Deletes leave it alone: a create that counted a schedule
// deleted since was only stricter than it had to be.
func countKey(tenant string) []byte { return persistence.Key("sched-count", tenant) }

// ForgetTenant puts into b the delete of a deleted tenant's count key (it has no
// schedule left: the tenants ask TenantHasSchedules first). A create counted against
// the key as it was is refused by the delete and counts again, against a tenant gone.
func ForgetTenant(b *persistence.Batch, tenant string) { b.Del(countKey(tenant)) }

// claimCount makes b require the tenant's count key to hold read (absent for nil)
// and gives it a fresh value.
func claimCount(b *persistence.Batch, tenant string, read []byte) {
	if read == nil {
		b.Require(persistence.IfAbsent(countKey(tenant)))
	} else {
		b.Require(persistence.IfValue(countKey(tenant), read))
	}
	b.Put(countKey(tenant), []byte(persistence.NewID()))
}

// countMoved reports whether the tenant's count key holds something else than read:
// a batch that required read failed for that (another create landed), not for one
// of its other conditions.
func (s *Schedules) countMoved(ctx context.Context, tenant string, read []byte) bool {
	now, err := s.sys.store.Get(ctx, countKey(tenant))
	if errors.Is(err, persistence.ErrNotFound) {
		return read != nil
	}
	return err == nil && !bytes.Equal(now, read)
}
