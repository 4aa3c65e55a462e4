// Package nodestate keeps the index of machines by node and by state, which answers the
// operator's machine list filtered by ?node= or ?status= in one scan of the matching
// machines instead of a scan of the fleet: vm-node/<node id>/<machine> and
// vm-state/<status>/<machine>, written in the batch of every write of a machine record
// (Put), so that it never differs from the records. The machines package owns the
// records and hands in how to read them (Records); this package reads no key of theirs
// by name.
//
// A store written before the index, or by a member of an earlier release during a
// rolling upgrade, has records the index does not name: the index is trusted only once
// it was built from the records and while every member keeps it (derived.Data), and
// until then the list scans, as it did before.
package nodestate

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/derived"
	"github.com/vmplane/vmplane/persistence"
)

// Feature is what a member announces, in its membership record, when it keeps the
// index.
const Feature = "machine-node-state-index"

// Keys is the table of the keys this package writes.
var Keys = []persistence.KeyKind{
	{Prefix: "vm-node", Holds: "vm-node/<node id>/<machine>: the machines on a node, kept in the batch of every machine record write (actors/machines/nodestate)"},
	{Prefix: "vm-state", Holds: "vm-state/<status>/<machine>: the machines in a state, kept with vm-node"},
	{Prefix: "meta/machine-node-state", Holds: "present once vm-node and vm-state were built from the machine records: the operator's filtered lists use them"},
}

var markerKey = persistence.Key(persistence.KindMeta, "machine-node-state")

// job is the cluster-wide job that builds the index; check how often its leader looks.
const (
	job   = "machine node and state index"
	check = 2 * time.Second
)

// Entry is where a machine is and in what state, as its record says: Node is the
// node's id (capacity.NodeID: unique across locations), "" while it has none.
type Entry struct {
	Node   string
	Status string
}

// NodePrefix is the prefix of the index keys of the machines on node, followed by a
// machine id: a list pages through it with machine ids as cursors, as through vm/.
func NodePrefix(node string) []byte { return persistence.Prefix("vm-node", node) }

// StatePrefix is the prefix of the index keys of the machines in status.
func StatePrefix(status string) []byte { return persistence.Prefix("vm-state", status) }

func (e *Entry) keys(id string) [][]byte {
	if e == nil {
		return nil
	}
	var ks [][]byte
	if e.Node != "" {
		ks = append(ks, persistence.Key("vm-node", e.Node, id))
	}
	if e.Status != "" {
		ks = append(ks, persistence.Key("vm-state", e.Status, id))
	}
	return ks
}

// Put puts into b the index change of machine id whose record goes from prev to next
// (nil: absent). Keys that stay are not written again.
func Put(b *persistence.Batch, id string, prev, next *Entry) {
	if prev != nil && next != nil && *prev == *next {
		return
	}
	was, is := prev.keys(id), next.keys(id)
	for _, k := range was {
		if !containsKey(is, k) {
			b.Del(k)
		}
	}
	for _, k := range is {
		if !containsKey(was, k) {
			b.Put(k, nil)
		}
	}
}

func containsKey(ks [][]byte, k []byte) bool {
	for _, x := range ks {
		if string(x) == string(k) {
			return true
		}
	}
	return false
}

// Records is how the index reads the machine records it derives from: Get answers a
// machine's Entry.
type Records = derived.Records[Entry]

// Deps are what the index needs from the machines above it.
type Deps struct {
	Runtime *kit.Runtime
	// Keeping, in a cluster, reports whether every live member keeps the index
	// (announces Feature), and how many members that do not this member has seen
	// join; nil on a single node.
	Keeping func() (all bool, without uint64)
	Records Records
}

// Index is one member's keeping of the index: whether its readers may use it, and the
// job that builds it.
type Index struct {
	store   persistence.Store
	records Records
	data    *derived.Data
}

// Start starts keeping the index: its job runs from now until Stop.
func Start(d Deps) *Index {
	x := &Index{store: d.Runtime.Store, records: d.Records}
	x.data = derived.Start(derived.Deps{Runtime: d.Runtime, Job: job, Marker: markerKey, Check: check,
		Keeping: d.Keeping, Build: x.build})
	return x
}

// Stop ends the index's job.
func (x *Index) Stop() { x.data.Stop() }

