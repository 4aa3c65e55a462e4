package audit

import (
	"encoding/binary"
	"encoding/json"
	"time"
)

// encodeEntry is persistence.Encode(entryVersion, e) without encoding/json's
// reflection: the same bytes (json.Marshal's, HTML escaping included), written
// directly. Every durable write through the API carries one entry, and encoding it
// by reflection was the largest single cost of the audit log on the write path.
// Anything out of the ordinary (a string that needs escaping, a time encoding/json
// writes differently or refuses) is left to encoding/json, in its own words.
func encodeEntry(e *Entry) ([]byte, error) {
	// Sized for the whole entry: the names, quotes, version and time take under 224 bytes, and
	// the strings their length unless escaped (320 fixed grew once for most writes).
	n := 224 + len(e.ID) + len(e.Actor) + len(e.ActorKind) + len(e.UserID) + len(e.Action) + len(e.TargetKind) +
		len(e.TargetID) + len(e.Result) + len(e.Reason) + len(e.RequestID) + len(e.Client) + len(e.TenantID)
	out := make([]byte, 2, n)
	binary.BigEndian.PutUint16(out, entryVersion)
	if !plainTime(e.Time) {
		body, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		return append(out, body...), nil
	}
	out = append(out, `{"id":`...)
	out = appendString(out, e.ID)
	out = append(out, `,"time":"`...)
	out = e.Time.AppendFormat(out, time.RFC3339Nano)
	out = append(out, '"')
	out = appendField(out, `,"actor":`, e.Actor)
	out = appendField(out, `,"actor_kind":`, e.ActorKind)
	out = appendField(out, `,"user_id":`, e.UserID)
	out = append(out, `,"action":`...)
	out = appendString(out, e.Action)
	out = appendField(out, `,"target_kind":`, e.TargetKind)
	out = appendField(out, `,"target_id":`, e.TargetID)
	out = append(out, `,"result":`...)
	out = appendString(out, e.Result)
	out = appendField(out, `,"reason":`, e.Reason)
	out = appendField(out, `,"request_id":`, e.RequestID)
	out = appendField(out, `,"client":`, e.Client)
	out = appendField(out, `,"tenant_id":`, e.TenantID)
	return append(out, '}'), nil
}

// plainTime reports whether time.Time.MarshalJSON writes t as AppendFormat with
// RFC 3339 and nanoseconds does: years 0..9999, zone offsets under 24 hours.
func plainTime(t time.Time) bool {
	_, offset := t.Zone()
	y := t.Year()
	return y >= 0 && y <= 9999 && offset > -24*3600 && offset < 24*3600
}

// appendField appends name and s, unless s is empty (the omitempty fields).
func appendField(dst []byte, name, s string) []byte {
	if s == "" {
		return dst
	}
	return appendString(append(dst, name...), s)
}

// appendString appends s as json.Marshal writes it. The fields of an entry are almost
// always printable ASCII that needs no escaping; anything else goes through
// encoding/json, so the escaping (control characters, HTML's <, > and &, invalid
// UTF-8, U+2028) stays its own.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always encodes
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
