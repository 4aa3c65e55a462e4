package monitoring

import (
	"math"
	"time"
)

// The cluster forecast fits a straight line to daily usage by ordinary least squares
// and extends it until it meets capacity.
//
// Why least squares and not Holt's linear method: the input is already smoothed (one
// daily average per day, so the daily rhythm is gone), and the fit covers up to
// ForecastHistoryDays days, a dozen whole weeks, so the weekly rhythm averages out
// instead of tilting the slope. Least squares has no smoothing constants to tune (Holt
// needs α and β, and with a few weeks of data the forecast depends more on them than
// on the data), a single noisy or missing day moves it little, gaps cost nothing (x is
// the day number, so a missing day does not bend the line), and an operator can check
// the answer: trend_per_day is exactly the least-squares slope of the points the
// endpoint returns. Holt reacts faster to a change of growth; for capacity planning
// weeks ahead, stability is worth more than that.

// DailyUsage is one day of one resource's usage, the input of the forecast.
type DailyUsage struct {
	// Date is the day (UTC; any time of day counts as that day).
	Date time.Time
	Used float64
}

// Trend is a straight line through daily usage: Level at Origin, changing by PerDay
// each day.
type Trend struct {
	Origin time.Time
	Level  float64
	PerDay float64
	// Points is how many days the line was fitted to; with fewer than two distinct
	// days there is no slope (PerDay 0, Level the one value seen).
	Points int
}

// At is the line's value on day d.
func (t Trend) At(d time.Time) float64 {
	return t.Level + t.PerDay*float64(dayDiff(t.Origin, d))
}

// FitTrend fits a least-squares line to points and states it relative to origin (the
// line's Level is its value on origin's day).
func FitTrend(points []DailyUsage, origin time.Time) Trend {
	t := Trend{Origin: dayOf(origin), Points: len(points)}
	if len(points) == 0 {
		return t
	}
	// x is the day number relative to origin, which keeps the numbers small and exact.
	var sx, sy float64
	for _, p := range points {
		sx += float64(dayDiff(t.Origin, p.Date))
		sy += p.Used
	}
	n := float64(len(points))
	mx, my := sx/n, sy/n
	var sxy, sxx float64
	for _, p := range points {
		dx := float64(dayDiff(t.Origin, p.Date)) - mx
		sxy += dx * (p.Used - my)
		sxx += dx * dx
	}
	if sxx > 0 {
		t.PerDay = sxy / sxx
	}
	t.Level = my - t.PerDay*mx
	return t
}

// Exhaustion returns the first day, from today to today+horizonDays, on which usage
// reaches capacity along the trend, or nil when it does not within the horizon:
//   - used (the latest observation) already at or over capacity: today;
//   - no capacity known (0) or a flat or falling trend: nil;
//   - otherwise the first whole day on which the line is at or over capacity (today
//     when the line is already there although the latest observation is not).
func Exhaustion(t Trend, used, capacity float64, today time.Time, horizonDays int) *time.Time {
	today = dayOf(today)
	if capacity <= 0 {
		return nil
	}
	if used >= capacity {
		return &today
	}
	if t.PerDay <= 0 {
		return nil
	}
	days := (capacity - t.At(today)) / t.PerDay
	// A hair of tolerance so that a line that meets capacity exactly on a day (45.000…01
	// from rounding) is reported on that day, not the next.
	d := math.Ceil(days - 1e-9)
	if d < 0 {
		d = 0
	}
	if d > float64(horizonDays) {
		return nil
	}
	at := today.AddDate(0, 0, int(d))
	return &at
}

// dayOf is the UTC midnight of t's day.
func dayOf(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// dayDiff is the number of whole days from a's day to b's day.
func dayDiff(a, b time.Time) int {
	return int(math.Round(dayOf(b).Sub(dayOf(a)).Hours() / 24))
}
