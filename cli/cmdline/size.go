package cmdline

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSize reads a size flag's value in unit (the flag's default unit: "M" or "G"),
// or with its own suffix M, G or T (powers of 1024), and returns it in unit.
func ParseSize(s, unit string) (int64, error) {
	mult := map[string]int64{"M": 1, "G": 1024, "T": 1024 * 1024}
	t := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B")
	suffix := unit
	if t != "" && strings.ContainsAny(t[len(t)-1:], "MGT") {
		suffix, t = t[len(t)-1:], t[:len(t)-1]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is no size (a number of %sB, or with M, G or T)", s, unit)
	}
	v := n * mult[suffix]
	if v%mult[unit] != 0 {
		return 0, fmt.Errorf("%q is not a whole number of %sB", s, unit)
	}
	return v / mult[unit], nil
}
