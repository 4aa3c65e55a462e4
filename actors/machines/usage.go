package machines

import (
	"context"
	"strings"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/machines/counters"
	"github.com/vmplane/vmplane/persistence"
)

// The tenants' usage counters are actors/machines/counters': the machines hand them
// what each write moves (countDelta, through commitReleasing and AddCreate) and read
// them their tenant index (indexOf), which the counters are built from and which a
// quota read sums while they are not trusted.

// holds is what r holds against its tenant's quota, and that tenant ("" for none).
func holds(r *record) (string, counters.Usage) {
	if r == nil || r.TenantID == nil || *r.TenantID == "" {
		return "", counters.Usage{}
	}
	return *r.TenantID, counters.Usage{Machines: 1, CPUCores: r.CPUCores, MemoryMB: r.MemoryMB, DiskGB: r.DiskGB}
}

// countDelta is how a write of prev as next (nil: absent) moves the tenants' counters.
func countDelta(prev, next *record) map[string]counters.Usage {
	was, a := holds(prev)
	is, b := holds(next)
	return counters.Delta(was, a, is, b)
}

// indexOf is the tenant index of s as the counters read it.
func indexOf(s persistence.Store) counters.Index {
	return counters.Index{
		Tenants: func(ctx context.Context, add func(string)) error {
			prefix := persistence.Prefix("vm-tenant")
			return s.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
				t, _, _ := strings.Cut(string(k[len(prefix):]), "/")
				add(t)
				return nil
			})
		},
		Sum: func(ctx context.Context, tenant string) (counters.Usage, error) { return scanUsage(ctx, s, tenant) },
	}
}

// scanUsage is the sum of tenant's index entries.
func scanUsage(ctx context.Context, s persistence.Store, tenant string) (counters.Usage, error) {
	hs, err := holdings(ctx, s, tenant)
	var u counters.Usage
	for _, h := range hs {
		u = u.Plus(counters.Usage{Machines: 1, CPUCores: h.CPUCores, MemoryMB: h.MemoryMB, DiskGB: h.DiskGB}, 1)
	}
	return u, err
}

// CounterRetries counts the writes that were made again because another write moved
// a usage counter they had read (counters.Counters.Retries).
func (m *Machines) CounterRetries() uint64 { return m.counters.Retries() }

// CreateRefused reports whether the batch of c (AddCreate) was refused because its
// tenant's counter moved since AddCreate read it: the caller checks the quota again
// and makes a new one. False means another of the batch's conditions failed.
func (m *Machines) CreateRefused(ctx context.Context, c *Creation) (bool, error) {
	return m.counters.Moved(ctx, c.counts)
}

// TenantUsage returns what tenant's machines hold: its counter, one read, while the
// counters are trusted; else the sum of its index (holdings).
func (m *Machines) TenantUsage(ctx context.Context, tenant string) (counters.Usage, error) {
	return m.counters.TenantUsage(ctx, tenant)
}

// CountersTrusted reports whether quota reads use the usage counters on this member
// (counters.Counters.Trusted).
func (m *Machines) CountersTrusted(ctx context.Context) (bool, error) { return m.counters.Trusted(ctx) }

// RebuildCounters sets every tenant's usage counter in s to the sum of its index
// entries (counters.Rebuild).
func RebuildCounters(ctx context.Context, s persistence.Store) (counters.Rebuilt, error) {
	return counters.Rebuild(ctx, s, indexOf(s))
}

// MigrateUsageCounters is the schema migration 2→3, which builds the counters on a
// single node's store (counters.Migrate).
func MigrateUsageCounters(ctx context.Context, s persistence.Store, b *persistence.Batch, log *zap.Logger) error {
	return counters.Migrate(ctx, s, indexOf(s), b, log)
}
