package audit

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/kit/kittest"
	"github.com/vmplane/vmplane/persistence"
)

// newLog starts a log over a store in t.TempDir(), on clock.
func newLog(t *testing.T, clock kit.Clock, retention time.Duration) *Log {
	t.Helper()
	store, err := persistence.Open(persistence.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rt := kit.New(store, nil, kit.EntityOptions{}, kit.WithClock(clock))
	l := Start(Deps{Runtime: rt, Retention: retention})
	t.Cleanup(func() {
		l.Stop()
		rt.Shutdown()
		store.Close()
	})
	return l
}

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// add records an entry made at t through the runtime's writer, as a room does.
func add(t *testing.T, l *Log, at time.Time, e Entry) Entry {
	t.Helper()
	e.ID, e.Time = NewID(at), at
	b := new(persistence.Batch)
	if err := l.rt.Audit(b, &e); err != nil {
		t.Fatal(err)
	}
	if err := l.rt.Store.Commit(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	return e
}

func ids(es []Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.TargetID
	}
	return out
}

// TestListNewestFirstScopedFilteredPaged: the log lists newest first, a tenant sees its
// own entries only, the filters select, and pages follow each other without loss.
func TestListNewestFirstScopedFilteredPaged(t *testing.T) {
	l := newLog(t, clockwork.NewFakeClockAt(t0), -1)
	ctx := context.Background()
	for i := 0; i < 6; i++ {
		ten := "A"
		if i%2 == 1 {
			ten = "B"
		}
		add(t, l, t0.Add(time.Duration(i)*time.Minute), Entry{Actor: "u" + ten, ActorKind: "user", UserID: "u" + ten,
			Action: "POST /x", TargetKind: "machines", TargetID: fmt.Sprint(i), TenantID: ten})
	}
	add(t, l, t0.Add(10*time.Minute), Entry{Actor: "k1", ActorKind: "api_key", UserID: "op", Action: "DELETE /y", TargetKind: "plans", TargetID: "p"})

	all, next, err := l.List(ctx, nil, Filter{}, "", 0)
	if err != nil || next != "" {
		t.Fatal(err, next)
	}
	if got := fmt.Sprint(ids(all)); got != "[p 5 4 3 2 1 0]" {
		t.Fatalf("operator's list %s; want every entry, newest first", got)
	}
	a := "A"
	mine, _, err := l.List(ctx, &a, Filter{}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ids(mine)); got != "[4 2 0]" {
		t.Fatalf("tenant A's list %s; want its own entries only", got)
	}
	none := "C"
	if other, _, _ := l.List(ctx, &none, Filter{}, "", 0); len(other) != 0 {
		t.Fatalf("tenant C sees %v", ids(other))
	}

	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{Actor: "uB"}, "[5 3 1]"},
		{Filter{Actor: "op"}, "[p]"}, // the key's user
		{Filter{Actor: "k1"}, "[p]"},
		{Filter{Target: "3"}, "[3]"},
		{Filter{Target: "plans/p"}, "[p]"},
		{Filter{Action: "DELETE /y"}, "[p]"},
		{Filter{Since: t0.Add(4 * time.Minute)}, "[p 5 4]"},
		{Filter{Until: t0.Add(time.Minute)}, "[1 0]"},
		{Filter{Since: t0.Add(2 * time.Minute), Until: t0.Add(3 * time.Minute), Actor: "uA"}, "[2]"},
	} {
		got, _, err := l.List(ctx, nil, c.f, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(ids(got)) != c.want {
			t.Errorf("%+v: got %v; want %s", c.f, ids(got), c.want)
		}
	}

	var paged []Entry
	cursor := ""
	for pages := 0; ; pages++ {
		page, next, err := l.List(ctx, nil, Filter{}, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, page...)
		if next == "" {
			break
		}
		if pages > 5 {
			t.Fatal("pages do not end")
		}
		cursor = next
	}
	if fmt.Sprint(ids(paged)) != fmt.Sprint(ids(all)) {
		t.Fatalf("pages of 2 gave %v; want %v", ids(paged), ids(all))
	}
	if _, _, err := l.List(ctx, nil, Filter{}, "not-a-cursor", 2); err == nil {
		t.Fatal("a cursor no page handed out was taken")
	}
}

// TestRecordWritesOnlyWhatIsMissing: an entry its change carried is not written again
// (the edge's record after the change), and a refusal is written alone.
func TestRecordWritesOnlyWhatIsMissing(t *testing.T) {
	l := newLog(t, clockwork.NewFakeClockAt(t0), -1)
	ctx := context.Background()
	carried := add(t, l, t0, Entry{Actor: "u", Action: "POST /x", TargetID: "carried"})
	again := carried
	again.TargetID = "written twice"
	if err := l.Record(ctx, &again); err != nil {
		t.Fatal(err)
	}
	refusal := Entry{ID: NewID(t0.Add(time.Second)), Time: t0.Add(time.Second), Action: "POST /api/auth/login", Result: "invalid_credentials", TargetID: "refused"}
	if err := l.Record(ctx, &refusal); err != nil {
		t.Fatal(err)
	}
	got, _, err := l.List(ctx, nil, Filter{}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ids(got)) != "[refused carried]" || got[0].Result != "invalid_credentials" || got[1].Result != kit.AuditResultOK {
		t.Fatalf("got %+v; want the refusal, then the carried entry as it was", got)
	}
}

// TestRetentionPrunesOldEntries: the retention job deletes the entries older than the
// retention, a tenant's copies with them, and keeps the rest.
func TestRetentionPrunesOldEntries(t *testing.T) {
	clock := clockwork.NewFakeClockAt(t0)
	l := newLog(t, clock, 24*time.Hour)
	ctx := context.Background()
	add(t, l, t0.Add(-48*time.Hour), Entry{Action: "POST /x", TargetID: "old", TenantID: "A"})
	add(t, l, t0.Add(-time.Hour), Entry{Action: "POST /x", TargetID: "recent", TenantID: "A"})
	add(t, l, t0.Add(30*time.Minute), Entry{Action: "POST /x", TargetID: "new"})
	a := "A"
	count := func(tenant *string) string {
		got, _, err := l.List(ctx, tenant, Filter{}, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(ids(got))
	}
	// Once the job waits for its next run (its first, at start, is done), an hour on
	// it removes the old entry.
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := clock.BlockUntilContext(wait, 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	kittest.WaitFor(t, "the old entry pruned", func() bool { return count(nil) == "[new recent]" })
	if got := count(&a); got != "[recent]" {
		t.Fatalf("tenant A's list %s; want its recent entry only", got)
	}
	// A day on, the next run removes what has aged since.
	clock.Advance(25 * time.Hour)
	kittest.WaitFor(t, "the aged entries pruned", func() bool { return count(nil) == "[]" && count(&a) == "[]" })
}
