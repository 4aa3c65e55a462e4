// Package obsdigest keeps, beside each machine record, a digest of the fields the sync
// compares with the hypervisor's inventory (vm-obs/<machine>): a "nothing changed"
// sync then reads one small value per machine instead of decoding its record (issue
// 33: a Get and a JSON decode of a million records was the restart's whole sync). The
// machines package owns the records, computes the digests and writes them in the batch
// of every machine record write (Put); this package holds the keys and the trust in
// them, and its job reads the records through Records, by id, to make them exact.
//
// A missing digest means "read the record". A store written before the digests has
// none, and a member of an earlier release, still running in a rolling upgrade, writes
// records without their digest and would leave a digest that no longer matches its
// record: the digests are trusted only once the job has written every record's digest
// again from the record (and dropped those of records gone) since such a time, and
// while every member keeps them (derived.Data); until then the sync reads the
// records, as it did before.
package obsdigest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/derived"
	"github.com/vmplane/vmplane/internal/strblocks"
	"github.com/vmplane/vmplane/persistence"
)

// Feature is what a member announces, in its membership record, when it keeps the
// digests.
const Feature = "machine-observed-digest"

// Keys is the table of the keys this package writes.
var Keys = []persistence.KeyKind{
	{Prefix: "vm-obs", Holds: "vm-obs/<machine>: a digest of what the sync compares of a machine's record, kept in the batch of every machine record write (actors/machines/obsdigest)"},
	{Prefix: "meta/machine-observed-digest", Holds: "present once every record's digest was written again from the record since a member that does not keep them was live: the sync trusts vm-obs/"},
}

var markerKey = persistence.Key(persistence.KindMeta, "machine-observed-digest")

// job is the cluster-wide job that makes the digests trustworthy; check how often its
// leader looks.
const (
	job   = "machine observed digests"
	check = 2 * time.Second
)

// Key is the key of machine id's digest.
func Key(id string) []byte { return persistence.Key("vm-obs", id) }

// Put puts into b the change of machine id's digest from prev to next (nil: no
// record). A digest that stays is not written again.
func Put(b *persistence.Batch, id string, prev, next []byte) {
	switch {
	case next == nil:
		if prev != nil {
			b.Del(Key(id))
		}
	case prev == nil || !bytes.Equal(prev, next):
		b.Put(Key(id), next)
	}
}

// Records is how the build reads the machine records the digests are made of: Get
// answers a machine's digest, made of its record.
type Records = derived.Records[[]byte]

// Deps are what the digests' keeping needs from the machines above.
type Deps struct {
	Runtime *kit.Runtime
	// Keeping, in a cluster, reports whether every live member keeps the digests
	// (announces Feature), and how many members that do not this member has seen
	// join; nil on a single node.
	Keeping func() (all bool, without uint64)
	Records Records
}

// Digests is one member's keeping of the digests: whether the sync may trust them,
// and the job that makes them exact.
type Digests struct {
	store   persistence.Store
	records Records
	data    *derived.Data
}

// Start starts keeping the digests: the job runs from now until Stop.
func Start(d Deps) *Digests {
	x := &Digests{store: d.Runtime.Store, records: d.Records}
	x.data = derived.Start(derived.Deps{Runtime: d.Runtime, Job: job, Marker: markerKey, Check: check,
		Keeping: d.Keeping, Build: x.build})
	return x
}

// Stop ends the job.
func (x *Digests) Stop() { x.data.Stop() }

// Check runs the leader's part of the job now (derived.Data.Check), for tests.
func (x *Digests) Check(ctx context.Context) error { return x.data.Check(ctx) }

// All answers every machine's digest, read in one scan, or nil when they are not to
// be trusted now. A machine without one is not in it.
func (x *Digests) All(ctx context.Context) (*Set, error) {
	ok, err := x.data.Trusted(ctx)
	if err != nil || !ok {
		return nil, err
	}
	prefix := persistence.Prefix("vm-obs")
	all := &Set{}
	// The ids and digests share a few blocks of memory instead of two allocations a
	// machine (two million on a sync of a million machines).
	var strs strblocks.Blocks
	err = x.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		all.entries = append(all.entries, entry{id: strs.String(k[len(prefix):]), digest: strs.String(v)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// Set is every machine's digest, as All read them: the machines in the order of their
// keys, which is their ids' byte order, each with its digest. A sorted slice, not a
// map: 32 bytes a machine where a map of a million held about 80.
type Set struct {
	entries []entry
}

type entry struct{ id, digest string }

// Get answers machine id's digest; a nil Set has none.
func (s *Set) Get(id string) (string, bool) {
	if s == nil {
		return "", false
	}
	i, ok := slices.BinarySearchFunc(s.entries, id, func(e entry, id string) int { return strings.Compare(e.id, id) })
	if !ok {
		return "", false
	}
	return s.entries[i].digest, true
}

// Len is how many machines have a digest in s.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.entries)
}

// buildBatch is how many machines one write of the build covers.
const buildBatch = 512

// buildTries bounds the tries of one batch of the build that concurrent writes of its
// machines keep refusing; the job tries again at its next run.
const buildTries = 8

// build makes every digest exact while the machines change, as the node and state
// index's build does: each record's digest is written on the condition that the
// record is as read (a record written since wrote its own digest), which replaces one
// that a member of an earlier release left stale behind its record's write and makes
// the ones a store from before the digests lacks; then every digest whose record is
// gone is deleted on the condition that it is still gone. A batch refused because one
// of its records changed is made again from fresh reads.
func (x *Digests) build(ctx context.Context) (zap.Field, error) {
	written, removed := 0, 0
	var pending []string
	flush := func(write bool) error {
		n, err := derived.CommitTried(ctx, x.store, buildTries, func(b *persistence.Batch) error {
			for _, id := range pending {
				d, raw, err := x.records.Get(ctx, id)
				switch {
				case errors.Is(err, persistence.ErrNotFound):
					if !write {
						b.Require(persistence.IfAbsent(x.records.Key(id))).Del(Key(id))
					}
				case err != nil:
					return err
				case write:
					b.Require(persistence.IfValue(x.records.Key(id), raw)).Put(Key(id), d)
				}
			}
			return nil
		})
		pending = pending[:0]
		if write {
			written += n
		} else {
			removed += n
		}
		return err
	}
	err := x.records.IDs(ctx, func(id string) error {
		if pending = append(pending, id); len(pending) < buildBatch {
			return nil
		}
		return flush(true)
	})
	if err == nil {
		err = flush(true)
	}
	if err != nil {
		return zap.Skip(), err
	}
	prefix := persistence.Prefix("vm-obs")
	err = x.store.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
		if pending = append(pending, string(k[len(prefix):])); len(pending) < buildBatch {
			return nil
		}
		return flush(false)
	})
	if err == nil {
		err = flush(false)
	}
	if err != nil {
		return zap.Skip(), err
	}
	return zap.Dict("digests", zap.Int("written", written), zap.Int("stale_removed", removed)), nil
}

// TaskOwned is the digest of a record a task owns: the sync leaves such a machine to
// the task's end, whatever the hypervisor shows.
const TaskOwned = "t"

// Sum is the digest of fields, the part of a record the sync compares: 16 bytes of
// the SHA-256 of their JSON, after a version byte.
func Sum(fields any) []byte {
	js, err := json.Marshal(fields)
	if err != nil {
		return nil // not a digest: the record is read
	}
	h := sha256.Sum256(js)
	return append([]byte{'1'}, h[:16]...)
}
