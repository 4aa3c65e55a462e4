package apitype

import (
	"bytes"
	"encoding/json"
)

// Optional is a field of a PATCH body that has three states, as JSON merge patch
// (RFC 7396) wants them: left out (the zero Optional: the field keeps its value), set
// to a value (Set), or set to JSON null (Null: the field is cleared). A plain pointer
// has only two of them: nil cannot tell "keep" from "clear".
//
// Fields of type Optional carry the `omitzero` option, so a zero Optional is not sent
// at all:
//
//	// Clear the rule's port, move it to position 1, keep the rest.
//	c.PatchFirewallRule(ctx, id, client.FirewallRulePatch{
//		Port:     client.Null[string](),
//		Position: client.Set[int64](1),
//	})
type Optional[T any] struct {
	value T
	set   bool // sent: as value, or as null when null is true
	null  bool
}

// Set is an Optional sent as v.
func Set[T any](v T) Optional[T] { return Optional[T]{value: v, set: true} }

// Null is an Optional sent as JSON null: the server clears the field.
func Null[T any]() Optional[T] { return Optional[T]{set: true, null: true} }

// IsZero reports whether o is left out of the body (neither Set nor Null); omitzero
// reads it.
func (o Optional[T]) IsZero() bool { return !o.set }

// IsNull reports whether o is sent as null.
func (o Optional[T]) IsNull() bool { return o.set && o.null }

// Get returns the value and whether there is one (o was Set).
func (o Optional[T]) Get() (T, bool) { return o.value, o.set && !o.null }

// MarshalJSON encodes the value, or null. A zero Optional, when not left out by
// omitzero, encodes as null too: JSON has no "absent" value.
func (o Optional[T]) MarshalJSON() ([]byte, error) {
	if !o.set || o.null {
		return []byte("null"), nil
	}
	return json.Marshal(o.value)
}

// UnmarshalJSON reads null as Null and anything else as Set; a field absent from the
// JSON leaves o zero.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*o = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = Set(v)
	return nil
}
