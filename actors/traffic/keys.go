package traffic

import (
	"time"

	"github.com/vmplane/vmplane/persistence"
)

// Keys is the table of the keys this package writes.
var Keys = []persistence.KeyKind{
	{Prefix: "traffic-last", Holds: "traffic-last/<machine>: the machine's counters as last read, and when"},
	{Prefix: "traffic-hour", Holds: "traffic-hour/<hour, 2006-01-02T15>/<machine>: the bytes the machine moved in that hour (UTC)"},
	{Prefix: "traffic-month", Holds: "traffic-month/<month, 2006-01>/<machine>: the bytes the machine moved in that calendar month (UTC)"},
	{Prefix: "traffic-over", Holds: "traffic-over/<month>/<machine>: the machine went past its plan's allowance that month, and the action taken"},
}

// Name layouts: fixed width, so keys sort as the times do.
const (
	hourLayout  = "2006-01-02T15"
	monthLayout = "2006-01"
)

func hourName(t time.Time) string  { return t.UTC().Format(hourLayout) }
func monthName(t time.Time) string { return t.UTC().Format(monthLayout) }

// monthStart is the first instant of t's calendar month, UTC.
func monthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func lastKey(machine string) []byte { return persistence.Key("traffic-last", machine) }
func hourKey(h time.Time, machine string) []byte {
	return persistence.Key("traffic-hour", hourName(h), machine)
}
func monthKey(t time.Time, machine string) []byte {
	return persistence.Key("traffic-month", monthName(t), machine)
}
func overKey(month, machine string) []byte { return persistence.Key("traffic-over", month, machine) }
