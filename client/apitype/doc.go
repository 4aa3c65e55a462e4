// Package apitype holds the Go client's copies of the API's types: the records its
// answers carry (Machine, Task, Tenant, ...), the bodies its calls send (MachineSpec,
// TenantChange, ...), and Optional, the three-state field of a PATCH body. They mirror
// the JSON of the API (GET /api/openapi.json is the reference) and are the client's
// own, so that it needs none of the server's packages: like package client, apitype
// uses the standard library only.
//
// Package client aliases every type here under the same name (client.Machine is
// apitype.Machine), so its callers need not import apitype; the files are those of
// client, one a kind. What only the client's calls use (their filters and list
// options, the unexported request bodies) stays in client.
package apitype
