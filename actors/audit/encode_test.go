package audit

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/vmplane/vmplane/persistence"
)

// TestEncodeEntryMatchesEncodingJSON holds encodeEntry to the bytes
// persistence.Encode (encoding/json) writes for the same entry, for plain entries,
// entries with every field, strings that need escaping and times encoding/json
// writes in its own way or refuses.
func TestEncodeEntryMatchesEncodingJSON(t *testing.T) {
	now := time.Date(2026, 11, 28, 13, 40, 1, 123456789, time.UTC)
	entries := []Entry{
		{ID: NewID(now), Time: now, Action: "POST /api/client/firewall/rules", Result: "ok"},
		{ID: NewID(now), Time: now, Actor: "u1", ActorKind: "user", UserID: "u1", Action: "DELETE /api/x/{id}",
			TargetKind: "firewall_rule", TargetID: "r1", Result: "ok", Reason: "r", RequestID: "req-1",
			Client: "203.0.113.7", TenantID: "t1"},
		{Time: now.In(time.FixedZone("x", 5*3600+1800)), Action: "a", Result: "conflict", Reason: "quote \" and \\ and <b>&</b>"},
		{Time: now, Action: "a\u2028b", Result: "x\x01y", Reason: "café", Client: "\xff"},
		{Time: time.Time{}, Action: "zero time"},
		{Time: time.Date(12345, 1, 1, 0, 0, 0, 0, time.UTC), Action: "year out of range"},
		{Time: now.In(time.FixedZone("far", 25*3600)), Action: "offset out of range"},
	}
	for i, e := range entries {
		want, wantErr := persistence.Encode(entryVersion, &e)
		got, err := encodeEntry(&e)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("entry %d: error %v; encoding/json's %v", i, err, wantErr)
		}
		if err == nil && !bytes.Equal(got, want) {
			t.Errorf("entry %d:\n got %q\nwant %q", i, got, want)
		}
	}
}

// TestNewIDShape: the id is the inverted time in 16 hex digits, a dash, 10 random
// hex digits, as before it was written without fmt.
func TestNewIDShape(t *testing.T) {
	now := time.Date(2026, 11, 28, 13, 40, 1, 5, time.UTC)
	id := NewID(now)
	if !validID(id) || id[:16] != fmt.Sprintf("%016x", uint64(math.MaxUint64)-uint64(now.UnixNano())) || id[:16] != timePart(now) {
		t.Fatalf("NewID = %q", id)
	}
	if NewID(now.Add(time.Second)) >= id {
		t.Fatal("a later entry's id does not sort first")
	}
}

// put writes an entry under entryKey, and a tenant's also under tenantKey (the two
// built in one buffer), with the bytes encodeEntry makes.
func TestPutWritesBothKeys(t *testing.T) {
	now := time.Date(2026, 11, 28, 13, 40, 1, 0, time.UTC)
	for _, tenant := range []string{"", "t-1"} {
		e := Entry{ID: NewID(now), Time: now, Action: "DELETE /api/client/firewall/rules/{id}", Result: "ok", TenantID: tenant}
		b := new(persistence.Batch)
		if err := put(b, &e); err != nil {
			t.Fatal(err)
		}
		want, _ := encodeEntry(&e)
		if len(b.Ops) == 0 || !bytes.Equal(b.Ops[0].Key, entryKey(e.ID)) || !bytes.Equal(b.Ops[0].Value, want) {
			t.Fatalf("tenant %q: got ops %+v; want the entry under %s", tenant, b.Ops, entryKey(e.ID))
		}
		if tenant == "" {
			if len(b.Ops) != 1 {
				t.Fatalf("no tenant: got %d ops; want 1", len(b.Ops))
			}
			continue
		}
		if len(b.Ops) != 2 || !bytes.Equal(b.Ops[1].Key, tenantKey(tenant, e.ID)) || b.Ops[1].Value != nil {
			t.Fatalf("tenant %q: got ops %+v; want the index key %s", tenant, b.Ops, tenantKey(tenant, e.ID))
		}
	}
}
