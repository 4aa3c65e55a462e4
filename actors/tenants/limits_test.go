package tenants

import (
	"errors"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
)

// TestTenantBoundsAtTheirEdges checks a tenant's name and quota limits at their bounds
// and one past them: the service refuses what the document says is out of bounds,
// whoever the caller.
func TestTenantBoundsAtTheirEdges(t *testing.T) {
	f := func(name string, q Quota, field string) {
		t.Helper()
		err := validateTenant(name, q)
		if field == "" {
			if err != nil {
				t.Errorf("name of %d, quota %+v: got %v; want accepted", len(name), q, err)
			}
			return
		}
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != 400 || len(e.Fields) != 1 || e.Fields[0].Field != field {
			t.Errorf("name of %d, quota %+v: got %v; want a 400 naming %s", len(name), q, err, field)
		}
	}
	ok := DefaultQuota
	f(strings.Repeat("n", MinNameLen), ok, "")
	f(strings.Repeat("n", MaxNameLen), ok, "")
	f(strings.Repeat("n", MinNameLen-1), ok, "name")
	f(strings.Repeat("n", MaxNameLen+1), ok, "name")
	for _, limit := range []int{Unlimited, 0, MaxQuotaLimit} {
		f("t", Quota{Machines: limit, CPUCores: limit, MemoryMB: limit, DiskGB: limit}, "")
	}
	f("t", Quota{Machines: Unlimited - 1}, "quota.machines")
	f("t", Quota{DiskGB: MaxQuotaLimit + 1}, "quota.disk_gb")
	f("t", Quota{Backups: Unlimited - 1}, "quota.backups")
	f("t", Quota{Snapshots: MaxQuotaLimit + 1}, "quota.snapshots")
}
