package schedules

import (
	"context"
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
// together): 409 quota_exceeded. Two creates at the same moment may each pass; the
// bound is on what a tenant keeps asking of the hypervisor, not an exact count.
func (s *Schedules) checkCount(ctx context.Context, tenant string) error {
	most := s.opts.PerTenant
	if most <= 0 {
		return nil
	}
	n := 0
	if err := s.sys.store.Scan(ctx, persistence.Prefix("sched-tenant", tenant), nil, most, func(_, _ []byte) error {
		n++
		return nil
	}); err != nil {
		return err
	}
	if n >= most {
		e := apierr.New(apierr.ErrQuotaExceeded, "the tenant has %d schedules, the most allowed", most)
		e.Fields = []apierr.FieldError{apierr.Field("schedules", "at most %d a tenant, in use %d", most, n)}
		return e
	}
	return nil
}
