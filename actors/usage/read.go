package usage

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// UsageReport is what some hours of usage come to: one line per machine and plan (a
// machine moved to another plan has a line for each), and their totals.
type UsageReport struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Lines are sorted by machine id, then plan.
	Lines  []UsageLine `json:"lines"`
	Totals UsageLine   `json:"totals" doc:"the sums of the lines (machine_id, name and plan_id empty)"`
	// Gaps is how many hours of the range no run closed (a downtime longer than the
	// backfill, or hours not ended yet): their usage is unknown, not zero.
	Gaps int `json:"gaps"`
}

// CheckRange checks a range asked for: whole hours, from before to, at most MaxSpan.
func CheckRange(from, to time.Time) error {
	switch {
	case from.IsZero() || to.IsZero():
		return apierr.Invalid(apierr.Field("from", "from and to are both required (RFC 3339 times on whole hours)"))
	case !from.Equal(from.Truncate(time.Hour)) || !to.Equal(to.Truncate(time.Hour)):
		return apierr.Invalid(apierr.Field("from", "from and to must be whole hours (minutes, seconds and fractions zero)"))
	case !from.Before(to):
		return apierr.Invalid(apierr.Field("to", "from must be before to"))
	case to.Sub(from) > MaxSpan:
		return apierr.Invalid(apierr.Field("to", "the range is longer than 366 days"))
	}
	return nil
}

// Tenant sums the hours [from, to) of tenant's machines (nil: the machines no tenant
// holds).
func (u *Usage) Tenant(ctx context.Context, tenant *string, from, to time.Time) (UsageReport, error) {
	return u.read(ctx, tenantPart(tenant), "", from, to)
}

// Machine sums the hours [from, to) of one machine of tenant (nil: the operator's).
func (u *Usage) Machine(ctx context.Context, tenant *string, machine string, from, to time.Time) (UsageReport, error) {
	return u.read(ctx, tenantPart(tenant), machine, from, to)
}

type lineKey struct{ machine, plan string }

func (u *Usage) read(ctx context.Context, tenant, machine string, from, to time.Time) (UsageReport, error) {
	from, to = from.UTC(), to.UTC()
	if err := CheckRange(from, to); err != nil {
		return UsageReport{}, err
	}
	r := UsageReport{From: from, To: to, Lines: []UsageLine{}}
	sums := map[lineKey]*UsageLine{}
	var order []lineKey
	prefix := persistence.Prefix("usage-hour", tenant)
	// The hour's record comes before its parts (a key before those it prefixes): the
	// parts counted are the ones it names, not those a failed or losing run left.
	var named string // "<hour>/<run>/" of the last record's parts
	var parts int
	err := u.store.Scan(ctx, prefix, hourKey(tenant, from.Add(-time.Hour)), 0, func(k, v []byte) error {
		name, part, isPart := strings.Cut(string(k[len(prefix):]), "/")
		h, err := time.Parse(hourLayout, name)
		if err != nil {
			return nil
		}
		if !h.Before(to) {
			return errStop
		}
		if h.Before(from) {
			return nil
		}
		if isPart {
			run, n, _ := strings.Cut(part, "/")
			if i, err := strconv.Atoi(n); err != nil || named != name+"/"+run+"/" || i < 1 || i > parts {
				return nil
			}
		}
		var rec hourRecord
		if _, err := persistence.Decode(v, &rec); err != nil {
			return err
		}
		if !isPart {
			named, parts = name+"/"+rec.Run+"/", rec.Parts
		}
		for _, l := range rec.Machines {
			if machine != "" && l.MachineID != machine {
				continue
			}
			lk := lineKey{l.MachineID, ""}
			if l.PlanID != nil {
				lk.plan = *l.PlanID
			}
			s, ok := sums[lk]
			if !ok {
				s = &UsageLine{MachineID: l.MachineID, TenantID: l.TenantID, PlanID: l.PlanID}
				sums[lk] = s
				order = append(order, lk)
			}
			s.Name = l.Name
			s.add(l)
			r.Totals.add(l)
		}
		return nil
	})
	if err != nil && err != errStop {
		return UsageReport{}, err
	}
	sortKeys(order)
	for _, lk := range order {
		r.Lines = append(r.Lines, *sums[lk])
	}
	closed := 0
	cp := persistence.Prefix("usage-closed")
	err = u.store.Scan(ctx, cp, closedKey(from.Add(-time.Hour)), 0, func(k, _ []byte) error {
		h, err := time.Parse(hourLayout, string(k[len(cp):]))
		if err != nil {
			return nil
		}
		if !h.Before(to) {
			return errStop
		}
		if !h.Before(from) {
			closed++
		}
		return nil
	})
	if err != nil && err != errStop {
		return UsageReport{}, err
	}
	r.Gaps = int(to.Sub(from)/time.Hour) - closed
	return r, nil
}

func sortKeys(ks []lineKey) {
	slices.SortFunc(ks, func(a, b lineKey) int {
		if c := cmp.Compare(a.machine, b.machine); c != 0 {
			return c
		}
		return cmp.Compare(a.plan, b.plan)
	})
}
