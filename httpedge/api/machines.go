package api

import (
	"maps"
	"slices"
	"strings"

	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// MachineQuery declares the filters of the machine lists (the operators', the client
// area's and the resources').
var MachineQuery = map[string]string{
	"tenant_id": "operators: only this tenant's machines (a tenant user always sees only its own)",
	"name":      "only machines of exactly this name",
	"status":    "only machines in this status",
	"node":      "only machines on this node (its id, as the nodes list names it)",
}

// MachineQueryTypes types the status filter with the machine statuses.
var MachineQueryTypes = map[string]QueryType{"status": {Enum: []string{machines.StatusProvisioning, machines.StatusRunning,
	machines.StatusStopped, machines.StatusSuspended, machines.StatusMigrating, machines.StatusError}}}

// PowerActionPath types the {action} of the power routes: the actions and their aliases.
var PowerActionPath = func() map[string]QueryType {
	var names []string
	for _, a := range hypervisor.PowerActions {
		names = append(names, string(a))
	}
	names = append(names, slices.Sorted(maps.Keys(machines.PowerActionAliases))...)
	return map[string]QueryType{"action": {Enum: names}}
}()

// ListMachines is a page of machines, of one tenant when tenant is set, filtered by
// ?name=, ?status= and ?node=. An unfiltered tenant list is the cached tenant page; one
// filtered by state or node reads the node/state index (Machines.ListWhere); by name
// alone, it scans, as such filters are for people looking for something.
func ListMachines(c *Call, ms Machines, tenant *string, cursor string, limit int) ([]machines.Machine, string, error) {
	name, status, node := c.Query("name"), c.Query("status"), c.Query("node")
	if name == "" && status == "" && node == "" {
		if tenant != nil {
			return ms.ListTenant(c.Context(), *tenant, cursor, limit)
		}
		return ms.List(c.Context(), cursor, limit, nil)
	}
	return ms.ListWhere(c.Context(), cursor, limit, machines.Where{Tenant: tenant, Name: name, Status: status, Node: node})
}

// Timeframe is the ?timeframe= of a usage graph route: hour when absent; another
// value is 400 listing the allowed ones.
func Timeframe(c *Call) (hypervisor.Timeframe, error) {
	v := c.Query("timeframe")
	if v == "" {
		return hypervisor.TimeframeHour, nil
	}
	tf := hypervisor.Timeframe(v)
	if _, _, ok := tf.Resolution(); !ok {
		names := make([]string, len(hypervisor.Timeframes))
		for i, t := range hypervisor.Timeframes {
			names[i] = string(t)
		}
		e := apierr.Invalid(apierr.Field("timeframe", "must be one of %s", strings.Join(names, ", ")))
		e.Allowed = names
		return "", e
	}
	return tf, nil
}
