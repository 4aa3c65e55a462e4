package kit

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/vmplane/vmplane/apierr"
)

// In a cluster, a request for an entity active on another member travels to that
// member and its answer travels back. protoactor's remoting carries only protobuf
// messages and drops a plain struct silently when it crosses nodes, so kit carries
// messages itself, as JSON. Every message a Kind may be asked or told from outside its
// entity, and every answer it gives, is registered with Wire by the package that defines
// it, under a stable name and a version that are part of the API between members: two
// members of different vmplane versions must still understand each other, so a name
// never comes from the Go type (renaming a type must not break a cluster mid-upgrade)
// and a shape that changes incompatibly gets a new version. TestWireCatalogue (in
// actors) holds every name@version and its JSON fields to a golden file;
// wiretest.WireRoundTrip checks that each type survives the trip whole.

// Wired is a message or answer on its way between members: its registered name and
// version, and its JSON body.
type Wired struct {
	Type string `json:"type"`
	// Version is the version of Type's shape the body has; members before versioned
	// names sent none.
	Version int             `json:"version,omitempty"`
	Body    json.RawMessage `json:"body"`
	// AuditCarried is set on a forwarded request's answer when the audit entry the
	// request brought went into a batch on the member that answered: the sender's
	// edge then has nothing to record (it would otherwise write the entry again, to
	// find it there, one more store write per forwarded change). Members before it
	// send none, and the sender records as it did.
	AuditCarried bool `json:"audit_carried,omitempty"`
}

// WireEntry is one registered message or answer: its name, version, and a zero value of
// its Go type (a pointer when values travel as pointers).
type WireEntry struct {
	Name    string
	Version int
	Zero    any
}

// wireKey is a name at a version.
type wireKey struct {
	name    string
	version int
}

func (k wireKey) String() string { return fmt.Sprintf("%s@%d", k.name, k.version) }

// registry holds what Wire registered: each name@version's Go type, and each Go type's
// name@version (one each way).
var registry struct {
	mu     sync.RWMutex
	byKey  map[wireKey]reflect.Type
	byType map[reflect.Type]wireKey
	latest map[string]int // name → its highest registered version
}

// The answers every package may give.
func init() {
	Wire("error", 1, (*apierr.Error)(nil))
	Wire("kit.Done", 1, Done{})
}

// ErrUnknownMessage is what Decode wraps for a message or answer this member cannot
// read: its name or version is not registered here, because the sender runs another
// version of vmplane.
var ErrUnknownMessage = errors.New("unknown message")

// Wire registers v's type (a pointer or a value, as the type travels) as able to cross
// members under name at version. The name is short, dotted and stable
// ("machines.getMachine"), whatever the Go type is called; version starts at 1 and
// grows when the JSON shape changes incompatibly (the older version stays registered,
// under its own Go type, while members that send it may run). Registering two types
// under one name@version, or one type under two, panics: it is a programming error
// caught at start-up.
func Wire(name string, version int, v any) {
	if name == "" || strings.ContainsAny(name, "@ \t\n") || version < 1 {
		panic(fmt.Sprintf("kit.Wire: invalid name %q at version %d", name, version))
	}
	t := reflect.TypeOf(v)
	if t == nil {
		panic("kit.Wire: nil value for " + name)
	}
	k := wireKey{name, version}
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.byKey == nil {
		registry.byKey, registry.byType, registry.latest = map[wireKey]reflect.Type{}, map[reflect.Type]wireKey{}, map[string]int{}
	}
	if prev, ok := registry.byKey[k]; ok && prev != t {
		panic(fmt.Sprintf("kit.Wire: %s is registered for both %s and %s", k, prev, t))
	}
	if prev, ok := registry.byType[t]; ok && prev != k {
		panic(fmt.Sprintf("kit.Wire: %s is registered as both %s and %s", t, prev, k))
	}
	registry.byKey[k], registry.byType[t] = t, k
	registry.latest[name] = max(registry.latest[name], version)
}

// Encode turns a registered message or answer into its wire form.
func Encode(v any) (Wired, error) {
	t := reflect.TypeOf(v)
	registry.mu.RLock()
	k, ok := registry.byType[t]
	registry.mu.RUnlock()
	if !ok {
		return Wired{}, fmt.Errorf("kit: %v is not registered with kit.Wire and cannot reach another member", t)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Wired{}, fmt.Errorf("kit: encode %s: %w", k, err)
	}
	return Wired{Type: k.name, Version: k.version, Body: b}, nil
}

// Decode turns a wire form back into the value Encode was given. A name or version not
// registered here fails with ErrUnknownMessage, saying which side is older.
func Decode(w Wired) (any, error) {
	k := wireKey{w.Type, w.Version}
	if k.version == 0 {
		// Members before versioned names sent none; "error" is the one name they share
		// with this version, and its shape is version 1.
		k.version = 1
	}
	registry.mu.RLock()
	t, ok := registry.byKey[k]
	latest := registry.latest[w.Type]
	registry.mu.RUnlock()
	switch {
	case ok:
	case w.Version == 0:
		return nil, fmt.Errorf("%w %s without a version: the sending member runs an older version of vmplane", ErrUnknownMessage, w.Type)
	case w.Version < latest:
		return nil, fmt.Errorf("%w %s: the sending member runs an older version of vmplane, whose message this one no longer reads", ErrUnknownMessage, k)
	default:
		return nil, fmt.Errorf("this member runs an older version of vmplane (%w %s)", ErrUnknownMessage, k)
	}
	ptr := t.Kind() == reflect.Pointer
	if ptr {
		t = t.Elem()
	}
	p := reflect.New(t)
	if err := json.Unmarshal(w.Body, p.Interface()); err != nil {
		return nil, fmt.Errorf("kit: decode %s: %w", k, err)
	}
	if ptr {
		return p.Interface(), nil
	}
	return p.Elem().Interface(), nil
}

// WireEntries lists every registered name@version with a zero value of its type, by
// name and version, for the tests that check each one survives the trip and keeps its
// shape.
func WireEntries() []WireEntry {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	out := make([]WireEntry, 0, len(registry.byKey))
	for k, t := range registry.byKey {
		var zero any
		if t.Kind() == reflect.Pointer {
			zero = reflect.New(t.Elem()).Interface()
		} else {
			zero = reflect.New(t).Elem().Interface()
		}
		out = append(out, WireEntry{Name: k.name, Version: k.version, Zero: zero})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Version < out[j].Version
	})
	return out
}
