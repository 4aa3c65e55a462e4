package tenants

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// Tenant names are unique, ignoring case and surrounding white space. The store keeps
// the rule, not a lock: tenant-name/<folded name> holds the id of the tenant with that
// name, and a create or rename writes it in the tenant's own batch requiring it absent,
// so two members of a cluster cannot both take one name (a process-wide lock and a scan
// kept it on a single node only). A delete or a rename removes it in the same batch.
//
// Stores written before the index get it from schema migration 1→2 (MigrateNameIndex),
// before anything is served; from then on creates, renames and deletes keep it.

// nameIndexDone marked the tenant-name index as built when the index was built on
// first use, before schema version 2; the migration removes it.
var nameIndexDone = persistence.Key(persistence.KindMeta, "tenant-name-index")

// nameKey is the index key of a tenant name.
func nameKey(name string) []byte { return persistence.Key("tenant-name", kit.FoldName(name)) }

// nameHolder returns the id of the tenant named name, ignoring case, or "".
func nameHolder(ctx context.Context, store persistence.Store, name string) (string, error) {
	id, err := store.Get(ctx, nameKey(name))
	if errors.Is(err, persistence.ErrNotFound) {
		return "", nil
	}
	return string(id), err
}

// nameFree is a 409 conflict when a tenant other than self has name, ignoring case.
func nameFree(ctx context.Context, store persistence.Store, name, self string) error {
	return kit.NameFree(ctx, store, nameKey(name), "tenant", name, self)
}

// nameConflict is the error of a batch whose name condition failed: the conflict with
// the tenant that has the name now.
func nameConflict(ctx context.Context, store persistence.Store, name, self string) error {
	if err := nameFree(ctx, store, name, self); err != nil {
		return err
	}
	// Freed again since: still a conflict of this write, which a retry may win.
	return apierr.New(apierr.ErrConflict, "tenant name %q was taken while this change was written; try again", name)
}

// MigrateNameIndex is the tenants' step of schema migration 1→2 (actors.Migrations):
// it puts every stored tenant's name in the tenant-name index. Of two tenants named
// alike before the index, the first keeps the name's key, with a warning; the other
// keeps working and can be renamed.
//
// persistence.Upgrade runs it once, under the cluster's upgrade lock. It stays safe to
// run again or beside other writers (an older member still creating tenants, or a
// crash before the stamp): each key is written requiring it absent and the tenant's
// record unchanged, so a tenant renamed, deleted or indexed meanwhile is left to that
// change.
func MigrateNameIndex(ctx context.Context, store persistence.Store, log *zap.Logger) error {
	if log == nil {
		log = zap.NewNop()
	}
	type stored struct {
		t   Tenant
		raw []byte
	}
	var all []stored
	err := store.Scan(ctx, persistence.Prefix("tenant"), nil, 0, func(_, v []byte) error {
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
		holder, err := nameHolder(ctx, store, st.t.Name)
		if err != nil {
			return err
		}
		if holder != "" {
			if holder != st.t.ID {
				log.Warn("two tenants have one name, ignoring case; the index keeps the first",
					zap.String("tenant_id", st.t.ID), zap.String("name", st.t.Name), zap.String("indexed", holder))
			}
			continue
		}
		b := new(persistence.Batch).Require(persistence.IfAbsent(key)).
			Require(persistence.IfValue(tenantKey(st.t.ID), st.raw)).Put(key, []byte(st.t.ID))
		if err := store.Commit(ctx, b); persistence.IsConditionFailed(err) {
			// Renamed, deleted or indexed meanwhile, by a change that wrote the index.
			continue
		} else if err != nil {
			return err
		}
		added++
	}
	if err := store.Commit(ctx, new(persistence.Batch).Del(nameIndexDone)); err != nil {
		return err
	}
	if added > 0 {
		log.Info("built the tenant-name index", zap.Int("tenants", added))
	}
	return nil
}
