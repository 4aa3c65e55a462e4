// Package tenants owns tenants: their records and quotas (a tenant's entity creates its
// machines' records, so concurrent creates never exceed the quota), their firewall
// rules and the pipeline that pushes them to the hypervisor, and the client area's
// overview. It builds on the machines.
package tenants
