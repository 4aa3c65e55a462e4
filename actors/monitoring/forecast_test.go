package monitoring

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

var day0 = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// series returns used(i) for days 0..n-1 from day0.
func series(n int, used func(i int) float64) []DailyUsage {
	out := make([]DailyUsage, n)
	for i := range out {
		out[i] = DailyUsage{Date: day0.AddDate(0, 0, i).Add(13 * time.Hour), Used: used(i)}
	}
	return out
}

func date(t *time.Time) string {
	if t == nil {
		return "null"
	}
	return t.Format(time.DateOnly)
}

func TestExhaustionOfSyntheticSeries(t *testing.T) {
	linear := func(i int) float64 { return 10 + 2*float64(i) }
	f := func(name string, points []DailyUsage, capacity float64, todayIdx, horizon int, wantSlope float64, want string) {
		t.Helper()
		today := day0.AddDate(0, 0, todayIdx)
		tr := FitTrend(points, today)
		if math.Abs(tr.PerDay-wantSlope) > 1e-9 {
			t.Errorf("%s: got slope %v; want %v", name, tr.PerDay, wantSlope)
		}
		used := points[len(points)-1].Used
		if got := date(Exhaustion(tr, used, capacity, today, horizon)); got != want {
			t.Errorf("%s: got exhausted_at %s; want %s", name, got, want)
		}
	}
	// used = 10 + 2/day meets 100 on day 45.
	f("linear", series(21, linear), 100, 20, 30, 2, day0.AddDate(0, 0, 45).Format(time.DateOnly))
	f("linear, horizon ends on that day", series(21, linear), 100, 20, 25, 2, day0.AddDate(0, 0, 45).Format(time.DateOnly))
	f("linear, beyond the horizon", series(21, linear), 100, 20, 24, 2, "null")
	f("linear, today after the last point", series(21, linear), 100, 30, 30, 2, day0.AddDate(0, 0, 45).Format(time.DateOnly))
	f("flat", series(30, func(int) float64 { return 50 }), 100, 29, 365, 0, "null")
	f("falling", series(30, func(i int) float64 { return 90 - float64(i) }), 100, 29, 365, -1, "null")
	f("already over, falling", series(10, func(i int) float64 { return 130 - float64(i) }), 100, 9, 30, -1, day0.AddDate(0, 0, 9).Format(time.DateOnly))
	f("exactly at capacity", series(10, func(int) float64 { return 100 }), 100, 9, 30, 0, day0.AddDate(0, 0, 9).Format(time.DateOnly))
	f("no capacity known", series(10, linear), 0, 9, 30, 2, "null")
	f("one day: no slope", series(1, func(int) float64 { return 99 }), 100, 0, 30, 0, "null")

	// Gaps do not bend the line: the same line with every other day missing.
	var gappy []DailyUsage
	for i, p := range series(21, linear) {
		if i%2 == 0 || i == 20 {
			gappy = append(gappy, p)
		}
	}
	f("linear with gaps", gappy, 100, 20, 30, 2, day0.AddDate(0, 0, 45).Format(time.DateOnly))
}

func TestFitTrendOfNoisySeries(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	// A weekly rhythm and noise on a slope of 1.5 a day, over 90 days.
	points := series(90, func(i int) float64 {
		weekly := 4 * math.Sin(2*math.Pi*float64(i)/7)
		return 200 + 1.5*float64(i) + weekly + rng.NormFloat64()*3
	})
	today := day0.AddDate(0, 0, 89)
	tr := FitTrend(points, today)
	if math.Abs(tr.PerDay-1.5) > 0.05 {
		t.Fatalf("got slope %v; want 1.5 ± 0.05", tr.PerDay)
	}
	if want := 200 + 1.5*89; math.Abs(tr.Level-want) > 3 {
		t.Fatalf("got level %v today; want %v ± 3", tr.Level, want)
	}
	// Capacity 500 is reached around day 89 + (500-333.5)/1.5 ≈ day 200.
	at := Exhaustion(tr, points[89].Used, 500, today, 365)
	if at == nil {
		t.Fatal("got no exhaustion; want one about 111 days ahead")
	}
	if d := dayDiff(today, *at); d < 105 || d > 117 {
		t.Fatalf("got exhaustion %d days ahead; want about 111", d)
	}
}

func TestDayDiffIgnoresTimeOfDay(t *testing.T) {
	a := time.Date(2026, 3, 1, 23, 59, 0, 0, time.UTC)
	b := time.Date(2026, 3, 2, 0, 1, 0, 0, time.UTC)
	if got := dayDiff(a, b); got != 1 {
		t.Fatalf("got %d; want 1", got)
	}
	if got := dayDiff(b, a.AddDate(0, 0, -3)); got != -4 {
		t.Fatalf("got %d; want -4", got)
	}
}
