package tenants

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// A rule is encoded on every rule write (its stored record, and every rule a write
// shifts) and again for the answer. encoding/json took 14 % of the server's CPU under
// the durable-write benchmark, half of it in the two time.Time fields (their
// MarshalJSON output is allocated, then checked and copied again). AppendJSON writes
// the same bytes without reflection; TestRuleAppendJSONMatchesEncodingJSON holds it
// to encoding/json's output for random rules, so a field added to FirewallRule
// without being added here fails that test.

// AppendJSON appends the rule's JSON to dst: byte for byte what a json.Encoder with
// SetEscapeHTML(false) writes for it, without the newline, and fails where it fails.
// persistence.Encode and the HTTP edge use it instead of encoding/json.
func (r FirewallRule) AppendJSON(dst []byte) ([]byte, error) {
	if !jsonTime(r.CreatedAt) || !jsonTime(r.UpdatedAt) {
		// encoding/json refuses such times: let it, in its own words.
		return appendEncoded(dst, r)
	}
	dst = append(dst, `{"id":`...)
	dst = appendJSONString(dst, r.ID)
	dst = append(dst, `,"tenant_id":`...)
	dst = appendJSONString(dst, r.TenantID)
	dst = append(dst, `,"machine_id":`...)
	dst = appendJSONStringPtr(dst, r.MachineID)
	dst = append(dst, `,"direction":`...)
	dst = appendJSONString(dst, r.Direction)
	dst = append(dst, `,"action":`...)
	dst = appendJSONString(dst, r.Action)
	dst = append(dst, `,"protocol":`...)
	dst = appendJSONString(dst, r.Protocol)
	dst = append(dst, `,"port":`...)
	dst = appendJSONStringPtr(dst, r.Port)
	dst = append(dst, `,"source":`...)
	dst = appendJSONStringPtr(dst, r.Source)
	dst = append(dst, `,"destination":`...)
	dst = appendJSONStringPtr(dst, r.Destination)
	dst = append(dst, `,"enabled":`...)
	dst = strconv.AppendBool(dst, r.Enabled)
	dst = append(dst, `,"position":`...)
	dst = strconv.AppendInt(dst, int64(r.Position), 10)
	dst = append(dst, `,"comment":`...)
	dst = appendJSONString(dst, r.Comment)
	dst = append(dst, `,"created_at":"`...)
	dst = r.CreatedAt.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, `","updated_at":"`...)
	dst = r.UpdatedAt.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, `"}`...), nil
}

// jsonTime reports whether time.Time.MarshalJSON writes t (as RFC 3339 with
// nanoseconds, as AppendFormat does): it refuses years outside 0..9999 and zone
// offsets of 24 hours or more.
func jsonTime(t time.Time) bool {
	_, offset := t.Zone()
	y := t.Year()
	return y >= 0 && y <= 9999 && offset > -24*3600 && offset < 24*3600
}

func appendJSONStringPtr(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, *s)
}

// appendJSONString appends s as a JSON string. Rule fields are almost always plain
// printable ASCII, which needs no escaping; anything else is left to encoding/json,
// so the escaping rules (control characters, invalid UTF-8, U+2028) are its own.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			out, _ := appendEncoded(dst, s) // a string always encodes
			return out
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// appendEncoded appends v as a json.Encoder with SetEscapeHTML(false) writes it,
// without the newline.
func appendEncoded(dst []byte, v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...), nil
}
