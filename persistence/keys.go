package persistence

import (
	"crypto/rand"
	"errors"
	"sync"

	"github.com/oklog/ulid/v2"
)

// Key layout. Every key starts with its kind and a '/', so that a kind's records are
// one contiguous range that Scan(Prefix(kind), ...) walks in id order. Index keys map a
// secondary attribute to the primary record's id.
//
// Each kind of key has one owner, the package that writes it, and each such package
// keeps the table of its kinds (a []KeyKind named Keys) beside the code that builds
// them: actors/auth, actors/alerts, actors/machines, actors/tenants, actors/schedules,
// actors/monitoring, app, cluster (its etcd keys, under the same prefix as the store)
// and hypervisor/sim. Keys below is this package's own. actors/owners_test.go fails
// when two tables overlap (one kind is a prefix of another's keys), and when a
// package's code builds a key whose kind is not in its own table.
//
// Ids are ULIDs (NewID), so records of a kind scan in creation order. Only the last
// part of a key may contain '/': Prefix("fw", tenant) must not also match another
// tenant's rules, so every part but the last must be free of '/'. Prefix("user") does
// not match "user-email/...", because the separator is part of the prefix.

// KindMeta is the first part of the store's metadata keys, meta/<name>. Each name has
// its own owner (schema-version is this package's; the others are in their owners'
// tables: meta/admin, meta/jwt-key, ...).
const KindMeta = "meta"

// KeyKind is one kind of key in a package's table: the leading parts its keys share,
// joined by '/', and what the keys hold.
type KeyKind struct {
	// Prefix is the kind's leading parts, without the trailing '/': "vm",
	// "meta/schema-version". Every key of the kind is Prefix itself or starts with
	// Prefix + "/".
	Prefix string
	// Holds says what is stored under it, and the shape of the rest of the key.
	Holds string
}

// Keys is the table of the keys this package writes itself.
var Keys = []KeyKind{
	{Prefix: "meta/schema-version", Holds: "the store's schema version, as decimal text (schema.go)"},
	{Prefix: "locks/schema-upgrade", Holds: "etcd only: the lock the members of a cluster take to run the migrations one at a time (etcd.go)"},
}

// Key joins parts with '/': Key("vm", id) is "vm/<id>".
func Key(parts ...string) []byte {
	return AppendKey(make([]byte, 0, KeyLen(parts...)), parts...)
}

// KeyLen is the length of Key(parts...).
func KeyLen(parts ...string) int {
	n := 0
	for _, p := range parts {
		n += len(p) + 1
	}
	return max(n-1, 0)
}

// AppendKey appends Key(parts...) to dst. A write that makes several keys builds them
// in one buffer of their summed KeyLen, each cut with a full slice expression
// (k[:len(k):len(k)]) so that no key can grow into the next: one allocation instead
// of one a key, on the path of every durable write.
func AppendKey(dst []byte, parts ...string) []byte {
	for i, p := range parts {
		if i > 0 {
			dst = append(dst, '/')
		}
		dst = append(dst, p...)
	}
	return dst
}

// Prefix is Key(parts...) with a trailing '/': the scan prefix of everything under
// those parts. Prefix() with no parts is empty and matches every key.
func Prefix(parts ...string) []byte {
	if len(parts) == 0 {
		return []byte{}
	}
	return append(Key(parts...), '/')
}

// ids generates ULIDs that increase strictly within the process: within one
// millisecond the monotonic entropy increments, and the clock is never allowed to go
// backwards, so ids sort in creation order.
var ids struct {
	mu      sync.Mutex
	entropy *ulid.MonotonicEntropy
	lastMs  uint64
}

// NewID returns a new ULID string (26 characters, Crockford base32). It is safe for
// concurrent use, and later calls return greater ids.
func NewID() string {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	if ids.entropy == nil {
		ids.entropy = ulid.Monotonic(rand.Reader, 0)
	}
	ms := max(ulid.Now(), ids.lastMs)
	for {
		id, err := ulid.New(ms, ids.entropy)
		if err == nil {
			ids.lastMs = ms
			return id.String()
		}
		if !errors.Is(err, ulid.ErrMonotonicOverflow) {
			panic("persistence: reading random bytes for an id: " + err.Error())
		}
		// 80 bits of entropy used up within one millisecond: move on to the next.
		ms++
	}
}
