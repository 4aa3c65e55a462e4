package tenants

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/vmplane/vmplane/persistence"
)

// randomRule returns a rule whose every field is set at random, with the strings and
// times that need care: quotes, control characters, HTML characters, non-ASCII and
// invalid UTF-8, nil pointers, times that encoding/json refuses.
func randomRule(rng *rand.Rand) FirewallRule {
	pieces := []string{"", "a", "in", "tcp", "10.0.0.0/8", "22,80-90", `"`, `\`, "\n", "\t", "\x00", "\x1f", "\x7f",
		"<b>&amp;</b>", "é", "日本", "\u2028", "\u2029", "\xff", "\xe2\x82", "🔥", "ok comment"}
	str := func() string {
		var b []byte
		for range rng.IntN(4) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		return string(b)
	}
	ptr := func() *string {
		if rng.IntN(3) == 0 {
			return nil
		}
		s := str()
		return &s
	}
	when := func() time.Time {
		// The last year and the last three zones are ones encoding/json refuses:
		// one time in 20 or so.
		years := []int{1, 1970, 2026, 9999, 0, 1e4, -1}
		zones := []*time.Location{time.UTC, time.FixedZone("", 2*3600), time.FixedZone("", -(5*3600 + 30*60)),
			time.FixedZone("", 3600+7), time.FixedZone("", 24*3600), time.FixedZone("", -25*3600)}
		year, zone := years[rng.IntN(5)], zones[rng.IntN(3)]
		if rng.IntN(20) == 0 {
			year = years[rng.IntN(len(years))]
			zone = zones[rng.IntN(len(zones))]
		}
		return time.Date(year, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60),
			[]int{0, 1, 120000000, 999999999}[rng.IntN(4)], zone)
	}
	return FirewallRule{ID: str(), TenantID: str(), MachineID: ptr(), Direction: str(), Action: str(), Protocol: str(),
		Port: ptr(), Source: ptr(), Destination: ptr(), Enabled: rng.IntN(2) == 0, Position: rng.IntN(2000) - 1000,
		Comment: str(), CreatedAt: when(), UpdatedAt: when()}
}

// TestRuleAppendJSONMatchesEncodingJSON holds AppendJSON to the bytes encoding/json
// writes (the answers' encoder: HTML unescaped), and to its failures.
func TestRuleAppendJSONMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	fails := 0
	for i := range 20000 {
		r := randomRule(rng)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		wantErr := enc.Encode(r)
		got, err := r.AppendJSON([]byte("prefix"))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("rule %d %+v: AppendJSON error %v; encoding/json error %v", i, r, err, wantErr)
		}
		if err != nil {
			fails++
			continue
		}
		if want := "prefix" + string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))); string(got) != want {
			t.Fatalf("rule %d:\n got %s\nwant %s", i, got, want)
		}
	}
	if fails == 0 || fails > 4000 {
		t.Fatalf("%d of 20000 random rules failed to encode; want some, and most to encode", fails)
	}
}

// A rule stored through AppendJSON reads back as it did when encoding/json wrote it.
func TestRuleRecordRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		r := randomRule(rng)
		rec, err := persistence.Encode(ruleVersion, &r)
		if err != nil {
			continue // times encoding/json refuses; the match test covers those
		}
		var back, want FirewallRule
		if _, err := persistence.Decode(rec, &back); err != nil {
			t.Fatalf("decode %q: %v", rec, err)
		}
		old, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(old, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, want) {
			t.Fatalf("stored rule reads back as\n%+v\nwant\n%+v", back, want)
		}
	}
}
