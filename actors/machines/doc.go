// Package machines owns machines and what hangs off them: the machine entity (its
// actor is its lock: one operation at a time), their tasks and the hypervisor work they
// run, nodes, what the sync (actors/inventory) asks of machines and nodes, snapshots,
// restores and backups on demand with the tenant's quotas of them, a machine's backups
// and the ones its failed tasks left (the records are actors/backups'), the machine-list
// cache (actors/machines/listcache). Tasks.Wait is told a task's end once it is
// durable. A tenant is checked through the injected TenantExists: the tenants live
// above it. Console tickets are actors/consoles', which asks here where a machine is.
package machines
