package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Header writes a table's header row.
func Header(w io.Writer, cols ...string) { Row(w, cols...) }

// Row writes one table row.
func Row(w io.Writer, cells ...string) { fmt.Fprintln(w, strings.Join(cells, "\t")) }

// Field writes one line of a vertical (show) table.
func Field(w io.Writer, name string, value string) { fmt.Fprintf(w, "%s:\t%s\n", name, value) }

// Str is *p, "-" for nil or empty.
func Str(p *string) string {
	if p == nil || *p == "" {
		return "-"
	}
	return *p
}

// OrDash is s, "-" for empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Num is n in decimal.
func Num(n int64) string { return strconv.FormatInt(n, 10) }

// Limit is a quota limit, where -1 means none.
func Limit(n int64) string {
	if n < 0 {
		return "unlimited"
	}
	return Num(n)
}

// Bound is an optional count, "-" for none (no bound).
func Bound(n *int64) string {
	if n == nil {
		return "-"
	}
	return Num(*n)
}

// OptNum is an optional number after prefix, "none" for nil.
func OptNum(n *int64, prefix string) string {
	if n == nil {
		return "none"
	}
	return prefix + Num(*n)
}

// List is items joined by commas, empty for none.
func List(items []string, empty string) string {
	if len(items) == 0 {
		return empty
	}
	return strings.Join(items, ",")
}

// When is t in UTC as RFC 3339, "-" for the zero time.
func When(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

// WhenPtr is When(*t), "-" for nil.
func WhenPtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return When(*t)
}

// BytesIEC is a number of bytes with a binary unit: 512 B, 1.5 KiB, 20.0 GiB.
func BytesIEC(n float64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatFloat(n, 'f', 0, 64) + " B"
	}
	i := -1
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return strconv.FormatFloat(n, 'f', 1, 64) + " " + units[i:i+1] + "iB"
}

// Size is a byte measure with a binary unit, "-" for a gap.
func Size(v *float64) string {
	if v == nil {
		return "-"
	}
	return BytesIEC(*v)
}

// Percent is a fraction 0..1 as a percentage, "-" for a gap.
func Percent(v *float64) string {
	if v == nil {
		return "-"
	}
	return Ratio(*v)
}

// Ratio is a fraction 0..1 as a percentage with one decimal: 12.5%.
func Ratio(r float64) string { return Fixed(r*100, 1) + "%" }

// Fixed is v with digits decimals.
func Fixed(v float64, digits int) string { return strconv.FormatFloat(v, 'f', digits, 64) }

// Signed is f of v's size with its sign: +1.5 GiB, -20.0 MiB.
func Signed(f func(float64) string, v float64) string {
	if v < 0 {
		return "-" + f(-v)
	}
	return "+" + f(v)
}

// YesNo is a boolean as yes or no.
func YesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
