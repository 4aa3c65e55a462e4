package schedules

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/vmplane/vmplane/actors/kit"
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
// together): 409 quota_exceeded. The service asks it before the create reaches its
// entity, which counts again and claims its count (claimCount) in the write that
// records the schedule, so that creates at the same moment never pass the count.
func (s *Schedules) checkCount(ctx context.Context, tenant string) error {
	_, _, err := s.claimCount(ctx, tenant)
	return err
}

// countKey is a tenant's claim key of its schedules' count: sched-count/<tenant>, a
// new value at every create of one of its schedules while the count is bounded.
func countKey(tenant string) []byte { return persistence.Key("sched-count", tenant) }

// claimCount counts tenant's schedules, refuses one more past the bound, and answers
// the writes that make a create's batch claim the count: the claim key required as
// read (nil: absent) and changed. With no bound there is nothing to claim (nil).
func (s *Schedules) claimCount(ctx context.Context, tenant string) (extra func(*persistence.Batch), read []byte, err error) {
	most := s.opts.PerTenant
	if most <= 0 {
		return nil, nil, nil
	}
	key := countKey(tenant)
	if read, err = s.sys.store.Get(ctx, key); errors.Is(err, persistence.ErrNotFound) {
		read, err = nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	n := 0
	if err := s.sys.store.Scan(ctx, persistence.Prefix("sched-tenant", tenant), nil, most, func(_, _ []byte) error {
		n++
		return nil
	}); err != nil {
		return nil, nil, err
	}
	if n >= most {
		e := apierr.New(apierr.ErrQuotaExceeded, "the tenant has %d schedules, the most allowed", most)
		e.Fields = []apierr.FieldError{apierr.Field("schedules", "at most %d a tenant, in use %d", most, n)}
		return nil, nil, e
	}
	return func(b *persistence.Batch) {
		if read == nil {
			b.Require(persistence.IfAbsent(key))
		} else {
			b.Require(persistence.IfValue(key, read))
		}
		b.Put(key, []byte(persistence.NewID()))
	}, read, nil
}

// countTries bounds how often a create counts again because another create of the
// tenant's claimed the count first.
const countTries = 20

// saveCounted writes a new schedule as save does, its tenant's count claimed in the
// same batch (claimCount), and counted again when another create claimed it first.
func (e *scheduleEntity) saveCounted(next *scheduleRecord, st *kit.Stamp) error {
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	for try := 1; ; try++ {
		extra, read, err := e.ss.claimCount(ctx, next.TenantID)
		if err != nil {
			return err
		}
		err = e.saveWith(next, st, extra)
		if extra == nil || !persistence.IsConditionFailed(err) || try == countTries {
			return err
		}
		now, gerr := e.sys.store.Get(ctx, countKey(next.TenantID))
		if errors.Is(gerr, persistence.ErrNotFound) {
			now, gerr = nil, nil
		}
		if gerr != nil || (now == nil) == (read == nil) && string(now) == string(read) {
			return err // another of the batch's conditions failed
		}
	}
}
