package audit

import (
	"strings"
	"testing"
	"time"
)

// TestEncodeEntryAllocatesOnce: an entry is encoded into one buffer sized for it, with
// every field set and long, escaped strings too.
func TestEncodeEntryAllocatesOnce(t *testing.T) {
	now := time.Date(2026, 11, 29, 3, 4, 5, 123456789, time.UTC)
	entries := []*Entry{
		{ID: NewID(now), Time: now, Actor: "u-0123456789", ActorKind: "user", UserID: "u-0123456789",
			Action: "POST /api/client/firewall/rules", TargetKind: "firewall/rules", TargetID: "01JDX8Z8Q6S1V6W9Y4N8H1K2M3",
			Result: "success", RequestID: "0123456789abcdef-1z", Client: "2001:db8::1", TenantID: "t-0123456789"},
		{ID: NewID(now), Time: now, Action: "DELETE /api/x", Result: "refused", Reason: strings.Repeat("a long reason ", 40)},
	}
	for _, e := range entries {
		if _, err := encodeEntry(e); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(50, func() { _, _ = encodeEntry(e) }); n != 1 {
			t.Errorf("encoding %s: %v allocations; want 1", e.Action, n)
		}
	}
}
