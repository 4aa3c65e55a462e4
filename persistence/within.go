package persistence

import (
	"bytes"
	"context"
)

// Within is store seen under prefix (a key prefix, e.g. Prefix("sim-at", "lab")): every
// key its user reads, writes, requires, scans or watches is prefix followed by the key
// the user names, and the keys it hands back have prefix removed. It lets a component
// whose keys are fixed (a simulated world: sim/world, sim/vm/<vmid>) keep several
// instances of itself in one store, each under a prefix of its own. Close leaves the
// store open: it is its owner's to close.
func Within(store Store, prefix []byte) Store {
	return &within{Store: store, prefix: bytes.Clone(prefix)}
}

type within struct {
	Store
	prefix []byte
}

func (w *within) key(k []byte) []byte {
	out := make([]byte, 0, len(w.prefix)+len(k))
	return append(append(out, w.prefix...), k...)
}

// batch is b with its keys under the prefix; After stays the caller's.
func (w *within) batch(b *Batch) *Batch {
	out := &Batch{Ops: make([]Op, len(b.Ops)), Conds: make([]Cond, len(b.Conds)), After: b.After}
	for i, op := range b.Ops {
		op.Key = w.key(op.Key)
		out.Ops[i] = op
	}
	for i, c := range b.Conds {
		c.Key = w.key(c.Key)
		out.Conds[i] = c
	}
	return out
}

func (w *within) Get(ctx context.Context, key []byte) ([]byte, error) {
	return w.Store.Get(ctx, w.key(key))
}

func (w *within) Scan(ctx context.Context, prefix, after []byte, limit int, fn func(key, value []byte) error) error {
	var from []byte
	if len(after) > 0 {
		from = w.key(after)
	}
	n := len(w.prefix)
	return w.Store.Scan(ctx, w.key(prefix), from, limit, func(k, v []byte) error { return fn(k[n:], v) })
}

func (w *within) Commit(ctx context.Context, b *Batch) error { return w.Store.Commit(ctx, w.batch(b)) }

func (w *within) Enqueue(b *Batch, then func(error)) *Pending {
	return w.Store.Enqueue(w.batch(b), then)
}

func (w *within) Watch(prefix []byte, fn func(key []byte)) {
	n := len(w.prefix)
	w.Store.Watch(w.key(prefix), func(k []byte) { fn(k[n:]) })
}

// Close leaves the underlying store open.
func (w *within) Close() error { return nil }
