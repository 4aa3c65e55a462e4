package locations

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestOffered: the tenant's view of the locations keeps the list's order and paging,
// shows no driver, and marks unavailable exactly the locations Unavailable names; a
// failed read of them is the list's error, not a guess.
func TestOffered(t *testing.T) {
	s := newTestSystem(t, key)
	ctx := ctxFor(t)
	lab, err := s.Create(ctx, LocationSpec{Name: "Lab", Driver: DriverSim})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, LocationSpec{Name: "Annex", Driver: DriverSim}); err != nil {
		t.Fatal(err)
	}
	down := map[string]bool{lab.ID: true}
	var fail error
	s.d.Unavailable = func(context.Context) (map[string]bool, error) { return down, fail }

	var got []OfferedLocation
	cursor := ""
	for range 5 {
		page, next, err := s.Offered(ctx, cursor, 1)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if next == "" {
			break
		}
		cursor = next
	}
	want := []string{"default:true:true", "Lab:false:false", "Annex:false:true"}
	if len(got) != len(want) {
		t.Fatalf("offered %+v; want %v (name:default:available)", got, want)
	}
	for i, o := range got {
		if s := fmt.Sprintf("%s:%t:%t", o.Name, o.Default, o.Available); s != want[i] {
			t.Errorf("offered[%d] = %s; want %s", i, s, want[i])
		}
	}
	fail = errors.New("store unavailable")
	if _, _, err := s.Offered(ctx, "", 10); !errors.Is(err, fail) {
		t.Errorf("with the alerts unreadable: got %v; want the read's error", err)
	}
}
