// Package client is the Go client of the vmplane API: typed calls for every route
// (tenants, users, templates, machines and their operations, tasks, firewall rules,
// power and backup schedules, backups, health checks, alerts, monitoring, insights
// and usage graphs, nodes, events), over one keep-alive connection pool.
//
// It takes care of what every API client otherwise re-learns:
//
//   - Login: WithCredentials logs in on first use, renews the token before it expires
//     and once more on a 401, one renewal at a time however many goroutines call.
//   - Idempotency: every POST carries an Idempotency-Key (random, or the one given with
//     WithIdempotencyKey), and its retries carry the same, so a retried request is
//     never applied twice.
//   - Retries: network errors, 503 and 429 are retried with backoff, honouring
//     Retry-After and RateLimit-Reset, within the budget of WithRetryBudget, and so is
//     a 409 with Retry-After for the call's own key (its first try still runs); other
//     4xx answers are never retried. WithBaseURLs adds cluster members to fail over to.
//   - Errors: every error answer is an *Error; compare it with errors.Is against the
//     sentinels (ErrNotFound, ErrQuotaExceeded, ...).
//   - Lists: Machines, Tenants, ... are iterators that follow next_cursor page after
//     page; MachinesPage, TenantsPage, ... read one page and give its cursor.
//   - Slow work answers a *Task; WaitTask waits for its end (told by the event stream,
//     or by reading the task again) and turns a failed task into an error.
//   - Events yields the server-sent event stream and resumes it with Last-Event-ID
//     after a dropped connection.
//   - PATCH bodies are JSON merge patches. In the change types with Optional fields
//     (FirewallRulePatch, HealthCheckChange, MachineChange, PowerScheduleChange, ...)
//     a field is left out (the zero Optional: it keeps its value), Set to a value, or
//     Null: sent as JSON null, which clears it where the API allows (a rule's port, a
//     check's machine, a machine's tenant).
//   - Operators act for a tenant with ForTenant; a tenant's user needs no such call,
//     and another tenant's records answer ErrNotFound to it, as missing ones do.
//
// The routes of the API and the calls that use them:
//
//	/api/auth/...                          Login, Logout, Me (refresh: by itself)
//	/api/resources/tenants, users          CreateTenant, Tenants, ..., CreateUser, Users, ...
//	/api/client/machines                   CreateMachine, Machines, MachineAction, ResizeMachine
//	/api/resources/machines/{id}           GetMachine, UpdateMachine, DeleteMachine
//	/api/virt/vms/{id}/...                 MigrateMachine, ConfigureMachine, SetInterfaces,
//	                                       AddDisk, ReinstallMachine, ConsoleTicket,
//	                                       VirtMachineAction, MachineUsage
//	/api/tasks, /api/resources/tasks       GetTask, WaitTask, Tasks
//	/api/client/firewall/rules             FirewallRules, CreateFirewallRule, UpdateFirewallRule,
//	                                       PatchFirewallRule, DeleteFirewallRule (GetFirewallRule)
//	.../power-schedules, backup-schedules  CreateMachinePowerSchedule, PowerSchedules, ...
//	/api/resources/backups                 Backups, GetBackup, DeleteBackup
//	/api/resources/isos                    ISOs, GetISO, AddISO, DeleteISO
//	.../media, boot-order, rescue          MountISO, EjectISO, SetBootOrder, SetRescue (and
//	                                       their Virt twins on /api/virt/vms/{id})
//	/api/resources/health-checks           CreateHealthCheck, HealthChecks, UpdateHealthCheck, ...
//	/api/resources/alert-events            Alerts, GetAlert, AcknowledgeAlert
//	/api/monitoring/...                    MonitoringOverview, FaultyDeployments, ClusterForecast
//	/api/client/overview, usage-trends     Overview, UsageTrends
//	/api/client/locations                  ClientLocations, ClientLocationsPage
//	/api/resources/nodes, /api/virt/...    Nodes, GetNode, NodeUsage, ClusterUsage, Sync, SyncInventory
//	/api/events                            Events
//	/api/health, /api/openapi.json         Health, OpenAPI
//
// The record and body types are those of package apitype, aliased here under the same
// names (client.Machine is apitype.Machine), and VerifyWebhook is package webhook's
// check, for receivers that need nothing else. The package depends on the standard
// library and those two only: it imports none of the server's packages.
package client
