package app

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/persistence"
)

// walkProbe is one way of putting an id of kind into a request of one route: %s in path
// and body (a JSON text) is replaced by the id. A probe of kind "" puts no id in; its
// answer is only searched for the other tenant's data.
type walkProbe struct {
	kind, path, body string
	header           map[string]string
}

// TestAuthorizationWalk calls every route of the route table as tenant B with tenant
// A's ids (and the ids of machines no tenant has), by record id and, for machines, by
// vmid, in the path, the query and the body. Each answer must be exactly the answer to
// the same request naming an id that does not exist (only the echoed id and the
// request id may differ), and no byte of A's ids, names or vmids may appear in it
// except the id B sent. Routes come from the route table: a new route fails the test
// until it has probes here; admin-only routes are probed generically.
func TestAuthorizationWalk(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	w := newIsolationWorld(s, admin)
	a, b := w.a, w.b

	// B's own records, to move into A's scope by a patch.
	r := s.do(req{method: "POST", path: "/api/client/firewall/rules", token: b.Token, body: map[string]any{
		"direction": "in", "action": "accept", "protocol": "tcp", "port": "80", "machine_id": w.bm.ID}})
	expect(t, r, 201, "")
	var brule tenants.FirewallRule
	r.decode(t, &brule)
	bhc := s.createCheck(b.Token, "/api/resources/health-checks", map[string]any{"name": "bravo ssh", "type": "tcp",
		"target": w.bm.Interfaces[0].IPAddresses[0] + ":22", "interval_s": 60, "timeout_ms": 500})

	var auser auth.User
	for _, u := range listOf[auth.User](s, admin, "/api/resources/users?limit=500&tenant_id="+a.ID) {
		auser = u
	}
	if auser.ID == "" {
		t.Fatal("tenant A has no user")
	}

	// What B must never see, and the values of each kind that B sends.
	secrets := append([]string{a.ID, auser.ID, w.am.ID, w.arule.ID, w.atask.ID, w.apower.ID, w.abackup.ID, w.abk.ID,
		w.ahc.ID, w.aalert.ID, w.aiso.ID, fmt.Sprintf(`"vmid":%d`, w.am.VMID)}, isolationNames...)
	values := map[string][]string{
		"machine": {w.am.ID, strconv.Itoa(w.am.VMID)},
		"rule":    {w.arule.ID}, "task": {w.atask.ID}, "power": {w.apower.ID}, "backup-schedule": {w.abackup.ID},
		"backup": {w.abk.ID}, "check": {w.ahc.ID}, "alert": {w.aalert.ID}, "tenant": {a.ID}, "user": {auser.ID},
		"email": {"quokka@example.test"}, "iso": {w.aiso.ID},
	}
	values["webhook"], values["delivery"] = []string{w.ahook.ID}, []string{w.adelivery.ID}
	secrets = append(secrets, w.ahook.ID, w.ahook.Secret)
	bhook := s.createHook(b.Token, map[string]any{"url": "https://192.0.2.1/bravo", "events": []string{"tenant.suspended"}})
	ak := s.newKey(a.Token, map[string]any{"name": "tenant A's key", "scopes": []string{"read"}})
	values["key"] = []string{ak.ID}
	secrets = append(secrets, ak.ID, ak.Secret)
	for _, ss := range listOf[auth.SessionInfo](s, a.Token, "/api/auth/sessions") {
		values["session"] = append(values["session"], ss.ID)
		secrets = append(secrets, ss.ID)
	}
	unassigned := 0
	for _, m := range s.machines(admin) {
		if m.TenantID == nil {
			unassigned++
			values["machine"] = append(values["machine"], m.ID, strconv.Itoa(m.VMID))
			secrets = append(secrets, m.ID, m.Name, fmt.Sprintf(`"vmid":%d`, m.VMID))
		}
	}
	if unassigned == 0 {
		t.Fatal("no unassigned machine to probe with")
	}
	// A failed task on a machine no tenant has, and its task_failed alert: records of
	// no tenant.
	for _, m := range s.machines(admin) {
		if m.TenantID == nil && m.Status == machines.StatusRunning {
			s.sim.FailNext(m.VMID, "reboot", nil)
			task := s.waitTask(admin, s.startTask(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/reboot", token: admin}).ID)
			testwait.Eventually(t, "the unassigned machine's task_failed alert", func() bool { return len(s.alertsOf(admin, "/api/resources/alert-events", m.ID)) == 1 })
			alert := s.alertsOf(admin, "/api/resources/alert-events", m.ID)[0]
			values["task"] = append(values["task"], task.ID)
			values["alert"] = append(values["alert"], alert.ID)
			secrets = append(secrets, task.ID, alert.ID)
			break
		}
	}
	if len(values["task"]) < 2 {
		t.Fatal("no running unassigned machine to fail a task on")
	}
	// missing returns an id of the same form as v that names nothing.
	missing := func(v string) string {
		if _, err := strconv.Atoi(v); err == nil {
			return "987654"
		}
		if strings.Contains(v, "@") {
			return "nobody-here@example.test"
		}
		return persistence.NewID()
	}

	upgrade := map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
		"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
	machineBody := `{"direction":"in","action":"drop","protocol":"any","machine_id":"%s"}`
	// A plan, which is no tenant's: B may move its own machines to it, never A's.
	r = s.do(req{method: "POST", path: "/api/resources/plans", token: admin, body: map[string]any{
		"name": "walk", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 20}})
	expect(t, r, 201, "")
	var plan struct{ ID string }
	r.decode(t, &plan)
	// The audit log as it was before the walk: B's own probes below (refused ones
	// included) are B's entries, naming A's ids B sent.
	before := "&until=" + time.Now().UTC().Format(time.RFC3339Nano)
	probes := map[string][]walkProbe{
		"GET /api/health":                        {{path: "/api/health"}},
		"GET /api/openapi.json":                  {{path: "/api/openapi.json"}},
		"GET /metrics":                           {{path: "/metrics"}},
		"POST /api/auth/login":                   {{kind: "email", path: "/api/auth/login", body: `{"email":"%s","password":"not-the-password"}`}},
		"POST /api/auth/refresh":                 {{path: "/api/auth/refresh", body: `{"refresh_token":"not-a-token"}`}},
		"GET /api/auth/me":                       {{path: "/api/auth/me"}},
		"POST /api/auth/logout":                  {{path: "/api/auth/logout", body: `{"refresh_token":"not-a-token"}`}},
		"POST /api/auth/password":                {{path: "/api/auth/password", body: `{"current_password":"not-the-password","new_password":"brand-new-password"}`}},
		"GET /api/auth/sessions":                 {{path: "/api/auth/sessions"}},
		"POST /api/auth/password-reset":          {{kind: "email", path: "/api/auth/password-reset", body: `{"email":"%s"}`}},
		"POST /api/auth/password-reset/confirm":  {{path: "/api/auth/password-reset/confirm", body: `{"token":"not-a-token","new_password":"brand-new-password"}`}},
		"GET /reset-password":                    {{path: "/reset-password?token=not-a-token"}},
		"POST /api/auth/login/totp":              {{path: "/api/auth/login/totp", body: `{"challenge":"not-a-challenge","code":"123456"}`}},
		"POST /api/auth/login-link":              {{path: "/api/auth/login-link", body: `{"token":"not-a-token"}`}},
		"GET /login-link":                        {{path: "/login-link?token=not-a-token"}},
		"POST /api/auth/browser/login":           {{kind: "email", path: "/api/auth/browser/login", body: `{"email":"%s","password":"not-the-password"}`}},
		"POST /api/auth/browser/login/totp":      {{path: "/api/auth/browser/login/totp", body: `{"challenge":"not-a-challenge","code":"123456"}`}},
		"POST /api/auth/browser/refresh":         {{path: "/api/auth/browser/refresh"}},
		"POST /api/auth/browser/logout":          {{path: "/api/auth/browser/logout"}},
		"GET /api/auth/oidc/providers":           {{path: "/api/auth/oidc/providers"}},
		"GET /api/auth/oidc/{provider}/start":    {{path: "/api/auth/oidc/corp/start"}},
		"GET /api/auth/oidc/{provider}/callback": {{path: "/api/auth/oidc/corp/callback?code=not-a-code&state=not-a-state"}},
		"POST /api/auth/totp":                    {{path: "/api/auth/totp"}},
		"POST /api/auth/totp/confirm":            {{path: "/api/auth/totp/confirm", body: `{"code":"123456"}`}},
		"POST /api/auth/totp/disable":            {{path: "/api/auth/totp/disable", body: `{"code":"123456"}`}},
		"DELETE /api/auth/sessions/{id}":         {{kind: "session", path: "/api/auth/sessions/%s"}},
		"GET /api/resources/api-keys":            {{path: "/api/resources/api-keys"}},
		"POST /api/resources/api-keys":           {{path: "/api/resources/api-keys", body: `{"name":"mine","scopes":["read"]}`}, {kind: "tenant", path: "/api/resources/api-keys", body: `{"name":"theirs","scopes":["read"],"tenant_id":"%s"}`}},
		"GET /api/resources/api-keys/{id}":       {{kind: "key", path: "/api/resources/api-keys/%s"}},
		"DELETE /api/resources/api-keys/{id}":    {{kind: "key", path: "/api/resources/api-keys/%s"}},
		"GET /api/tasks/{id}":                    {{kind: "task", path: "/api/tasks/%s"}},
		"GET /api/client/overview":               {{path: "/api/client/overview"}, {kind: "tenant", path: "/api/client/overview?tenant_id=%s"}},
		"GET /api/audit": {{path: "/api/audit?limit=500" + before}, {kind: "machine", path: "/api/audit?target=%s" + before},
			{kind: "tenant", path: "/api/audit?target=tenants/%s" + before}, {kind: "user", path: "/api/audit?actor=%s"}},
		"GET /api/client/usage": {{path: "/api/client/usage?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z"},
			{kind: "tenant", path: "/api/client/usage?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&tenant_id=%s"}},
		"GET /api/client/usage-trends": {{path: "/api/client/usage-trends?days=2"},
			{kind: "tenant", path: "/api/client/usage-trends?days=2&tenant_id=%s"}},
		"GET /api/client/locations": {{path: "/api/client/locations"}, {kind: "tenant", path: "/api/client/locations?tenant_id=%s"}},
		"GET /api/client/machines":  {{path: "/api/client/machines"}, {kind: "tenant", path: "/api/client/machines?tenant_id=%s"}},
		"POST /api/client/machines": {{kind: "tenant", path: "/api/client/machines?tenant_id=%s", body: `{"name":"x","template_id":"tpl-debian-12","cpu_cores":1,"memory_mb":1024,"disk_gb":10}`}},
		"PATCH /api/client/machines/{vmId}/resources": {{kind: "machine", path: "/api/client/machines/%s/resources", body: `{"cpu_cores":2}`},
			{kind: "tenant", path: "/api/client/machines/" + w.bm.ID + "/resources?tenant_id=%s", body: `{"cpu_cores":2}`}},
		"POST /api/client/machines/{vmId}/actions/{action}": {{kind: "machine", path: "/api/client/machines/%s/actions/stop"},
			{kind: "machine", path: "/api/client/machines/%s/actions/nonsense"}},
		"GET /api/client/firewall/rules": {{path: "/api/client/firewall/rules"}, {kind: "machine", path: "/api/client/firewall/rules?machine_id=%s"},
			{kind: "tenant", path: "/api/client/firewall/rules?tenant_id=%s"}},
		"POST /api/client/firewall/rules": {{kind: "machine", path: "/api/client/firewall/rules", body: machineBody},
			{kind: "tenant", path: "/api/client/firewall/rules", body: `{"direction":"in","action":"drop","protocol":"any","tenant_id":"%s"}`}},
		"PATCH /api/client/firewall/rules/{id}": {{kind: "rule", path: "/api/client/firewall/rules/%s", body: `{"enabled":false}`},
			{kind: "machine", path: "/api/client/firewall/rules/" + brule.ID, body: `{"machine_id":"%s"}`}},
		"DELETE /api/client/firewall/rules/{id}": {{kind: "rule", path: "/api/client/firewall/rules/%s"}},
		"POST /api/client/machines/{vmId}/power-schedules": {{kind: "machine", path: "/api/client/machines/%s/power-schedules",
			body: `{"action":"stop","cron":"0 3 * * *"}`}},
		"GET /api/client/machines/{vmId}/power-schedules": {{kind: "machine", path: "/api/client/machines/%s/power-schedules"}},
		"POST /api/client/machines/{vmId}/backup-schedules": {{kind: "machine", path: "/api/client/machines/%s/backup-schedules",
			body: `{"cron":"0 3 * * *","retention":1}`}},
		"GET /api/client/machines/{vmId}/backup-schedules":        {{kind: "machine", path: "/api/client/machines/%s/backup-schedules"}},
		"GET /api/client/machines/{vmId}":                         {{kind: "machine", path: "/api/client/machines/%s"}},
		"DELETE /api/client/machines/{vmId}":                      {{kind: "machine", path: "/api/client/machines/%s"}},
		"POST /api/client/machines/{vmId}/reinstall":              {{kind: "machine", path: "/api/client/machines/%s/reinstall", body: `{"template_id":"tpl-debian-12"}`}},
		"GET /api/client/machines/{vmId}/console":                 {{kind: "machine", path: "/api/client/machines/%s/console"}},
		"GET /api/client/machines/{vmId}/console/ws":              {{kind: "machine", path: "/api/client/machines/%s/console/ws?ticket=not-a-ticket", header: upgrade}},
		"GET /api/client/machines/{vmId}/usage-graphs":            {{kind: "machine", path: "/api/client/machines/%s/usage-graphs?timeframe=day"}},
		"GET /api/client/machines/{vmId}/usage":                   {{kind: "machine", path: "/api/client/machines/%s/usage?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z"}},
		"GET /api/client/machines/{vmId}/traffic":                 {{kind: "machine", path: "/api/client/machines/%s/traffic"}},
		"PUT /api/client/machines/{vmId}/addresses/{address}/ptr": {{kind: "machine", path: "/api/client/machines/%s/addresses/192.0.2.2/ptr", body: `{"ptr":"x.example.com"}`}},
		"POST /api/client/machines/{vmId}/addresses":              {{kind: "machine", path: "/api/client/machines/%s/addresses", body: `{"version":4}`}},
		"DELETE /api/client/machines/{vmId}/addresses/{address}":  {{kind: "machine", path: "/api/client/machines/%s/addresses/192.0.2.3"}},
		"GET /api/client/machines/{vmId}/backups":                 {{kind: "machine", path: "/api/client/machines/%s/backups"}},
		"GET /api/client/machines/{vmId}/tasks":                   {{kind: "machine", path: "/api/client/machines/%s/tasks"}},
		"POST /api/client/machines/{vmId}/backups":                {{kind: "machine", path: "/api/client/machines/%s/backups", body: `{"note":"mine"}`}},
		"POST /api/client/machines/{vmId}/backups/{id}/restore": {{kind: "machine", path: "/api/client/machines/%s/backups/" + w.abk.ID + "/restore"},
			{kind: "backup", path: "/api/client/machines/" + w.bm.ID + "/backups/%s/restore"}},
		"GET /api/client/machines/{vmId}/snapshots":                  {{kind: "machine", path: "/api/client/machines/%s/snapshots"}},
		"POST /api/client/machines/{vmId}/snapshots":                 {{kind: "machine", path: "/api/client/machines/%s/snapshots", body: `{"name":"mine"}`}},
		"POST /api/client/machines/{vmId}/snapshots/{name}/rollback": {{kind: "machine", path: "/api/client/machines/%s/snapshots/mine/rollback"}},
		"DELETE /api/client/machines/{vmId}/snapshots/{name}":        {{kind: "machine", path: "/api/client/machines/%s/snapshots/mine"}},
		"POST /api/client/machines/{vmId}/media": {{kind: "machine", path: "/api/client/machines/%s/media", body: `{"iso_id":"` + w.aiso.ID + `"}`},
			{kind: "iso", path: "/api/client/machines/" + w.bm.ID + "/media", body: `{"iso_id":"%s"}`}},
		"DELETE /api/client/machines/{vmId}/media":   {{kind: "machine", path: "/api/client/machines/%s/media"}},
		"PUT /api/client/machines/{vmId}/boot-order": {{kind: "machine", path: "/api/client/machines/%s/boot-order", body: `{"order":["disk"]}`}},
		"POST /api/client/machines/{vmId}/rescue":    {{kind: "machine", path: "/api/client/machines/%s/rescue", body: `{"enabled":false}`}},
		"GET /api/resources/isos":                    {{path: "/api/resources/isos?limit=500"}},
		"GET /api/resources/isos/{id}":               {{kind: "iso", path: "/api/resources/isos/%s"}},
		"GET /api/virt/vms/{id}/console/ws":          {{kind: "machine", path: "/api/virt/vms/%s/console/ws?ticket=not-a-ticket", header: upgrade}},
		"GET /api/sim/vms/{id}/console/ws":           {{kind: "machine", path: "/api/sim/vms/%s/console/ws?ticket=not-a-ticket", header: upgrade}},
		// The event stream is read separately below.
		"GET /api/events": nil,

		"GET /api/resources/machines":      {{path: "/api/resources/machines?limit=500"}, {kind: "tenant", path: "/api/resources/machines?tenant_id=%s"}},
		"GET /api/resources/machines/{id}": {{kind: "machine", path: "/api/resources/machines/%s"}},
		"POST /api/resources/machines": {{kind: "tenant", path: "/api/resources/machines",
			body: `{"name":"x","template_id":"tpl-debian-12","cpu_cores":1,"memory_mb":1024,"disk_gb":10,"tenant_id":"%s"}`}},
		"PATCH /api/resources/machines/{id}": {{kind: "machine", path: "/api/resources/machines/%s", body: `{"name":"stolen"}`},
			{kind: "tenant", path: "/api/resources/machines/" + w.bm.ID, body: `{"tenant_id":"%s"}`}},
		"DELETE /api/resources/machines/{id}":    {{kind: "machine", path: "/api/resources/machines/%s"}},
		"GET /api/resources/firewall-rules":      {{path: "/api/resources/firewall-rules?limit=500"}},
		"GET /api/resources/firewall-rules/{id}": {{kind: "rule", path: "/api/resources/firewall-rules/%s"}},
		"POST /api/resources/firewall-rules": {{kind: "machine", path: "/api/resources/firewall-rules", body: machineBody},
			{kind: "tenant", path: "/api/resources/firewall-rules", body: `{"direction":"in","action":"drop","protocol":"any","tenant_id":"%s"}`}},
		"PATCH /api/resources/firewall-rules/{id}": {{kind: "rule", path: "/api/resources/firewall-rules/%s", body: `{"enabled":false}`},
			{kind: "machine", path: "/api/resources/firewall-rules/" + brule.ID, body: `{"machine_id":"%s"}`}},
		"DELETE /api/resources/firewall-rules/{id}": {{kind: "rule", path: "/api/resources/firewall-rules/%s"}},
		"GET /api/resources/tasks":                  {{path: "/api/resources/tasks?limit=500"}},
		"GET /api/resources/tasks/{id}":             {{kind: "task", path: "/api/resources/tasks/%s"}},
		"GET /api/resources/templates":              {{path: "/api/resources/templates"}},
		"GET /api/resources/plans":                  {{path: "/api/resources/plans"}},
		"GET /api/resources/plans/{id}":             {{kind: "machine", path: "/api/resources/plans/%s"}},
		"GET /api/resources/plans/{id}/capacity":    {{kind: "machine", path: "/api/resources/plans/%s/capacity"}},
		"POST /api/client/machines/{vmId}/plan": {{kind: "machine", path: "/api/client/machines/%s/plan", body: `{"plan_id":"` + plan.ID + `"}`},
			{kind: "machine", path: "/api/client/machines/" + w.bm.ID + "/plan", body: `{"plan_id":"%s"}`}},
		"GET /api/resources/templates/{id}": {{path: "/api/resources/templates/tpl-debian-12"}},
		"GET /api/resources/power-schedules": {{path: "/api/resources/power-schedules?limit=500"},
			{kind: "machine", path: "/api/resources/power-schedules?machine_id=%s"}},
		"GET /api/resources/power-schedules/{id}": {{kind: "power", path: "/api/resources/power-schedules/%s"}},
		"POST /api/resources/power-schedules": {{kind: "machine", path: "/api/resources/power-schedules",
			body: `{"machine_id":"%s","action":"stop","cron":"0 3 * * *"}`}},
		"PATCH /api/resources/power-schedules/{id}":  {{kind: "power", path: "/api/resources/power-schedules/%s", body: `{"enabled":false}`}},
		"DELETE /api/resources/power-schedules/{id}": {{kind: "power", path: "/api/resources/power-schedules/%s"}},
		"GET /api/resources/backup-schedules": {{path: "/api/resources/backup-schedules?limit=500"},
			{kind: "machine", path: "/api/resources/backup-schedules?machine_id=%s"}},
		"GET /api/resources/backup-schedules/{id}": {{kind: "backup-schedule", path: "/api/resources/backup-schedules/%s"}},
		"POST /api/resources/backup-schedules": {{kind: "machine", path: "/api/resources/backup-schedules",
			body: `{"machine_id":"%s","cron":"0 3 * * *","retention":1}`}},
		"PATCH /api/resources/backup-schedules/{id}":  {{kind: "backup-schedule", path: "/api/resources/backup-schedules/%s", body: `{"retention":1}`}},
		"DELETE /api/resources/backup-schedules/{id}": {{kind: "backup-schedule", path: "/api/resources/backup-schedules/%s"}},
		"GET /api/resources/backups": {{path: "/api/resources/backups?limit=500"},
			{kind: "machine", path: "/api/resources/backups?machine_id=%s"}},
		"GET /api/resources/backups/{id}":       {{kind: "backup", path: "/api/resources/backups/%s"}},
		"DELETE /api/resources/backups/{id}":    {{kind: "backup", path: "/api/resources/backups/%s"}},
		"GET /api/resources/health-checks":      {{path: "/api/resources/health-checks?limit=500"}},
		"GET /api/resources/health-checks/{id}": {{kind: "check", path: "/api/resources/health-checks/%s"}},
		"POST /api/resources/health-checks": {{kind: "machine", path: "/api/resources/health-checks",
			body: `{"name":"x","type":"tcp","target":"192.0.2.1:22","interval_s":60,"timeout_ms":500,"machine_id":"%s"}`}},
		"PATCH /api/resources/health-checks/{id}": {{kind: "check", path: "/api/resources/health-checks/%s", body: `{"name":"stolen"}`},
			{kind: "machine", path: "/api/resources/health-checks/" + bhc.ID, body: `{"machine_id":"%s"}`}},
		"DELETE /api/resources/health-checks/{id}": {{kind: "check", path: "/api/resources/health-checks/%s"}},
		"GET /api/resources/alert-events":          {{path: "/api/resources/alert-events?limit=500"}},
		"GET /api/resources/alert-events/{id}":     {{kind: "alert", path: "/api/resources/alert-events/%s"}},
		"PATCH /api/resources/alert-events/{id}":   {{kind: "alert", path: "/api/resources/alert-events/%s", body: `{"status":"acknowledged"}`}},
		"GET /api/resources/webhooks":              {{path: "/api/resources/webhooks?limit=500"}},
		"GET /api/resources/webhooks/{id}":         {{kind: "webhook", path: "/api/resources/webhooks/%s"}},
		"POST /api/resources/webhooks": {{kind: "tenant", path: "/api/resources/webhooks",
			body: `{"url":"https://192.0.2.1/x","events":["*"],"tenant_id":"%s"}`}},
		"PATCH /api/resources/webhooks/{id}":          {{kind: "webhook", path: "/api/resources/webhooks/%s", body: `{"enabled":false}`}},
		"DELETE /api/resources/webhooks/{id}":         {{kind: "webhook", path: "/api/resources/webhooks/%s"}},
		"GET /api/resources/webhooks/{id}/deliveries": {{kind: "webhook", path: "/api/resources/webhooks/%s/deliveries"}},
		"POST /api/resources/webhooks/{id}/deliveries/{delivery}/redeliver": {
			{kind: "webhook", path: "/api/resources/webhooks/%s/deliveries/" + w.adelivery.ID + "/redeliver"},
			{kind: "delivery", path: "/api/resources/webhooks/" + bhook.ID + "/deliveries/%s/redeliver"}},
	}

	requestID := regexp.MustCompile(`"request_id":"[^"]*"`)
	// answer is what a request answers, with the id it named and its request id masked.
	answer := func(method, path, body string, header map[string]string, id string) (int, string) {
		rq := req{method: method, path: path, token: b.Token, header: header}
		if body != "" {
			rq.body = body
		}
		res := s.do(rq)
		if res.Status >= 500 {
			t.Errorf("%s %s: got %d %s; want no 5xx", method, path, res.Status, res.Body)
		}
		out := requestID.ReplaceAllString(string(res.Body), `"request_id":"-"`)
		if id != "" {
			out = strings.ReplaceAll(out, id, "{sent}")
		}
		return res.Status, res.Header.Get("Content-Type") + "\n" + out
	}
	leaks := func(what, got string) {
		for _, sec := range secrets {
			if strings.Contains(got, sec) {
				t.Errorf("%s: the answer contains tenant A's or an unassigned machine's %q:\n%s", what, sec, got)
			}
		}
	}
	walk := func(method string, p walkProbe) {
		fill := func(v string) (string, string) {
			return strings.ReplaceAll(p.path, "%s", v), strings.ReplaceAll(p.body, "%s", v)
		}
		if p.kind == "" {
			_, got := answer(method, p.path, p.body, p.header, "")
			leaks(method+" "+p.path, got)
			return
		}
		if len(values[p.kind]) == 0 {
			t.Fatalf("no values of kind %q", p.kind)
		}
		for _, v := range values[p.kind] {
			path, body := fill(v)
			status, got := answer(method, path, body, p.header, v)
			what := fmt.Sprintf("%s %s %s", method, path, body)
			leaks(what, got)
			mv := missing(v)
			mpath, mbody := fill(mv)
			if mstatus, want := answer(method, mpath, mbody, p.header, mv); mstatus != status || want != got {
				t.Errorf("%s:\ngot  %d %s\nwant %d %s (the answer for an id that does not exist)", what, status, got, mstatus, want)
			}
		}
	}

	// The kind of id an operator's route takes, where it is not a machine's.
	adminKinds := map[string]string{"/api/resources/users/": "user", "/api/resources/tenants/": "tenant",
		"/api/monitoring/health-checks/": "check", "/api/monitoring/alerts/": "alert", "/api/resources/isos/": "iso"}
	for _, rt := range s.app.Edge().Routes() {
		key := rt.Method + " " + rt.Path
		if rt.Access == api.AdminOnly {
			// Refused before anything is looked up; the answer must not depend on the id.
			path := strings.NewReplacer("{id}", "%s", "{action}", "stop").Replace(rt.Path)
			if strings.Contains(path, "%s") {
				kind := "machine"
				for prefix, k := range adminKinds {
					if strings.HasPrefix(rt.Path, prefix) {
						kind = k
					}
				}
				walk(rt.Method, walkProbe{kind: kind, path: path})
			} else {
				walk(rt.Method, walkProbe{path: path})
			}
			continue
		}
		ps, ok := probes[key]
		if !ok {
			t.Errorf("route %s has no authorization walk probes: add them", key)
			continue
		}
		for _, p := range ps {
			walk(rt.Method, p)
		}
	}

	// The event stream from its start: B's own events only.
	st := s.subscribe(b.Token, 1)
	task := s.startTask(req{method: "POST", path: "/api/client/machines/" + w.bm.ID + "/actions/reboot", token: b.Token})
	for _, ev := range st.until(t, taskDone(task.ID)) {
		leaks("GET /api/events", ev.Data)
	}
}

// TestEndedSessionsWalk calls every route that needs a token with the tokens of a
// logged-out session and of a deleted user, with API keys revoked, expired, used from
// an address they do not allow or whose user was deleted, and with the challenge of a
// login that gave the password but not the second factor, each naming the user's own
// machine: every answer is 401 unauthorized, whatever the route, and nothing of the
// tenant's leaks. The user's other session still works, so the refusals are not of
// the request's own making.
func TestEndedSessionsWalk(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	ten := s.newTenant(admin, "Ended")
	out := s.sessionUser(admin, ten, "out@example.test")
	gone := s.sessionUser(admin, ten, "gone@example.test")
	outTok, liveTok, goneTok := s.login(out.Email, out.Password), s.login(out.Email, out.Password), s.login(gone.Email, gone.Password)
	m := s.provision(liveTok.Token, smallMachine)

	// Keys: an operator's with every scope (revoked, expiring, kept to an address the
	// tests do not come from), and a tenant user's whose user goes.
	revoked := s.newKey(admin, map[string]any{"name": "revoked", "scopes": []string{"admin"}})
	expiring := s.newKey(admin, map[string]any{"name": "expiring", "scopes": []string{"admin"}, "expires_at": time.Now().Add(time.Second).Format(time.RFC3339Nano)})
	elsewhere := s.newKey(admin, map[string]any{"name": "elsewhere", "scopes": []string{"admin"}, "allowed_cidrs": []string{"192.0.2.0/24"}})
	orphan := s.newKey(goneTok.Token, map[string]any{"name": "orphan", "scopes": []string{"read", "machines:write"}})
	for _, k := range []auth.NewAPIKey{revoked, orphan} {
		expect(t, s.do(req{method: "GET", path: "/api/auth/me", token: k.Secret}), 200, "")
	}
	// A user with a second factor whose login gave the password alone: a challenge,
	// which is no token.
	careful := s.sessionUser(admin, ten, "careful@example.test")
	carefulTok := s.login(careful.Email, careful.Password).Token
	r := s.do(req{method: "POST", path: "/api/auth/totp", token: carefulTok})
	expect(t, r, 201, "")
	var enr struct{ Secret string }
	r.decode(t, &enr)
	expect(t, s.do(req{method: "POST", path: "/api/auth/totp/confirm", token: carefulTok, body: map[string]any{"code": totpCode(t, enr.Secret, time.Now())}}), 200, "")
	r = s.do(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": careful.Email, "password": careful.Password}})
	expect(t, r, 401, "totp_required")
	var skipped totpProblem
	r.decode(t, &skipped)

	expect(t, s.do(req{method: "POST", path: "/api/auth/logout", token: outTok.Token,
		body: map[string]string{"refresh_token": outTok.RefreshToken}}), 204, "")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/users/" + gone.ID, token: admin}), 204, "")
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/api-keys/" + revoked.ID, token: admin}), 204, "")
	testwait.Eventually(t, "the key to expire", func() bool {
		return s.do(req{method: "GET", path: "/api/auth/me", token: expiring.Secret}).Status == 401
	})
	s.reads(liveTok.Token, 200)

	fill := strings.NewReplacer("{id}", m.ID, "{vmId}", m.ID, "{action}", "stop")
	for _, ended := range []struct{ what, token string }{
		{"logged-out session", outTok.Token}, {"deleted user", goneTok.Token},
		{"revoked key", revoked.Secret}, {"expired key", expiring.Secret}, {"key from an address it does not allow", elsewhere.Secret},
		{"key of a deleted user", orphan.Secret}, {"login without its second factor", skipped.Challenge},
	} {
		walked := 0
		for _, rt := range s.app.Edge().Routes() {
			if rt.Access == api.Public {
				continue
			}
			rq := req{method: rt.Method, path: fill.Replace(rt.Path), token: ended.token}
			if rt.Method == "POST" || rt.Method == "PATCH" {
				rq.body = `{}`
			}
			r := s.do(rq)
			what := fmt.Sprintf("%s: %s %s", ended.what, rt.Method, rq.path)
			if r.Status != 401 || !strings.Contains(string(r.Body), `"code":"unauthorized"`) {
				t.Errorf("%s: got %d %s; want 401 unauthorized", what, r.Status, r.Body)
			}
			if strings.Contains(string(r.Body), m.Name) || strings.Contains(string(r.Body), ten) {
				t.Errorf("%s: the answer names the tenant's records: %s", what, r.Body)
			}
			walked++
		}
		if walked == 0 {
			t.Fatal("no route needs a token")
		}
	}
}
