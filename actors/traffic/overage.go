package traffic

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/persistence"
)

// Overage is what the overage job asks of the plans and the machines, and the action
// it has taken on a machine past its allowance.
type Overage struct {
	// Smallest is the smallest monthly allowance any plan has, in bytes (ok false: no
	// plan has one): a machine whose month is below it is not looked up.
	Smallest func(ctx context.Context) (bytes uint64, ok bool, err error)
	// Allowance is a machine's monthly allowance in bytes, its plan's traffic_gb (ok
	// false: none, no plan or a plan without one).
	Allowance func(ctx context.Context, machine string) (bytes uint64, ok bool, err error)
	// Exceeded takes the operator's action on a machine past its allowance and says
	// what it did. It is called once per machine and month, again at the job's next
	// run when it fails.
	Exceeded func(ctx context.Context, e Exceeded) (Taken, error)
	// MonthEnded undoes, once the month is over, what Exceeded did (a throttle is
	// lifted, the alert resolved); again at the next run when it fails.
	MonthEnded func(ctx context.Context, e Exceeded, taken Taken) error
}

// Taken is the action taken on a machine past its allowance, kept with the overage
// until the month's turn undoes it.
type Taken struct {
	// Action names it: "report", "throttle", "suspend".
	Action string `json:"action"`
	// PriorRates are the rate limits (Mbps, 0 for none) the machine's interfaces had
	// before a throttle, by interface id: what lifting it puts back, rather than the
	// plan's rate over a limit the operator had set by hand.
	PriorRates map[string]int `json:"prior_rates,omitempty"`
}

// Exceeded is a machine that went past its allowance in a month.
type Exceeded struct {
	MachineID string `json:"machine_id"`
	// Month is the calendar month (UTC), "2006-01".
	Month          string `json:"month"`
	Used           Bytes  `json:"used"`
	AllowanceBytes uint64 `json:"allowance_bytes"`
}

// overRecord is an overage and the action taken (traffic-over/...).
type overRecord struct {
	Exceeded
	At time.Time `json:"at"`
	Taken
	// Ended: the month is over and its action was undone.
	Ended bool `json:"ended,omitempty"`
}

// Run starts the cluster-wide job that compares the machines' months with their
// allowances (when Deps.Overage is set) and drops the records past their retention.
func (t *Traffic) Run() {
	t.loop = t.d.Runtime.EveryOnOne("traffic overage", Interval, true, func(ctx context.Context, now time.Time) {
		if t.d.Overage != nil {
			if err := t.Check(ctx, now); err != nil && ctx.Err() == nil {
				t.log.Warn("checking the traffic allowances", zap.Error(err))
			}
		}
		if err := t.Prune(ctx, now); err != nil && ctx.Err() == nil {
			t.log.Warn("pruning traffic records", zap.Error(err))
		}
	})
}

// Stop ends the job.
func (t *Traffic) Stop() {
	if t.loop != nil {
		t.loop.Stop()
	}
}

// Check ends the overages of the months before now's (MonthEnded) and has the action
// taken on each machine whose month so far went past its allowance (Exceeded), once a
// month: the overage's record is written after the action, conditional on its absence.
func (t *Traffic) Check(ctx context.Context, now time.Time) error {
	o := t.d.Overage
	month := monthName(now)
	seen := map[string]bool{}
	var errs []error
	prefix := persistence.Prefix("traffic-over")
	err := t.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		var r overRecord
		if _, err := persistence.Decode(v, &r); err != nil {
			return err
		}
		if r.Month == month {
			seen[r.MachineID] = true
			return nil
		}
		if r.Ended {
			return nil
		}
		if err := o.MonthEnded(ctx, r.Exceeded, r.Taken); err != nil {
			errs = append(errs, err)
			return nil
		}
		r.Ended = true
		errs = append(errs, t.put(ctx, append([]byte(nil), k...), v, r))
		return nil
	})
	if err != nil {
		return err
	}
	smallest, ok, err := o.Smallest(ctx)
	if err != nil || !ok {
		return errors.Join(append(errs, err)...)
	}
	var candidates []Exceeded
	err = scanDecode(ctx, t.store, persistence.Prefix("traffic-month", month), func(id string, v Bytes) {
		if v.Total() > smallest && !seen[id] {
			candidates = append(candidates, Exceeded{MachineID: id, Month: month, Used: v})
		}
	})
	if err != nil {
		return err
	}
	for _, e := range candidates {
		allowance, ok, err := o.Allowance(ctx, e.MachineID)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !ok || e.Used.Total() <= allowance {
			continue
		}
		e.AllowanceBytes = allowance
		taken, err := o.Exceeded(ctx, e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, t.put(ctx, overKey(month, e.MachineID), nil, overRecord{Exceeded: e, At: now.UTC(), Taken: taken}))
	}
	return errors.Join(errs...)
}

// put writes an overage's record over old (nil: where there is none).
func (t *Traffic) put(ctx context.Context, k, old []byte, r overRecord) error {
	val, err := persistence.Encode(overVersion, r)
	if err != nil {
		return err
	}
	cond := persistence.IfAbsent(k)
	if old != nil {
		cond = persistence.IfValue(k, old)
	}
	err = t.store.Commit(ctx, new(persistence.Batch).Require(cond).Put(k, val))
	if persistence.IsConditionFailed(err) {
		return nil // another run wrote it first
	}
	return err
}

// Over returns a machine's overage in the month of at, nil for none.
func (t *Traffic) Over(ctx context.Context, machine string, at time.Time) (*TrafficOverage, error) {
	raw, err := t.store.Get(ctx, overKey(monthName(at), machine))
	if errors.Is(err, persistence.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r overRecord
	if _, err := persistence.Decode(raw, &r); err != nil {
		return nil, err
	}
	return &TrafficOverage{At: r.At, Action: r.Action}, nil
}

// TrafficOverage is when a machine went past its allowance this month, and what was done.
type TrafficOverage struct {
	At     time.Time `json:"at"`
	Action string    `json:"action"`
}

// Prune deletes, a bounded number per call, the hours older than HourRetention, the
// months (and their ended overages) older than MonthRetention months, and the
// readings of machines not seen running for lastRetention.
func (t *Traffic) Prune(ctx context.Context, now time.Time) error {
	const bound = 1000
	b := new(persistence.Batch)
	hourCut := hourName(now.Add(-HourRetention))
	monthCut := monthName(monthStart(now).AddDate(0, -(MonthRetention - 1), 0))
	older := func(prefix, cut string) error {
		p := persistence.Prefix(prefix)
		err := t.store.Scan(ctx, p, nil, bound, func(k, _ []byte) error {
			period, _, _ := strings.Cut(string(k[len(p):]), "/")
			if period >= cut {
				return errStop
			}
			b.Del(append([]byte(nil), k...))
			return nil
		})
		if err == errStop {
			return nil
		}
		return err
	}
	if err := older("traffic-hour", hourCut); err != nil {
		return err
	}
	if err := older("traffic-month", monthCut); err != nil {
		return err
	}
	if err := older("traffic-over", monthCut); err != nil {
		return err
	}
	err := scanDecode(ctx, t.store, persistence.Prefix("traffic-last"), func(id string, r lastRecord) {
		if now.Sub(r.At) > lastRetention {
			b.Del(lastKey(id))
		}
	})
	if err != nil {
		return err
	}
	groups := make([][]persistence.Op, len(b.Ops))
	for i, op := range b.Ops {
		groups[i] = []persistence.Op{op}
	}
	return commitGroups(ctx, t.store, groups)
}
