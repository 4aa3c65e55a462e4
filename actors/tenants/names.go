package tenants

import (
	"context"
	"errors"
	"strings"
	"sync"
	"unicode"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Tenant names are unique, ignoring case and surrounding white space. The store keeps
// the rule, not a lock: tenant-name/<folded name> holds the id of the tenant with that
// name, and a create or rename writes it in the tenant's own batch requiring it absent,
// so two members of a cluster cannot both take one name (a process-wide lock and a scan
// kept it on a single node only). A delete or a rename removes it in the same batch.
//
// Stores written before the index get it on first use (nameIndex.ensure): each tenant's
// key is written requiring the key absent and the tenant record unchanged, so builds
// running on several members at once, or racing a create, agree; meta/tenant-name-index
// then marks the index whole, so later starts pay one read. A build, not a schema
// migration: the index only adds keys, which an older vmplane ignores, and building it
// on demand needs no step of its own in every start path.

// nameIndexDone marks the tenant-name index as built for every tenant.
var nameIndexDone = persistence.Key(persistence.KindMeta, "tenant-name-index")

// nameKey is the index key of a tenant name.
func nameKey(name string) []byte { return persistence.Key("tenant-name", foldName(name)) }

// foldName is name without surrounding white space, each letter replaced by the least
// rune it case-folds with (unicode.SimpleFold): two names that strings.EqualFold holds
// equal fold to the same string.
func foldName(name string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, strings.TrimSpace(name))
}

// errNameTaken is the conflict of a name another tenant (taken) has.
func errNameTaken(name, taken string) error {
	e := apierr.New(apierr.ErrConflict, "tenant %s is already named %q (names are unique, ignoring case)", taken, name)
	e.Fields = []apierr.FieldError{apierr.Field("name", "is taken by tenant %s", taken)}
	return e
}

// nameHolder returns the id of the tenant named name, ignoring case, or "".
func nameHolder(store persistence.Store, name string) (string, error) {
	id, err := store.Get(nameKey(name))
	if errors.Is(err, persistence.ErrNotFound) {
		return "", nil
	}
	return string(id), err
}

// nameFree is a 409 conflict when a tenant other than self has name, ignoring case.
func nameFree(store persistence.Store, name, self string) error {
	taken, err := nameHolder(store, name)
	if err != nil {
		return err
	}
	if taken != "" && taken != self {
		return errNameTaken(name, taken)
	}
	return nil
}

// nameConflict is the error of a batch whose name condition failed: the conflict with
// the tenant that has the name now.
func nameConflict(store persistence.Store, name, self string) error {
	if err := nameFree(store, name, self); err != nil {
		return err
	}
	// Freed again since: still a conflict of this write, which a retry may win.
	return apierr.New(apierr.ErrConflict, "tenant name %q was taken while this change was written; try again", name)
}

// nameIndex builds the tenant-name index of a store that predates it, once.
type nameIndex struct {
	mu   sync.Mutex
	done bool
}

// ensure returns once every tenant's name is in the index.
func (x *nameIndex) ensure(ctx context.Context, s *system) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.done {
		return nil
	}
	if _, err := s.store.Get(nameIndexDone); err == nil {
		x.done = true
		return nil
	} else if !errors.Is(err, persistence.ErrNotFound) {
		return err
	}
	type stored struct {
		t   Tenant
		raw []byte
	}
	var all []stored
	err := s.store.Scan(persistence.Prefix(persistence.KindTenant), nil, 0, func(_, v []byte) error {
		var t Tenant
		if _, err := persistence.Decode(v, &t); err != nil {
			return err
		}
		all = append(all, stored{t: t, raw: append([]byte(nil), v...)})
		return nil
	})
	if err != nil {
		return err
	}
	added := 0
	for _, st := range all {
		key := nameKey(st.t.Name)
		holder, err := nameHolder(s.store, st.t.Name)
		if err != nil {
			return err
		}
		if holder != "" {
			if holder != st.t.ID {
				s.log.Warn("two tenants have one name, ignoring case; the index keeps the first",
					zap.String("tenant_id", st.t.ID), zap.String("name", st.t.Name), zap.String("indexed", holder))
			}
			continue
		}
		b := new(persistence.Batch).Require(persistence.IfAbsent(key)).
			Require(persistence.IfValue(tenantKey(st.t.ID), st.raw)).Put(key, []byte(st.t.ID))
		if err := s.store.Commit(ctx, b); persistence.IsConditionFailed(err) {
			// Renamed, deleted or indexed meanwhile, by a change that wrote the index.
			continue
		} else if err != nil {
			return err
		}
		added++
	}
	if err := s.store.Commit(ctx, new(persistence.Batch).Put(nameIndexDone, []byte("1"))); err != nil {
		return err
	}
	if added > 0 {
		s.log.Info("built the tenant-name index", zap.Int("tenants", added))
	}
	x.done = true
	return nil
}
