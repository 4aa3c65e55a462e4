package app

import (
	"regexp"
	"strings"
	"testing"
)

// TestUnknownIDIsNotFoundWhateverTheBody: every route that names a record in its path
// and changes something answers 404 for an id that does not exist, whatever its body
// would have met otherwise (a taken name, a rule it breaks, a quota): existence and
// scope come first, then the body's rules. The table must cover every such route of
// the route table. (A body the document's schema refuses is a 400 before the handler
// runs: that is the request's form, not a rule; the bodies here are well-formed.)
func TestUnknownIDIsNotFoundWhateverTheBody(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	a := s.tenant(admin, "Order", nil)
	s.tenant(admin, "Taken", nil)
	const none = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
	badCron := map[string]any{"cron": "not a cron"}
	cases := []struct {
		method, path string
		body         any
		tenant       bool // as the tenant's user (client routes), else as the operator
	}{
		{"PATCH", "/api/resources/tenants/{id}", map[string]any{"name": "Taken"}, false},
		{"DELETE", "/api/resources/tenants/{id}", nil, false},
		{"POST", "/api/resources/tenants/{id}/suspend", map[string]any{"reason": "unpaid", "action": "stop"}, false},
		{"POST", "/api/resources/tenants/{id}/unsuspend", map[string]any{"start": true}, false},
		{"DELETE", "/api/auth/sessions/{id}", nil, true},
		{"DELETE", "/api/resources/users/{id}/totp", nil, false},
		{"DELETE", "/api/resources/api-keys/{id}", nil, false},
		{"PATCH", "/api/resources/users/{id}", map[string]any{"role": "user"}, false},
		{"DELETE", "/api/resources/users/{id}", nil, false},
		{"PATCH", "/api/resources/machines/{id}", map[string]any{"tenant_id": none, "name": "x"}, true},
		{"PATCH", "/api/resources/machines/{id}", map[string]any{"tenant_id": none}, false},
		{"DELETE", "/api/resources/machines/{id}", nil, false},
		{"PATCH", "/api/resources/firewall-rules/{id}", map[string]any{"source": "bogus"}, false},
		{"PATCH", "/api/resources/firewall-rules/{id}", map[string]any{"source": "bogus"}, true},
		{"DELETE", "/api/resources/firewall-rules/{id}", nil, false},
		{"PATCH", "/api/client/firewall/rules/{id}", map[string]any{"source": "bogus", "port": ""}, true},
		{"DELETE", "/api/client/firewall/rules/{id}", nil, true},
		{"PATCH", "/api/resources/health-checks/{id}", map[string]any{"type": "tcp", "target": "no port"}, false},
		{"DELETE", "/api/resources/health-checks/{id}", nil, false},
		{"PATCH", "/api/monitoring/health-checks/{id}", map[string]any{"type": "tcp", "target": "no port"}, false},
		{"DELETE", "/api/monitoring/health-checks/{id}", nil, false},
		{"PATCH", "/api/resources/power-schedules/{id}", badCron, false},
		{"DELETE", "/api/resources/power-schedules/{id}", nil, false},
		{"PATCH", "/api/resources/backup-schedules/{id}", badCron, false},
		{"DELETE", "/api/resources/backup-schedules/{id}", nil, false},
		{"DELETE", "/api/resources/backups/{id}", nil, false},
		{"POST", "/api/virt/backups/{id}/restore", map[string]any{"node": "no-such-node", "tenant_id": "no-such-tenant", "start_after": true}, false},
		{"PATCH", "/api/resources/alert-events/{id}", map[string]any{"status": "acknowledged"}, false},
		{"PATCH", "/api/monitoring/alerts/events/{id}", map[string]any{"status": "acknowledged"}, false},
		{"PATCH", "/api/client/machines/{vmId}/resources", map[string]any{"cpu_cores": 128}, true},
		{"POST", "/api/client/machines/{vmId}/plan", map[string]any{"plan_id": "no-such-plan"}, true},
		{"POST", "/api/virt/vms/{id}/plan", map[string]any{"plan_id": "no-such-plan"}, false},
		{"PATCH", "/api/resources/plans/{id}", map[string]any{"disk_gb": 0}, false},
		{"DELETE", "/api/resources/plans/{id}", nil, false},
		{"PATCH", "/api/resources/webhooks/{id}", map[string]any{"url": "http://127.0.0.1/"}, false},
		{"PATCH", "/api/resources/webhooks/{id}", map[string]any{"url": "http://127.0.0.1/"}, true},
		{"DELETE", "/api/resources/webhooks/{id}", nil, false},
		{"POST", "/api/resources/webhooks/{id}/deliveries/{delivery}/redeliver", nil, false},
		{"PATCH", "/api/resources/ip-pools/{id}", map[string]any{"gateway": "not an address"}, false},
		{"DELETE", "/api/resources/ip-pools/{id}", nil, false},
		{"PATCH", "/api/resources/locations/{id}", map[string]any{"name": ""}, false},
		{"DELETE", "/api/resources/locations/{id}", nil, false},
		{"POST", "/api/client/machines/{vmId}/actions/{action}", nil, true},
		{"DELETE", "/api/client/machines/{vmId}", nil, true},
		{"POST", "/api/client/machines/{vmId}/reinstall", map[string]any{"template_id": "no-such-template"}, true},
		{"POST", "/api/client/machines/{vmId}/backups", map[string]any{"mode": "stop"}, true},
		{"POST", "/api/client/machines/{vmId}/backups/{id}/restore", map[string]any{"start_after": true}, true},
		{"POST", "/api/client/machines/{vmId}/snapshots", map[string]any{"name": "first", "include_memory": true}, true},
		{"POST", "/api/client/machines/{vmId}/snapshots/{name}/rollback", nil, true},
		{"DELETE", "/api/client/machines/{vmId}/snapshots/{name}", nil, true},
		{"POST", "/api/client/machines/{vmId}/power-schedules", map[string]any{"action": "stop", "cron": "not a cron"}, true},
		{"POST", "/api/client/machines/{vmId}/backup-schedules", map[string]any{"cron": "not a cron", "retention": 1}, true},
		{"POST", "/api/resources/users/{id}/login-links", nil, false},
		{"POST", "/api/client/machines/{vmId}/media", map[string]any{"iso_id": none}, true},
		{"DELETE", "/api/client/machines/{vmId}/media", nil, true},
		{"PUT", "/api/client/machines/{vmId}/boot-order", map[string]any{"order": []string{"disk", "disk"}}, true},
		{"POST", "/api/client/machines/{vmId}/rescue", map[string]any{"enabled": true}, true},
		{"POST", "/api/virt/vms/{id}/media", map[string]any{"iso_id": none}, false},
		{"DELETE", "/api/virt/vms/{id}/media", nil, false},
		{"PUT", "/api/virt/vms/{id}/boot-order", map[string]any{"order": []string{"floppy"}}, false},
		{"POST", "/api/virt/vms/{id}/rescue", map[string]any{"enabled": true}, false},
		{"DELETE", "/api/resources/isos/{id}", nil, false},
		{"PUT", "/api/resources/isos/{id}/content", octets("an image"), false},
		{"POST", "/api/virt/vms/{id}/actions/{action}", nil, false},
		{"PATCH", "/api/virt/vms/{id}/config", map[string]any{"cpu_cores": 128}, false},
		{"POST", "/api/virt/vms/{id}/disks", map[string]any{"size_gb": 65536, "storage": "no-such-storage"}, false},
		{"POST", "/api/virt/vms/{id}/migrate", map[string]any{"target_node": "no-such-node"}, false},
		{"PATCH", "/api/virt/vms/{id}/network", map[string]any{"interfaces": []map[string]any{{"id": "net9", "vlan": 5}}}, false},
		{"POST", "/api/virt/vms/{id}/reinstall", map[string]any{"template_id": "no-such-template"}, false},
		{"POST", "/api/virt/vms/{id}/suspend-billing", map[string]any{"reason": "unpaid", "action": "suspend"}, false},
		{"POST", "/api/virt/vms/{id}/unsuspend-billing", map[string]any{"start": true}, false},
		{"POST", "/api/virt/vms/{id}/terminate", nil, false},
		{"DELETE", "/api/virt/vms/{id}/terminate", nil, false},
		{"PUT", "/api/virt/vms/{id}/addresses/{address}/ptr", map[string]any{"ptr": "not a name"}, false},
		{"PUT", "/api/client/machines/{vmId}/addresses/{address}/ptr", map[string]any{"ptr": 5}, true},
		{"POST", "/api/virt/vms/{id}/addresses", map[string]any{"version": 5}, false},
		{"DELETE", "/api/virt/vms/{id}/addresses/{address}", nil, false},
		{"POST", "/api/client/machines/{vmId}/addresses", map[string]any{"version": "four"}, true},
		{"DELETE", "/api/client/machines/{vmId}/addresses/{address}", nil, true},
	}
	covered := map[string]bool{}
	param := regexp.MustCompile(`\{[^}]+\}`)
	for _, c := range cases {
		covered[c.method+" "+c.path] = true
		path := strings.Replace(c.path, "{action}", "start", 1)
		path = param.ReplaceAllString(path, none)
		tok := admin
		if c.tenant {
			tok = a.Token
		}
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			expect(t, s.do(req{method: c.method, path: path, token: tok, body: c.body}), 404, "not_found")
		})
	}
	for _, rt := range s.app.Edge().Routes() {
		// /api/sim/... and /api/proxmox/... are aliases of /api/virt/..., with its handlers.
		if !strings.Contains(rt.Path, "{") || rt.Method == "GET" || strings.HasPrefix(rt.Path, "/api/sim/") || strings.HasPrefix(rt.Path, "/api/proxmox/") {
			continue
		}
		if !covered[rt.Method+" "+rt.Path] {
			t.Errorf("%s %s names a record and is not in the table: add it", rt.Method, rt.Path)
		}
	}
}
