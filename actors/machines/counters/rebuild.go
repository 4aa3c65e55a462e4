package counters

import (
	"context"
	"maps"
	"slices"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/persistence"
)

// Rebuilt is what Rebuild did.
type Rebuilt struct {
	// Tenants is how many tenants it counted (those with machines or a counter).
	Tenants int
	// Corrected names the tenants whose counter it wrote: absent, or not the sum of
	// the index. Once the counters are kept, none is: tests check that they are exact
	// by rebuilding them.
	Corrected []string
}

// Rebuild sets every tenant's usage counter in s to the sum of its index entries
// (idx reads the index of s), each written on the condition that the counter still
// holds what was read before its index was scanned (and read and summed again when it
// does not): a write that moved it meanwhile is never lost.
func Rebuild(ctx context.Context, s persistence.Store, idx Index) (Rebuilt, error) {
	tenants := map[string]bool{}
	if err := idx.Tenants(ctx, func(t string) { tenants[t] = true }); err != nil {
		return Rebuilt{}, err
	}
	prefix := persistence.Prefix("vm-usage")
	err := s.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
		tenants[string(k[len(prefix):])] = true
		return nil
	})
	if err != nil {
		return Rebuilt{}, err
	}
	r := Rebuilt{Tenants: len(tenants)}
	for _, t := range slices.Sorted(maps.Keys(tenants)) {
		wrote, err := recount(ctx, s, idx, t)
		if err != nil {
			return r, err
		}
		if wrote {
			r.Corrected = append(r.Corrected, t)
		}
	}
	return r, nil
}

// recount sets tenant's counter to the sum of its index, and reports whether it had
// to write it.
func recount(ctx context.Context, s persistence.Store, idx Index, tenant string) (bool, error) {
	for try := 1; ; try++ {
		c, raw, err := readCounter(ctx, s, tenant)
		if err != nil {
			return false, err
		}
		u, err := idx.Sum(ctx, tenant)
		if err != nil {
			return false, err
		}
		if u == c.Usage {
			return false, nil // exact already (an absent counter is zero)
		}
		val, err := persistence.Encode(counterVersion, counter{Usage: u, Rev: c.Rev + 1})
		if err != nil {
			return false, err
		}
		b := new(persistence.Batch)
		requireCounter(b, tenant, raw)
		err = s.Commit(ctx, b.Put(usageKey(tenant), val))
		if !persistence.IsConditionFailed(err) || try == counterTries {
			return err == nil, err
		}
	}
}

// Migrate is the schema migration 2→3: on a single node's store every tenant's
// counter is built and the marker written in b (nothing else runs yet). On a shared
// store the members of the earlier release may still run and would not keep the
// counters: the leader of the counters' job builds them once they are gone.
func Migrate(ctx context.Context, s persistence.Store, idx Index, b *persistence.Batch, log *zap.Logger) error {
	if s.Shared() {
		return nil
	}
	r, err := Rebuild(ctx, s, idx)
	if err != nil {
		return err
	}
	log.Info("usage counters built", zap.Int("tenants", r.Tenants), zap.Int("written", len(r.Corrected)))
	b.Put(markerKey, []byte("1"))
	return nil
}
