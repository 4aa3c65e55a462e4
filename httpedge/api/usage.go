package api

import (
	"time"

	"github.com/vmplane/vmplane/apierr"
)

// UsageQuery declares the range of the usage answers.
var UsageQuery = map[string]string{
	"from": "the first hour, an RFC 3339 time on a whole hour (inclusive)",
	"to":   "the hour after the last, an RFC 3339 time on a whole hour (exclusive); at most 366 days after from",
}

// UsageRange reads from and to (RFC 3339); usage.CheckRange checks the rest.
func UsageRange(c *Call) (from, to time.Time, err error) {
	for _, p := range []struct {
		name string
		t    *time.Time
	}{{"from", &from}, {"to", &to}} {
		v := c.Query(p.name)
		if v == "" {
			return from, to, apierr.Invalid(apierr.Field(p.name, "required: an RFC 3339 time on a whole hour"))
		}
		if *p.t, err = time.Parse(time.RFC3339, v); err != nil {
			return from, to, apierr.Invalid(apierr.Field(p.name, "not an RFC 3339 time: %q", v))
		}
	}
	return from, to, nil
}
