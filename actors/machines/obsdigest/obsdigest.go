// Package obsdigest keeps, beside each machine record, a digest of the fields the sync
// compares with the hypervisor's inventory (vm-obs/<machine>): a "nothing changed"
// sync then reads one small value per machine instead of decoding its record (issue
// 33: a Get and a JSON decode of a million records was the restart's whole sync). The
// machines package owns the records, computes the digests and writes them in the batch
// of every machine record write (Put); this package holds the keys and the trust in
// them, and reads no record.
//
// A store written before the digests has none: a missing digest means "read the
// record". A member of an earlier release, still running in a rolling upgrade, writes
// records without their digest and would leave a digest that no longer matches its
// record: the digests are trusted only once the job has dropped those left from such
// a time and while every member keeps them (derived.Data), and until then the sync
// reads the records, as it did before.
package obsdigest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/derived"
	"github.com/vmplane/vmplane/persistence"
)

// Feature is what a member announces, in its membership record, when it keeps the
// digests.
const Feature = "machine-observed-digest"

// Keys is the table of the keys this package writes.
var Keys = []persistence.KeyKind{
	{Prefix: "vm-obs", Holds: "vm-obs/<machine>: a digest of what the sync compares of a machine's record, kept in the batch of every machine record write (actors/machines/obsdigest)"},
	{Prefix: "meta/machine-observed-digest", Holds: "present once the digests left by members that do not keep them were dropped: the sync trusts vm-obs/"},
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

// Deps are what the digests' keeping needs from the machines above.
type Deps struct {
	Runtime *kit.Runtime
	// Keeping, in a cluster, reports whether every live member keeps the digests
	// (announces Feature), and how many members that do not this member has seen
	// join; nil on a single node.
	Keeping func() (all bool, without uint64)
}

// Digests is one member's keeping of the digests: whether the sync may trust them,
// and the job that drops untrustworthy ones.
type Digests struct {
	store persistence.Store
	data  *derived.Data
}

// Start starts keeping the digests: the job runs from now until Stop.
func Start(d Deps) *Digests {
	x := &Digests{store: d.Runtime.Store}
	x.data = derived.Start(derived.Deps{Runtime: d.Runtime, Job: job, Marker: markerKey, Check: check,
		Keeping: d.Keeping, Build: x.build})
	return x
}

// Stop ends the job.
func (x *Digests) Stop() { x.data.Stop() }

// Check runs the leader's part of the job now (derived.Data.Check), for tests.
func (x *Digests) Check(ctx context.Context) error { return x.data.Check(ctx) }

// All answers every machine's digest by machine id, read in one scan, or nil when
// they are not to be trusted now. A machine without one is not in it.
func (x *Digests) All(ctx context.Context) (map[string]string, error) {
	ok, err := x.data.Trusted(ctx)
	if err != nil || !ok {
		return nil, err
	}
	prefix := persistence.Prefix("vm-obs")
	all := map[string]string{}
	err = x.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		all[string(k[len(prefix):])] = string(v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return all, nil
}

// dropBatch is how many digests one write of the build deletes.
const dropBatch = 1024

// build drops every digest: one that a member of an earlier release left behind its
// record's write cannot be told from a good one without reading the record. Records
// written from now on carry their digest again; the sync reads the record of a machine
// without one. A digest written while this runs may be dropped too: that is a missing
// digest, never a wrong one.
func (x *Digests) build(ctx context.Context) (zap.Field, error) {
	dropped := 0
	var keys [][]byte
	flush := func() error {
		if len(keys) == 0 {
			return nil
		}
		b := new(persistence.Batch)
		for _, k := range keys {
			b.Del(k)
		}
		keys = keys[:0]
		if err := x.store.Commit(ctx, b); err != nil {
			return err
		}
		dropped += len(b.Ops)
		return nil
	}
	err := x.store.Scan(ctx, persistence.Prefix("vm-obs"), nil, 0, func(k, _ []byte) error {
		keys = append(keys, append([]byte{}, k...))
		if len(keys) < dropBatch {
			return nil
		}
		return flush()
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return zap.Skip(), err
	}
	return zap.Int("digests_dropped", dropped), nil
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
