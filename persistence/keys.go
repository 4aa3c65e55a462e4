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
//	user/<id>             user record
//	user-email/<email>    index: email → user id
//	refresh/<family>      refresh-token family (rotation and reuse detection)
//	tenant/<id>           tenant record
//	vm/<id>               virtual machine record
//	node/<id>             hypervisor node record
//	task/<id>             long-running task (power actions, migrations, ...)
//	fw/<tenant>/<id>      firewall rule, grouped under its tenant
//	meta/<name>           store metadata (schema versions, cluster identity, ...)
//
// Ids are ULIDs (NewID), so records of a kind scan in creation order. Only the last
// part of a key may contain '/': Prefix("fw", tenant) must not also match another
// tenant's rules, so every part but the last must be free of '/'. Prefix("user") does
// not match "user-email/...", because the separator is part of the prefix.
const (
	KindUser      = "user"
	KindUserEmail = "user-email"
	KindRefresh   = "refresh"
	KindTenant    = "tenant"
	KindVM        = "vm"
	KindNode      = "node"
	KindTask      = "task"
	KindFirewall  = "fw"
	KindMeta      = "meta"
)

// Key joins parts with '/': Key(KindVM, id) is "vm/<id>".
func Key(parts ...string) []byte {
	n := 0
	for _, p := range parts {
		n += len(p) + 1
	}
	k := make([]byte, 0, n)
	for i, p := range parts {
		if i > 0 {
			k = append(k, '/')
		}
		k = append(k, p...)
	}
	return k
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
