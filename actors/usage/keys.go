package usage

import (
	"fmt"
	"time"

	"github.com/vmplane/vmplane/persistence"
)

// Keys is the table of the keys this package writes.
var Keys = []persistence.KeyKind{
	{Prefix: "usage-hour", Holds: "usage-hour/<tenant, or - for the operator's machines>/<hour, 2006-01-02T15>: what the tenant's machines used in that hour (its first lines); usage-hour/<tenant>/<hour>/<run>/<n>: the rest, in parts the hour's record names"},
	{Prefix: "usage-closed", Holds: "usage-closed/<hour>: the hour is closed (a previous release's also lists the tenants it wrote, for the retention)"},
	{Prefix: "usage-index", Holds: "usage-index/<hour>/<tenant>: the tenant's hour was written (the retention's list of what to delete); usage-index/<hour>/<tenant>/<run>: that run wrote parts of it, how many (written before them)"},
}

// hourLayout names an hour in keys: fixed width, so keys sort as the hours do.
const hourLayout = "2006-01-02T15"

// operatorTenant is the tenant part of the keys of the machines no tenant holds.
const operatorTenant = "-"

func hourName(h time.Time) string { return h.UTC().Format(hourLayout) }

func tenantPart(tenant *string) string {
	if tenant == nil || *tenant == "" {
		return operatorTenant
	}
	return *tenant
}

func hourKey(tenant string, h time.Time) []byte {
	return persistence.Key("usage-hour", tenant, hourName(h))
}

// partsPrefix is the prefix of the parts of a tenant's hour, every run's.
func partsPrefix(tenant string, h time.Time) []byte {
	return persistence.Prefix("usage-hour", tenant, hourName(h))
}

// partKey is the key of part n (from 1) of a tenant's hour written by run.
func partKey(tenant string, h time.Time, run string, n int) []byte {
	return persistence.Key("usage-hour", tenant, hourName(h), run, fmt.Sprintf("%06d", n))
}

func closedKey(h time.Time) []byte { return persistence.Key("usage-closed", hourName(h)) }

// indexPrefix is the prefix of hour h's index: what every run wrote for it.
func indexPrefix(h time.Time) []byte { return persistence.Prefix("usage-index", hourName(h)) }

// indexKey says that tenant's hour h was written (in the batch that writes it).
func indexKey(h time.Time, tenant string) []byte {
	return persistence.Key("usage-index", hourName(h), tenant)
}

// runIndexKey names the parts run writes of tenant's hour h (written before them).
func runIndexKey(h time.Time, tenant, run string) []byte {
	return persistence.Key("usage-index", hourName(h), tenant, run)
}
