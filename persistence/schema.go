package persistence

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
)

// SchemaVersion is the version of the store's layout (keys and record encodings) that
// this build writes. A change that an older build would misread raises it and adds a
// Migration from the version before.
//
// Version 2: every user's e-mail is stored normalised (lower case, trimmed) with its
// index entry, and every tenant's name is in the tenant-name index.
//
// Version 3: every tenant's usage counter (vm-usage/<tenant>) is kept with its
// machines' writes; a release before it would change machines without moving them.
//
// Version 4: every task of a machine has its entry in the machine's task index
// (task-vm/<machine>/...), newest first, which a release before it does not write.
const SchemaVersion = 4

// schemaKey holds the store's schema version, as decimal text. A store without it
// predates the key: version 1, or a new store when it holds nothing at all.
var schemaKey = Key(KindMeta, "schema-version")

// Migration moves a store from schema version From to From+1. The migrations rewrite
// domain records, so they live with the packages that own those records; the
// composition root hands the chain to Upgrade, keeping persistence free of them.
type Migration struct {
	From int
	// Name says what it changes, for the log.
	Name string
	// Apply puts its writes into b, which is committed together with the new version
	// (so a crash leaves the store at From, and the next start runs it again), or
	// commits batches of its own when it writes too much for one: those must then be
	// idempotent, since a crash before the stamp runs it again.
	Apply func(ctx context.Context, s Store, b *Batch) error
}

// NewerSchemaError is Upgrade's answer for a store written by a newer vmplane than this
// one: its schema version is Found, this build knows up to Known. It is an
// apierr.ErrUnavailable error.
type NewerSchemaError struct {
	Found, Known int
	err          *apierr.Error
}

func newNewerSchemaError(found, known int) *NewerSchemaError {
	return &NewerSchemaError{Found: found, Known: known, err: apierr.New(apierr.ErrUnavailable,
		"the store has schema version %d, newer than this vmplane knows (%d): a newer vmplane wrote it; "+
			"run that version again, or restore a backup taken before the upgrade", found, known)}
}

func (e *NewerSchemaError) Error() string { return e.err.Detail }

// Unwrap makes errors.Is(err, apierr.ErrUnavailable) hold.
func (e *NewerSchemaError) Unwrap() error { return e.err }

// StoredSchema returns the store's schema version: the stamped one, 1 for a store that
// holds records but no stamp, and 0 for a store that holds nothing.
func StoredSchema(ctx context.Context, s Store) (int, error) {
	v, _, err := storedSchema(ctx, s)
	return v, err
}

// storedSchema is StoredSchema, and whether the version is stamped.
func storedSchema(ctx context.Context, s Store) (version int, stamped bool, err error) {
	v, err := s.Get(ctx, schemaKey)
	if err == nil {
		n, perr := strconv.Atoi(string(v))
		if perr != nil || n < 1 {
			return 0, true, apierr.New(apierr.ErrInternal, "the store's schema version %q is not a version", v)
		}
		return n, true, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return 0, false, err
	}
	empty := true
	if err := s.Scan(ctx, Prefix(), nil, 1, func(_, _ []byte) error { empty = false; return nil }); err != nil {
		return 0, false, err
	}
	if empty {
		return 0, false, nil
	}
	return 1, false, nil
}

// Upgrade brings the store to SchemaVersion before anything else reads it: a new store
// is stamped, an older one runs the migrations ms from its version on, in order, each
// logged; a newer one is refused with a *NewerSchemaError and left as it is. ms is the
// whole chain: ms[i].From is i+1, and the last one ends at SchemaVersion. It returns
// the version the store had.
//
// On a store that several processes share (etcd), Upgrade holds the store's upgrade
// lock throughout, so members starting at once run each migration once: the first
// migrates, the others find the store at SchemaVersion when they get the lock. Each
// stamp is also written requiring the version it read, so a writer that lost the lock
// cannot move the version twice.
func Upgrade(ctx context.Context, s Store, log *zap.Logger, ms []Migration) (int, error) {
	return upgrade(ctx, s, log, SchemaVersion, ms)
}

// upgradeLocker is a store that other processes share, with a lock around Upgrade.
type upgradeLocker interface {
	lockUpgrade(ctx context.Context) (unlock func(), err error)
}

func upgrade(ctx context.Context, s Store, log *zap.Logger, target int, ms []Migration) (int, error) {
	if log == nil {
		log = zap.NewNop()
	}
	if l, ok := s.(upgradeLocker); ok {
		unlock, err := l.lockUpgrade(ctx)
		if err != nil {
			return 0, err
		}
		defer unlock()
	}
	from, stamped, err := storedSchema(ctx, s)
	if err != nil {
		return 0, err
	}
	switch {
	case from > target:
		return from, newNewerSchemaError(from, target)
	case from == target && stamped:
		return from, nil
	case from == 0 || from == target:
		// A new store starts at the current layout; an unstamped one at it (version 1,
		// written before the stamp existed) only needs the stamp.
		if from != 0 {
			log.Info("persistence: stamping the store's schema version", zap.Int("version", target))
		}
		return from, s.Commit(ctx, stamp(new(Batch), from, stamped, target))
	}
	for v := from; v < target; v++ {
		if v-1 >= len(ms) || ms[v-1].From != v {
			return from, apierr.New(apierr.ErrInternal, "no migration from schema version %d", v)
		}
		m := ms[v-1]
		log.Info("persistence: migrating the store", zap.Int("from", v), zap.Int("to", v+1), zap.String("migration", m.Name))
		b := new(Batch)
		if m.Apply != nil {
			if err := m.Apply(ctx, s, b); err != nil {
				return from, fmt.Errorf("migration %d→%d (%s): %w", v, v+1, m.Name, err)
			}
		}
		// Only an unstamped version 1 store lacks the key; every later step has it.
		if err := s.Commit(ctx, stamp(b, v, stamped || v > from, v+1)); err != nil {
			if IsConditionFailed(err) {
				err = apierr.New(apierr.ErrUnavailable, "another process changed the schema version while this one migrated the store; start again")
			}
			return from, fmt.Errorf("migration %d→%d (%s): %w", v, v+1, m.Name, err)
		}
	}
	if from != target {
		log.Info("persistence: store migrated", zap.Int("from", from), zap.Int("to", target))
	}
	return from, nil
}

// stamp adds to b the write of version to, requiring the stored version to still be
// from (absent when the store is not stamped).
func stamp(b *Batch, from int, stamped bool, to int) *Batch {
	if stamped {
		b.Require(IfValue(schemaKey, []byte(strconv.Itoa(from))))
	} else {
		b.Require(IfAbsent(schemaKey))
	}
	return b.Put(schemaKey, []byte(strconv.Itoa(to)))
}
