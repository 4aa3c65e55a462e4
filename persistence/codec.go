package persistence

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/vmplane/vmplane/apierr"
)

// Stored values are versioned records: a 2-byte big-endian schema version followed by
// the JSON of the record. The version lets a newer vmplane read and migrate records
// that an older one wrote; JSON keeps them readable in a support dump. Version 0 is
// never written, which catches values that were not written by Encode.

// JSONAppender is a record that writes its own JSON, the bytes encoding/json would
// write for it (HTML characters unescaped) without reflection, for records written on
// hot paths. Encode uses it.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

// Encode returns the stored form of v at the given schema version (1 or more).
func Encode(version uint16, v any) ([]byte, error) {
	if version == 0 {
		return nil, apierr.New(apierr.ErrInternal, "storage: record schema version 0 is reserved")
	}
	if a, ok := v.(JSONAppender); ok {
		out := make([]byte, 2, 512)
		binary.BigEndian.PutUint16(out, version)
		out, err := a.AppendJSON(out)
		if err != nil {
			return nil, internal("cannot encode record", err)
		}
		return out, nil
	}
	body, err := json.Marshal(v)
	if err != nil {
		return nil, internal("cannot encode record", err)
	}
	out := make([]byte, 2, 2+len(body))
	binary.BigEndian.PutUint16(out, version)
	return append(out, body...), nil
}

// Decode fills v (a pointer) from a value written by Encode and returns the record's
// schema version. Callers must check the version: one newer than they know means the
// record was written by a newer vmplane, and JSON would silently drop its new fields.
// Corrupt data fails with an apierr.ErrInternal error.
func Decode(data []byte, v any) (version uint16, err error) {
	if len(data) < 2 {
		return 0, apierr.New(apierr.ErrInternal, "storage: corrupt record (%d bytes)", len(data))
	}
	version = binary.BigEndian.Uint16(data)
	if version == 0 {
		return 0, apierr.New(apierr.ErrInternal, "storage: corrupt record (schema version 0)")
	}
	if err := json.Unmarshal(data[2:], v); err != nil {
		return version, fmt.Errorf("%w: %w", apierr.New(apierr.ErrInternal,
			"storage: corrupt record (schema version %d)", version), err)
	}
	return version, nil
}

// Load reads and decodes the record under key; a missing key is ErrNotFound.
func Load[T any](ctx context.Context, s Store, key []byte) (*T, error) {
	val, err := s.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	var v T
	if _, err := Decode(val, &v); err != nil {
		return nil, err
	}
	return &v, nil
}