// Trusted reports whether the operator's filtered lists may read the index.
func (x *Index) Trusted(ctx context.Context) (bool, error) { return x.data.Trusted(ctx) }

// Check runs the leader's part of the job now (derived.Data.Check), for tests.
func (x *Index) Check(ctx context.Context) error { return x.data.Check(ctx) }

// buildBatch is how many machines a write of the build covers.
const buildBatch = 512

// build makes the index exact while the machines change: every record's keys are
// written on the condition that the record is as read (a record that changed since
// was indexed by its own write), then every index key whose record does not name it
// is deleted on the same kind of condition. A batch refused because one of its
// records changed is made again from a fresh read of them.
func (x *Index) build(ctx context.Context) (zap.Field, error) {
	written, removed := 0, 0
	var pending []string
	flush := func() error {
		n, err := x.indexRecords(ctx, pending)
		written += n
		pending = pending[:0]
		return err
	}
	err := x.records.IDs(ctx, func(id string) error {
		pending = append(pending, id)
		if len(pending) < buildBatch {
			return nil
		}
		return flush()
	})
	if err == nil && len(pending) > 0 {
		err = flush()
	}
	if err != nil {
		return zap.Skip(), err
	}
	for _, prefix := range [][]byte{persistence.Prefix("vm-node"), persistence.Prefix("vm-state")} {
		n, err := x.dropStale(ctx, prefix)
		removed += n
		if err != nil {
			return zap.Skip(), err
		}
	}
	return zap.Dict("index", zap.Int("keys_written", written), zap.Int("stale_removed", removed)), nil
}

// buildTries bounds the retries of one batch of the build that concurrent writes of
// its machines keep refusing; the job tries again at its next run.
const buildTries = 8

// indexRecords writes the index keys of the machines ids, each on the condition that
// its record is still as read, and answers how many keys it wrote.
func (x *Index) indexRecords(ctx context.Context, ids []string) (int, error) {
	return derived.CommitTried(ctx, x.store, buildTries, func(b *persistence.Batch) error {
		for _, id := range ids {
			e, raw, err := x.records.Get(ctx, id)
			if errors.Is(err, persistence.ErrNotFound) {
				continue // deleted meanwhile, with its keys
			}
			if err != nil {
				return err
			}
			for _, k := range e.keys(id) {
				b.Put(k, nil)
			}
			b.Require(persistence.IfValue(x.records.Key(id), raw))
		}
		return nil
	})
}

// dropStale deletes the keys under prefix (vm-node/ or vm-state/) whose machine's
// record is gone or names another node or state, and answers how many it deleted.
func (x *Index) dropStale(ctx context.Context, prefix []byte) (int, error) {
	removed := 0
	var stale [][2]string // the key's value part (node or status) and the machine id
	flush := func() error {
		n, err := x.dropKeys(ctx, prefix, stale)
		removed += n
		stale = stale[:0]
		return err
	}
	err := x.store.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
		rest := string(k[len(prefix):])
		for i := len(rest) - 1; i >= 0; i-- {
			if rest[i] == '/' {
				stale = append(stale, [2]string{rest[:i], rest[i+1:]})
				break
			}
		}
		if len(stale) < buildBatch {
			return nil
		}
		return flush()
	})
	if err == nil && len(stale) > 0 {
		err = flush()
	}
	return removed, err
}

// dropKeys deletes those of the keys prefix+value/id whose record no longer names
// them, each on the condition that the record is as read (or still absent).
func (x *Index) dropKeys(ctx context.Context, prefix []byte, keys [][2]string) (int, error) {
	byNode := string(prefix) == string(persistence.Prefix("vm-node"))
	return derived.CommitTried(ctx, x.store, buildTries, func(b *persistence.Batch) error {
		for _, kv := range keys {
			value, id := kv[0], kv[1]
			e, raw, err := x.records.Get(ctx, id)
			switch {
			case errors.Is(err, persistence.ErrNotFound):
				b.Require(persistence.IfAbsent(x.records.Key(id)))
			case err != nil:
				return err
			case byNode && e.Node == value, !byNode && e.Status == value:
				continue
			default:
				b.Require(persistence.IfValue(x.records.Key(id), raw))
			}
			b.Del(append(append([]byte{}, prefix...), value+"/"+id...))
		}
		return nil
	})
}
