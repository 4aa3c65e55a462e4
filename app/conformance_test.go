package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/backups"
	"github.com/vmplane/vmplane/actors/isos"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/machines/tasks"
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/internal/testwait"
	"github.com/vmplane/vmplane/mailer/mailtest"
	"github.com/vmplane/vmplane/persistence"
	"github.com/vmplane/vmplane/sso/ssotest"
)

// conformance is an http.RoundTripper that checks every exchange of a test client
// against the served OpenAPI document, as a strict generated client would see it
// (issue 16, "the contract"): the operation exists, the status is documented for it
// (explicitly: the default answer covers only 5xx), the answer's headers and body
// match its schema, and a request the document refuses is not accepted.
//
// kin-openapi finds the operation and checks parameters, media types and headers.
// Bodies are checked with santhosh-tekuri/jsonschema as JSON Schema 2020-12, the
// dialect of OpenAPI 3.1: kin-openapi v0.152.0 falls back to its OpenAPI 3.0 validator
// for schemas with $refs and no 2020-only keyword, and that one reads {} as "not null".
type conformance struct {
	t      *testing.T
	next   http.RoundTripper
	doc    *openapi3.T
	router routers.Router
	// raw is the document as JSON Schema sees it; schemas caches compiled pointers.
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema

	mu sync.Mutex
	// seen is each operation's answered statuses ("GET /api/tasks/{id}" → status → n).
	seen map[string]map[int]int
}

func newConformance(t *testing.T, s *testServer) *conformance {
	t.Helper()
	r := s.do(req{method: "GET", path: "/api/openapi.json"})
	expect(t, r, 200, "")
	doc, err := openapi3.NewLoader().LoadFromData(r.Body)
	if err != nil {
		t.Fatalf("load the document: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}
	// The document's one server is "/", relative to wherever it was fetched from.
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	compiler := jsonschema.NewCompiler()
	compiler.DefaultDraft(jsonschema.Draft2020)
	if err := compiler.AddResource(docURL, raw); err != nil {
		t.Fatal(err)
	}
	return &conformance{t: t, next: http.DefaultTransport, doc: doc, router: router, compiler: compiler,
		schemas: map[string]*jsonschema.Schema{}, seen: map[string]map[int]int{}}
}

// docURL names the document for the JSON Schema compiler.
const docURL = "https://vmplane.test/openapi.json"

// pointer escapes one JSON pointer token.
func pointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// bodyErr validates a JSON body against the schema at a location of the document.
func (c *conformance) bodyErr(loc string, body []byte) error {
	c.mu.Lock()
	sch, ok := c.schemas[loc]
	if !ok {
		var err error
		if sch, err = c.compiler.Compile(docURL + "#" + loc); err != nil {
			c.mu.Unlock()
			return fmt.Errorf("compile %s: %w", loc, err)
		}
		c.schemas[loc] = sch
	}
	c.mu.Unlock()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("the body is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("the body does not match %s: %w", loc, err)
	}
	return nil
}

// mediaKey is the content entry of a media type among those documented.
func mediaKey(content openapi3.Content, contentType string) string {
	mt := strings.TrimSpace(strings.Split(contentType, ";")[0])
	if _, ok := content[mt]; ok {
		return mt
	}
	return ""
}

func (c *conformance) RoundTrip(hr *http.Request) (*http.Response, error) {
	var body []byte
	if hr.Body != nil {
		var err error
		if body, err = io.ReadAll(hr.Body); err != nil {
			return nil, err
		}
		hr.Body.Close()
		hr.Body = io.NopCloser(bytes.NewReader(body))
	}
	vr := hr.Clone(context.Background())
	vr.Body = io.NopCloser(bytes.NewReader(body))
	route, params, routeErr := c.router.FindRoute(vr)

	res, err := c.next.RoundTrip(hr)
	if err != nil {
		return res, err
	}
	name := hr.Method + " " + hr.URL.RequestURI()
	if routeErr != nil {
		if res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusMethodNotAllowed {
			c.t.Errorf("%s: no operation in the document, yet the server answered %d", name, res.StatusCode)
		}
		return res, nil
	}
	op := hr.Method + " " + route.Path
	opLoc := "/paths/" + pointer(route.Path) + "/" + strings.ToLower(hr.Method)
	in := &openapi3filter.RequestValidationInput{Request: vr, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true,
			ExcludeRequestBody: true, ExcludeResponseBody: true}}
	reqErr := openapi3filter.ValidateRequest(context.Background(), in)
	status := res.StatusCode
	if reqErr == nil && route.Operation.RequestBody != nil {
		// The request body, against the schema of its media type, as 2020-12.
		rb := route.Operation.RequestBody.Value
		mt := mediaKey(rb.Content, hr.Header.Get("Content-Type"))
		switch {
		case len(body) == 0 && rb.Required:
			reqErr = fmt.Errorf("no body")
		case mt == "":
			reqErr = fmt.Errorf("media type %q not documented", hr.Header.Get("Content-Type"))
		case !strings.Contains(mt, "json"):
			// A raw body (an image's content): any bytes are the binary string the
			// schema names.
		default:
			reqErr = c.bodyErr(opLoc+"/requestBody/content/"+pointer(mt)+"/schema", body)
		}
	}
	if reqErr == nil {
		// kin-openapi lets unknown query parameters pass; a strict client cannot send
		// what the document does not declare, so the server must not need them.
		for name := range hr.URL.Query() {
			if route.Operation.Parameters.GetByInAndName("query", name) == nil {
				reqErr = fmt.Errorf("query parameter %q is not documented", name)
			}
		}
	}
	if reqErr != nil && status < 300 {
		c.t.Errorf("%s: the document refuses this request (%v), yet the server answered %d", name, reqErr, status)
	}
	respRef := route.Operation.Responses.Value(strconv.Itoa(status))
	respLoc := opLoc + "/responses/" + strconv.Itoa(status)
	if status < 500 && respRef == nil {
		c.t.Errorf("%s: answered %d, which %s does not document", name, status, op)
	}
	if respRef != nil && respRef.Ref != "" {
		respLoc = strings.TrimPrefix(respRef.Ref, "#")
	}
	c.mu.Lock()
	if c.seen[op] == nil {
		c.seen[op] = map[int]int{}
	}
	c.seen[op][status]++
	c.mu.Unlock()
	// A stream or an upgraded connection has no body to read whole.
	if status == http.StatusSwitchingProtocols || strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		return res, nil
	}
	raw, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(raw))
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: res.Header,
		Body:    io.NopCloser(bytes.NewReader(raw)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: true}}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		c.t.Errorf("%s: the %d answer does not match the document: %v\n%s", name, status, err, raw)
	}
	if respRef != nil && respRef.Value != nil {
		if mt := mediaKey(respRef.Value.Content, res.Header.Get("Content-Type")); strings.Contains(mt, "json") {
			if err := c.bodyErr(respLoc+"/content/"+pointer(mt)+"/schema", raw); err != nil {
				c.t.Errorf("%s: the %d answer: %v\n%s", name, status, err, raw)
			}
		}
	}
	return res, nil
}

// TestOpenAPIConformance walks every documented operation of a real server with the
// project's own test helpers, through a client that validates every request and every
// answer against /api/openapi.json. It fails when an answer's status is not documented
// for its operation, when a body differs from its schema, and when an operation of the
// document was never answered with success.
func TestOpenAPIConformance(t *testing.T) {
	t.Parallel()
	smtpd := mailtest.Start(t, mailtest.Options{User: "relay", Password: "relay-password"})
	idp := ssotest.Start(t, ssotest.User{ID: "root", Email: testAdminEmail, Groups: []string{"ops"}})
	addr := idp.Serve()
	s, _ := synced(t, withMail(smtpd), func(c *Config) {
		c.RescueISO = "conform rescue"
		c.Addr = addr
		c.OIDCProvidersFile = idp.File(addr, map[string]string{"ops": "operator"})
	})
	conf := newConformance(t, s)
	s.client = &http.Client{Timeout: 30 * time.Second, Transport: conf}
	ok := func(r req, status int) *response {
		t.Helper()
		res := s.do(r)
		expect(t, res, status, "")
		return res
	}
	fails := func(r req, status int, code string) {
		t.Helper()
		expect(t, s.do(r), status, code)
	}
	idOf := func(res *response) string {
		t.Helper()
		var v struct{ ID string }
		res.decode(t, &v)
		return v.ID
	}

	// System and auth.
	ok(req{method: "GET", path: "/api/health"}, 200)
	ok(req{method: "GET", path: "/metrics"}, 200)
	pair := s.login(testAdminEmail, testAdminPassword)
	fails(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": testAdminEmail, "password": "wrong password"}}, 401, "invalid_credentials")
	fails(req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": testAdminEmail}}, 400, "invalid_request")
	fails(req{method: "POST", path: "/api/auth/login", body: `{"email":"a@b.test","password":"x"}`,
		header: map[string]string{"Content-Type": "text/plain"}}, 415, "unsupported_media_type")
	fails(req{method: "POST", path: "/api/auth/refresh", body: map[string]string{"refresh_token": "a.b.c.d"}}, 401, "invalid_refresh_token")
	var fresh tokenPair
	ok(req{method: "POST", path: "/api/auth/refresh", body: map[string]string{"refresh_token": pair.RefreshToken}}, 200).decode(t, &fresh)
	ok(req{method: "GET", path: "/api/auth/me", token: fresh.Token}, 200)
	fails(req{method: "GET", path: "/api/auth/me"}, 401, "unauthorized")
	ok(req{method: "POST", path: "/api/auth/logout", token: fresh.Token, body: map[string]string{"refresh_token": fresh.RefreshToken}}, 204)
	// The web console's sign-in: the refresh token in a cookie.
	browser := ok(req{method: "POST", path: "/api/auth/browser/login", header: s.browserHeaders(""), body: map[string]string{"email": testAdminEmail, "password": testAdminPassword}}, 200)
	fails(req{method: "POST", path: "/api/auth/browser/login/totp", header: s.browserHeaders(""), body: map[string]string{"challenge": "not-a-challenge", "code": "123456"}}, 401, "unauthorized")
	fails(req{method: "POST", path: "/api/auth/browser/refresh", header: s.browserHeaders("")}, 401, "invalid_refresh_token")
	browser = ok(req{method: "POST", path: "/api/auth/browser/refresh", header: s.browserHeaders(refreshCookie(t, browser).Value)}, 200)
	var browserTok struct{ Token string }
	browser.decode(t, &browserTok)
	ok(req{method: "POST", path: "/api/auth/browser/logout", token: browserTok.Token, header: s.browserHeaders("")}, 204)
	// The caller's own sessions and password (changed, and changed back).
	// (The password change ends the operator's other sessions: admin signs in again.)
	own := s.login(testAdminEmail, testAdminPassword)
	var sessions struct{ Items []auth.SessionInfo }
	ok(req{method: "GET", path: "/api/auth/sessions?limit=500", token: own.Token}, 200).decode(t, &sessions)
	if len(sessions.Items) < 2 || !sessions.Items[0].Current {
		t.Fatalf("got sessions %+v; want the operator's, the asking one first", sessions.Items)
	}
	ok(req{method: "DELETE", path: "/api/auth/sessions/" + sessions.Items[1].ID, token: own.Token}, 204)
	fails(req{method: "DELETE", path: "/api/auth/sessions/" + persistence.NewID(), token: own.Token}, 404, "not_found")
	fails(req{method: "POST", path: "/api/auth/password", token: own.Token, body: map[string]string{"current_password": "wrong password", "new_password": "another-password"}}, 400, "invalid_request")
	var changed tokenPair
	ok(req{method: "POST", path: "/api/auth/password", token: own.Token, body: map[string]string{"current_password": testAdminPassword, "new_password": "another-password"}}, 200).decode(t, &changed)
	ok(req{method: "POST", path: "/api/auth/password", token: changed.Token, body: map[string]string{"current_password": "another-password", "new_password": testAdminPassword}}, 200)
	conformOIDC(t, s, conf, ok, fails)
	admin := s.adminToken()
	conformAccountRecovery(t, s, smtpd, admin, ok, fails)
	conformClientMachine(t, s, admin, ok, fails)
	conformPlans(t, s, admin, ok, fails)
	conformIPPools(s, admin, ok, fails)
	conformLocations(s, admin, ok, fails)
	var key auth.NewAPIKey
	ok(req{method: "POST", path: "/api/resources/api-keys", token: admin, body: map[string]any{"name": "conform", "scopes": []string{"read"},
		"expires_at": time.Now().Add(time.Hour).Format(time.RFC3339), "allowed_cidrs": []string{"127.0.0.0/8"}}}, 201).decode(t, &key)
	fails(req{method: "POST", path: "/api/resources/api-keys", token: admin, body: map[string]any{"name": "bad", "scopes": []string{"everything"}}}, 400, "invalid_request")
	ok(req{method: "GET", path: "/api/resources/api-keys", token: admin}, 200)
	ok(req{method: "GET", path: "/api/resources/api-keys/" + key.ID, token: key.Secret}, 200)
	fails(req{method: "DELETE", path: "/api/resources/api-keys/" + key.ID, token: key.Secret}, 403, "forbidden")
	ok(req{method: "DELETE", path: "/api/resources/api-keys/" + key.ID, token: admin}, 204)
	// The audit log: what was done above, newest first; its filters' values checked.
	ok(req{method: "GET", path: "/api/audit?limit=5&action=DELETE+/api/resources/api-keys/{id}", token: admin}, 200)
	fails(req{method: "GET", path: "/api/audit?until=tomorrow", token: admin}, 400, "invalid_request")

	// The hypervisor routes, as an operator.
	ok(req{method: "POST", path: "/api/virt/sync", token: admin}, 200)
	ms := s.machines(admin)
	ok(req{method: "GET", path: "/api/virt/vms?status=running&limit=2", token: admin}, 200)
	fails(req{method: "GET", path: "/api/virt/vms?colour=red", token: admin}, 400, "invalid_request")
	fails(req{method: "GET", path: "/api/virt/vms?limit=many", token: admin}, 400, "invalid_request")
	run := byStatus(t, ms, machines.StatusRunning)
	vm := "/api/virt/vms/" + run.ID
	s.machine(admin, run.ID)
	s.machine(admin, strconv.Itoa(run.VMID))
	fails(req{method: "GET", path: "/api/virt/vms/no-such-machine", token: admin}, 404, "not_found")
	s.run(req{method: "POST", path: vm + "/actions/reboot", token: admin})
	fails(req{method: "POST", path: vm + "/actions/explode", token: admin}, 400, "invalid_request")
	s.run(req{method: "PATCH", path: vm + "/config", token: admin, body: map[string]any{"cpu_cores": 2}})
	fails(req{method: "PATCH", path: vm + "/config", token: admin, body: map[string]any{}}, 400, "invalid_request")
	s.run(req{method: "PATCH", path: vm + "/network", token: admin, body: map[string]any{"interfaces": []any{map[string]any{"id": "net0", "vlan": 5}}}})
	s.run(req{method: "POST", path: vm + "/disks", token: admin, body: map[string]any{"size_gb": 5}})
	s.run(req{method: "POST", path: vm + "/reinstall", token: admin, body: map[string]any{"template_id": "tpl-debian-12"}})
	target := "pve1"
	if s.machine(admin, run.ID).Node == target {
		target = "pve2"
	}
	s.run(req{method: "POST", path: vm + "/migrate", token: admin, body: map[string]any{"target_node": target}})
	var ticket struct{ Ticket string }
	ok(req{method: "GET", path: vm + "/console", token: admin}, 200).decode(t, &ticket)
	upgrade := map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
		"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
	fails(req{method: "GET", path: vm + "/console/ws?ticket=forged", header: upgrade}, 401, "unauthorized")
	s.upgrade(vm+"/console/ws?ticket="+ticket.Ticket, upgrade)
	for _, p := range []string{vm + "/usage-graphs?timeframe=day", vm + "/traffic", "/api/virt/cluster/usage-graphs", "/api/virt/nodes", "/api/virt/templates"} {
		ok(req{method: "GET", path: p, token: admin}, 200)
	}
	fails(req{method: "GET", path: "/api/virt/cluster/usage-graphs?timeframe=decade", token: admin}, 400, "invalid_request")
	nodes := listOf[capacity.Node](s, admin, "/api/virt/nodes")
	ok(req{method: "GET", path: "/api/virt/nodes/" + nodes[0].ID, token: admin}, 200)
	ok(req{method: "GET", path: "/api/virt/nodes/" + nodes[0].ID + "/usage-graphs", token: admin}, 200)

	// A tenant's client area.
	a := s.tenant(admin, "Conform", nil)
	am := s.provision(a.Token, smallMachine)
	fails(req{method: "POST", path: "/api/client/machines", token: a.Token, body: map[string]any{"name": "x"}}, 400, "invalid_request")
	ok(req{method: "GET", path: "/api/client/machines?name=" + am.Name, token: a.Token}, 200)
	ok(req{method: "GET", path: "/api/client/overview", token: a.Token}, 200)
	ok(req{method: "GET", path: "/api/client/usage-trends?days=7", token: a.Token}, 200)
	fails(req{method: "GET", path: "/api/client/overview", token: admin}, 400, "invalid_request")
	ok(req{method: "GET", path: "/api/client/overview?tenant_id=" + a.ID, token: admin}, 200)
	ok(req{method: "GET", path: "/api/client/locations", token: a.Token}, 200)
	fails(req{method: "GET", path: "/api/client/locations?tenant_id=no-such-tenant", token: admin}, 404, "not_found")
	cm := "/api/client/machines/" + am.ID
	s.run(req{method: "POST", path: cm + "/actions/reboot", token: a.Token})
	s.run(req{method: "PATCH", path: cm + "/resources", token: a.Token, body: map[string]any{"memory_mb": 2048}})
	ok(req{method: "POST", path: cm + "/power-schedules", token: a.Token, body: map[string]any{"action": "stop", "cron": "0 3 * * *"}}, 201)
	ok(req{method: "GET", path: cm + "/power-schedules", token: a.Token}, 200)
	bs := s.createBackupSchedule(a.Token, am.ID, map[string]any{"cron": everySecond, "retention": 1})
	ok(req{method: "GET", path: cm + "/backup-schedules", token: a.Token}, 200)
	rule := idOf(ok(req{method: "POST", path: "/api/client/firewall/rules", token: a.Token,
		body: map[string]any{"direction": "in", "action": "accept", "protocol": "tcp", "port": "22"}}, 201))
	ok(req{method: "GET", path: "/api/client/firewall/rules", token: a.Token}, 200)
	ok(req{method: "PATCH", path: "/api/client/firewall/rules/" + rule, token: a.Token, body: map[string]any{"port": nil}}, 200)
	ok(req{method: "DELETE", path: "/api/client/firewall/rules/" + rule, token: a.Token}, 204)
	s.eventStream(a.Token)

	// Monitoring, as an operator: a failed task raises an alert to look at (once the
	// backup schedule, whose successes would resolve it, has taken its backup).
	testwait.Eventually(t, "the backup schedule took no backup", func() bool { return len(s.backupsOf(a.Token, am.ID)) > 0 })
	s.disableBackupSchedule(a.Token, bs.ID)
	backup := s.backupsOf(a.Token, am.ID)[0]
	s.sim.FailNext(am.VMID, "reboot", nil)
	failed := s.waitTask(admin, s.startTask(req{method: "POST", path: "/api/virt/vms/" + am.ID + "/actions/reboot", token: admin}).ID)
	testwait.Eventually(t, "the task_failed alert", func() bool { return len(s.alertsOf(admin, "/api/monitoring/alerts/events", am.ID)) == 1 })
	alert := s.alertsOf(admin, "/api/monitoring/alerts/events", am.ID)[0]
	ok(req{method: "POST", path: "/api/virt/vms/" + am.ID + "/suspend-billing", token: admin, body: map[string]any{"reason": "unpaid", "action": "none"}}, 200)
	ok(req{method: "POST", path: "/api/virt/vms/" + am.ID + "/unsuspend-billing", token: admin, body: map[string]any{}}, 200)
	ok(req{method: "GET", path: "/api/monitoring/alerts/events?status=firing&since=2020-01-01T00:00:00Z", token: admin}, 200)
	ok(req{method: "GET", path: "/api/monitoring/alerts/events/" + alert.ID, token: admin}, 200)
	ok(req{method: "GET", path: "/api/monitoring/overview", token: admin}, 200)
	ok(req{method: "GET", path: "/api/monitoring/insights/faulty-deployments", token: admin}, 200)
	ok(req{method: "GET", path: "/api/monitoring/insights/cluster-forecast?horizon_days=10", token: admin}, 200)
	target22 := am.Interfaces[0].IPAddresses[0] + ":22"
	hc := idOf(ok(req{method: "POST", path: "/api/monitoring/health-checks", token: admin, body: map[string]any{"name": "ssh", "type": "tcp",
		"target": target22, "interval_s": 60, "timeout_ms": 500}}, 201))
	ok(req{method: "GET", path: "/api/monitoring/health-checks", token: admin}, 200)
	ok(req{method: "GET", path: "/api/monitoring/health-checks/" + hc, token: admin}, 200)
	ok(req{method: "PATCH", path: "/api/monitoring/health-checks/" + hc, token: admin, body: map[string]any{"enabled": false}}, 200)
	ok(req{method: "DELETE", path: "/api/monitoring/health-checks/" + hc, token: admin}, 204)

	ok(req{method: "GET", path: "/api/resources/alert-events/" + alert.ID, token: a.Token}, 200)
	ok(req{method: "PATCH", path: "/api/resources/alert-events/" + alert.ID, token: a.Token, body: map[string]any{"status": "acknowledged"}}, 200)
	fails(req{method: "PATCH", path: "/api/resources/alert-events/" + alert.ID, token: a.Token, body: map[string]any{"status": "resolved"}}, 400, "invalid_request")
	ok(req{method: "PATCH", path: "/api/monitoring/alerts/events/" + alert.ID, token: admin, body: map[string]any{"status": "acknowledged"}}, 200)

	// Every resource: list, get, create, change, delete, as the tenant where it may.
	crud := []struct {
		name           string
		token          string
		create, change map[string]any
		createStatus   int
	}{
		{"machines", admin, map[string]any{"name": "conform-2", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 512,
			"disk_gb": 10, "tenant_id": a.ID}, map[string]any{"name": "conform-3"}, 202},
		{"firewall-rules", a.Token, map[string]any{"direction": "out", "action": "drop", "protocol": "any"}, map[string]any{"comment": nil}, 201},
		{"tenants", admin, map[string]any{"name": "Spare"}, map[string]any{"name": "Spare 2"}, 201},
		{"users", admin, map[string]any{"email": "spare@example.test", "name": "Spare", "role": "user", "password": "spare-password",
			"tenant_id": a.ID}, map[string]any{"name": "Spare 2"}, 201},
		{"power-schedules", a.Token, map[string]any{"machine_id": am.ID, "action": "start", "cron": "0 4 * * *"}, map[string]any{"enabled": false}, 201},
		{"backup-schedules", a.Token, map[string]any{"machine_id": am.ID, "cron": "0 4 * * *", "retention": 2}, map[string]any{"retention": 3}, 201},
		{"health-checks", a.Token, map[string]any{"name": "ssh", "type": "tcp", "target": target22, "interval_s": 60, "timeout_ms": 500,
			"machine_id": am.ID}, map[string]any{"machine_id": nil}, 201},
	}
	for _, c := range crud {
		base := "/api/resources/" + c.name
		res := ok(req{method: "POST", path: base, token: c.token, body: c.create}, c.createStatus)
		id := idOf(res)
		if c.name == "machines" {
			var p tenants.Provisioned
			res.decode(t, &p)
			id = p.Machine.ID
			s.waitTask(admin, p.Task.ID)
		}
		ok(req{method: "GET", path: base + "?limit=1", token: c.token}, 200)
		ok(req{method: "GET", path: base + "/" + id, token: c.token}, 200)
		fails(req{method: "PATCH", path: base + "/" + id, token: c.token, body: map[string]any{}}, 400, "invalid_request")
		fails(req{method: "PATCH", path: base + "/" + id, token: c.token, body: c.change, header: map[string]string{"Content-Type": "text/plain"}},
			415, "unsupported_media_type")
		if c.name == "machines" {
			s.run(req{method: "PATCH", path: base + "/" + id, token: c.token, body: c.change})
			ok(req{method: "PATCH", path: base + "/" + id, token: c.token, body: map[string]any{"tenant_id": nil},
				header: map[string]string{"Content-Type": "application/merge-patch+json"}}, 200)
			s.run(req{method: "DELETE", path: base + "/" + id, token: c.token})
			continue
		}
		ok(req{method: "PATCH", path: base + "/" + id, token: c.token, body: c.change}, 200)
		if c.name == "tenants" {
			ok(req{method: "POST", path: base + "/" + id + "/suspend", token: c.token, body: map[string]any{"reason": "unpaid", "action": "none"}}, 200)
			ok(req{method: "POST", path: base + "/" + id + "/unsuspend", token: c.token, body: map[string]any{}}, 200)
		}
		ok(req{method: "DELETE", path: base + "/" + id, token: c.token}, 204)
	}
	// A termination, taken back, then done (no grace: at once).
	var spare tenants.Provisioned
	ok(req{method: "POST", path: "/api/resources/machines", token: admin, body: map[string]any{"name": "conform-4", "template_id": "tpl-debian-12",
		"cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "tenant_id": a.ID}}, 202).decode(t, &spare)
	s.waitTask(admin, spare.Task.ID)
	ok(req{method: "DELETE", path: "/api/virt/vms/" + spare.Machine.ID + "/terminate", token: admin}, 200)
	ok(req{method: "POST", path: "/api/virt/vms/" + spare.Machine.ID + "/terminate", token: admin}, 202)
	fails(req{method: "POST", path: "/api/resources/users", token: admin, body: map[string]any{"email": "x@example.test", "role": "admin",
		"password": "long-enough"}}, 400, "invalid_request")
	for _, p := range []string{"tasks", "nodes", "templates", "backups", "alert-events"} {
		ok(req{method: "GET", path: "/api/resources/" + p, token: admin}, 200)
	}
	hooks := s.tenant(admin, "Conformhooks", nil)
	conformWebhooks(t, s, admin, hooks.ID, hooks.Token, ok)
	ok(req{method: "GET", path: "/api/resources/tasks/" + failed.ID, token: admin}, 200)
	ok(req{method: "GET", path: "/api/resources/nodes/" + nodes[0].ID, token: admin}, 200)
	ok(req{method: "GET", path: "/api/resources/templates/tpl-debian-12", token: a.Token}, 200)
	ok(req{method: "GET", path: "/api/resources/backups/" + backup.ID, token: a.Token}, 200)
	ok(req{method: "DELETE", path: "/api/resources/backups/" + backup.ID, token: a.Token}, 204)
	ok(req{method: "GET", path: "/api/tasks/" + failed.ID, token: admin}, 200)
	// The filters the document declares, each honoured.
	for _, p := range []string{"/api/resources/users?tenant_id=" + a.ID, "/api/resources/power-schedules?machine_id=" + am.ID + "&tenant_id=" + a.ID,
		"/api/resources/backups?machine_id=" + am.ID, "/api/resources/health-checks?tenant_id=" + a.ID,
		"/api/monitoring/health-checks?tenant_id=" + a.ID, "/api/client/firewall/rules?machine_id=" + am.ID + "&tenant_id=" + a.ID,
		"/api/resources/alert-events?severity=warning&kind=task_failed", "/api/resources/machines?node=pve1&status=running&tenant_id=" + a.ID,
		"/api/client/machines/" + am.ID + "/power-schedules?tenant_id=" + a.ID + "&limit=5"} {
		ok(req{method: "GET", path: p, token: admin}, 200)
	}
	ok(req{method: "GET", path: "/api/openapi.json"}, 200)
	ok(req{method: "GET", path: "/api/admin/backup", token: admin}, 200)

	// Every operation of the document was answered with success at least once.
	conf.mu.Lock()
	defer conf.mu.Unlock()
	var missing []string
	for path, item := range conf.doc.Paths.Map() {
		for method := range item.Operations() {
			op := method + " " + path
			succeeded := false
			for status := range conf.seen[op] {
				// A redirect is the success of a sign-in's start.
				succeeded = succeeded || status < 300 || status == http.StatusFound
			}
			if !succeeded {
				missing = append(missing, fmt.Sprintf("%s (answered %v)", op, conf.seen[op]))
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("operations never answered with success in this walk (add them): %s", strings.Join(missing, "; "))
	}
}

// upgrade opens the console websocket through the test client (so that the 101 is
// checked too) and closes it again.
func (s *testServer) upgrade(path string, header map[string]string) {
	s.t.Helper()
	hr, err := http.NewRequest("GET", s.base+path, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range header {
		hr.Header.Set(k, v)
	}
	res, err := s.client.Do(hr)
	if err != nil {
		s.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSwitchingProtocols {
		s.t.Fatalf("GET %s: got %d; want 101", path, res.StatusCode)
	}
}

// eventStream opens the event stream through the test client and closes it once the
// answer's head is in.
func (s *testServer) eventStream(tok string) {
	s.t.Helper()
	hr, err := http.NewRequest("GET", s.base+"/api/events", nil)
	if err != nil {
		s.t.Fatal(err)
	}
	hr.Header.Set("Authorization", "Bearer "+tok)
	res, err := s.client.Do(hr)
	if err != nil {
		s.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		s.t.Fatalf("GET /api/events: got %d; want 200", res.StatusCode)
	}
}

// conformAccountRecovery walks the routes of a forgotten password and of the second
// factor, with a user of its own.
func conformAccountRecovery(t *testing.T, s *testServer, smtpd *mailtest.Server, admin string,
	ok func(req, int) *response, fails func(req, int, string)) {
	t.Helper()
	tenant := s.newTenant(admin, "conformance-accounts")
	u := s.sessionUser(admin, tenant, "recovering@example.test")

	before := len(smtpd.Messages())
	ok(req{method: "POST", path: "/api/auth/password-reset", body: map[string]string{"email": u.Email}}, 202)
	m := smtpd.Wait(t, before+1, 30*time.Second)
	link := resetLinkRe.FindStringSubmatch(m.Body)
	if link == nil {
		t.Fatalf("no link in the mail:\n%s", m.Body)
	}
	token, err := url.QueryUnescape(link[1])
	if err != nil {
		t.Fatal(err)
	}
	ok(req{method: "GET", path: "/reset-password?token=" + url.QueryEscape(token)}, 200)
	fails(req{method: "POST", path: "/api/auth/password-reset/confirm", body: map[string]string{"token": "nope", "new_password": "recovered-password"}}, 400, "invalid_request")
	ok(req{method: "POST", path: "/api/auth/password-reset/confirm", body: map[string]string{"token": token, "new_password": "recovered-password"}}, 204)

	tok := s.login(u.Email, "recovered-password").Token
	var enr struct{ Secret string }
	ok(req{method: "POST", path: "/api/auth/totp", token: tok}, 201).decode(t, &enr)
	fails(req{method: "POST", path: "/api/auth/totp/confirm", token: tok, body: map[string]string{"code": "abc"}}, 400, "invalid_request")
	var rc struct {
		Codes []string `json:"recovery_codes"`
	}
	ok(req{method: "POST", path: "/api/auth/totp/confirm", token: tok, body: map[string]string{"code": totpCode(t, enr.Secret, time.Now())}}, 200).decode(t, &rc)
	fails(req{method: "POST", path: "/api/auth/totp", token: tok}, 409, "conflict")
	login := req{method: "POST", path: "/api/auth/login", body: map[string]string{"email": u.Email, "password": "recovered-password"}}
	var p totpProblem
	r := s.do(login)
	expect(t, r, 401, "totp_required")
	r.decode(t, &p)
	fails(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": p.Challenge, "code": "000"}}, 400, "invalid_request")
	ok(req{method: "POST", path: "/api/auth/login/totp", body: map[string]string{"challenge": p.Challenge, "code": rc.Codes[0]}}, 200)
	r = s.do(req{method: "POST", path: "/api/auth/browser/login", header: s.browserHeaders(""), body: map[string]string{"email": u.Email, "password": "recovered-password"}})
	expect(t, r, 401, "totp_required")
	r.decode(t, &p)
	ok(req{method: "POST", path: "/api/auth/browser/login/totp", header: s.browserHeaders(""), body: map[string]string{"challenge": p.Challenge, "code": rc.Codes[2]}}, 200)
	ok(req{method: "POST", path: "/api/auth/totp/disable", token: tok, body: map[string]string{"code": rc.Codes[1]}}, 204)
	fails(req{method: "DELETE", path: "/api/resources/users/" + u.ID + "/totp", token: admin}, 409, "conflict")
	ok(req{method: "POST", path: "/api/auth/totp", token: tok}, 201)
	ok(req{method: "DELETE", path: "/api/resources/users/" + u.ID + "/totp", token: admin}, 204)

	var ll struct{ Token string }
	ok(req{method: "POST", path: "/api/resources/users/" + u.ID + "/login-links", token: admin}, 201).decode(t, &ll)
	ok(req{method: "GET", path: "/login-link?token=" + url.QueryEscape(ll.Token)}, 200)
	ok(req{method: "POST", path: "/api/auth/login-link", body: map[string]string{"token": ll.Token}}, 200)
	fails(req{method: "POST", path: "/api/auth/login-link", body: map[string]string{"token": ll.Token}}, 401, "unauthorized")
}

// conformOIDC walks a sign-in through an OpenID Connect provider, as the operator.
func conformOIDC(t *testing.T, s *testServer, conf *conformance, ok func(req, int) *response, fails func(req, int, string)) {
	t.Helper()
	ok(req{method: "GET", path: "/api/auth/oidc/providers"}, 200)
	fails(req{method: "GET", path: "/api/auth/oidc/nope/start"}, 404, "not_found")
	fails(req{method: "GET", path: "/api/auth/oidc/corp/start?redirect_to=https://elsewhere.test/"}, 400, "invalid_request")
	// The start's redirect itself, not followed.
	c := &http.Client{Timeout: 30 * time.Second, Transport: conf, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	expect(t, doWith(t, c, s.base, req{method: "GET", path: "/api/auth/oidc/corp/start?redirect_to=/"}), 302, "")
	asProgram := func(si signIn) req {
		return req{method: "GET", path: strings.TrimPrefix(si.url, s.base),
			header: map[string]string{"Accept": "application/json", "Cookie": "vmplane_oidc_secret=" + si.secret}}
	}
	cb := browser(t, s, "corp", "root")
	fails(asProgram(signIn{url: cb.url}), 400, "oidc_state_invalid")
	ok(asProgram(cb), 200)
	fails(asProgram(cb), 400, "oidc_state_invalid")
	fails(asProgram(browser(t, s, "confused", "root")), 401, "oidc_login_failed")
}

// conformClientMachine walks the routes of one of a tenant's machines in the client area.
func conformClientMachine(t *testing.T, s *testServer, admin string, ok func(req, int) *response, fails func(req, int, string)) {
	t.Helper()
	a := s.tenant(admin, "Conformer", nil)
	m := s.provision(a.Token, smallMachine)
	vm := "/api/client/machines/" + m.ID
	wait := func(r *response) {
		t.Helper()
		var body struct{ Task tasks.Task }
		r.decode(t, &body)
		if done := s.waitTask(a.Token, body.Task.ID); done.Status != tasks.TaskSucceeded {
			t.Fatalf("%+v", done)
		}
	}
	ok(req{method: "GET", path: vm, token: a.Token}, 200)
	ok(req{method: "GET", path: vm + "/tasks?limit=1", token: a.Token}, 200)
	ok(req{method: "GET", path: vm + "/usage-graphs?timeframe=week", token: a.Token}, 200)
	ok(req{method: "GET", path: vm + "/traffic", token: a.Token}, 200)
	// An address's reverse name, on a machine given one by a pool.
	s.createPool(admin, map[string]any{"name": "conform v4", "cidr": "192.0.2.0/28", "gateway": "192.0.2.1"})
	addressed := s.provision(a.Token, map[string]any{"name": "addressed", "template_id": "tpl-debian-12",
		"plan_id": s.createPlan(admin, map[string]any{"name": "conform-ip", "cpu_cores": 1, "memory_mb": 512, "disk_gb": 10, "ipv4": 2}).ID})
	ok(req{method: "PUT", path: "/api/client/machines/" + addressed.ID + "/addresses/192.0.2.2/ptr", token: a.Token, body: map[string]any{"ptr": "a.example.com"}}, 200)
	fails(req{method: "PUT", path: "/api/client/machines/" + addressed.ID + "/addresses/192.0.2.2/ptr", token: a.Token, body: map[string]any{"ptr": "-"}}, 400, "invalid_request")
	ok(req{method: "PUT", path: "/api/virt/vms/" + addressed.ID + "/addresses/192.0.2.2/ptr", token: admin, body: map[string]any{"ptr": ""}}, 200)
	// Extra addresses within the plan (two): one taken away, another added, one past it.
	ok(req{method: "DELETE", path: "/api/client/machines/" + addressed.ID + "/addresses/192.0.2.3", token: a.Token}, 200)
	fails(req{method: "DELETE", path: "/api/client/machines/" + addressed.ID + "/addresses/192.0.2.2", token: a.Token}, 409, "conflict")
	ok(req{method: "POST", path: "/api/client/machines/" + addressed.ID + "/addresses", token: a.Token, body: map[string]any{"version": 4}}, 201)
	fails(req{method: "POST", path: "/api/client/machines/" + addressed.ID + "/addresses", token: a.Token, body: map[string]any{"version": 4}}, 409, "conflict")
	ok(req{method: "DELETE", path: "/api/virt/vms/" + addressed.ID + "/addresses/192.0.2.4", token: admin}, 200)
	fails(req{method: "POST", path: "/api/virt/vms/" + addressed.ID + "/addresses", token: admin, body: map[string]any{"version": 4, "address": "203.0.113.9"}}, 422, "address_unusable")
	fails(req{method: "POST", path: "/api/virt/vms/" + addressed.ID + "/addresses", token: admin, body: map[string]any{"version": 4, "address": "192.0.2.3"}}, 409, "address_taken")
	ok(req{method: "POST", path: "/api/virt/vms/" + addressed.ID + "/addresses", token: admin, body: map[string]any{"version": 4, "address": "192.0.2.5"}}, 201)
	s.run(req{method: "DELETE", path: "/api/resources/machines/" + addressed.ID, token: admin})
	// Usage for invoices: the tenant's own, and an operator's (a billing system's) reads.
	hours := "?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z"
	ok(req{method: "GET", path: vm + "/usage" + hours, token: a.Token}, 200)
	ok(req{method: "GET", path: "/api/client/usage" + hours, token: a.Token}, 200)
	fails(req{method: "GET", path: "/api/client/usage?from=2026-01-01T00:30:00Z&to=2026-02-01T00:00:00Z", token: a.Token}, 400, "invalid_request")
	fails(req{method: "GET", path: "/api/client/usage?from=yesterday&to=2026-02-01T00:00:00Z", token: a.Token}, 400, "invalid_request")
	ok(req{method: "GET", path: "/api/virt/vms/" + m.ID + "/usage" + hours, token: admin}, 200)
	ok(req{method: "GET", path: "/api/resources/tenants/" + a.ID + "/usage" + hours, token: admin}, 200)
	var c struct{ Path string }
	ok(req{method: "GET", path: vm + "/console", token: a.Token}, 200).decode(t, &c)
	s.upgrade(c.Path, map[string]string{"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
	wait(ok(req{method: "POST", path: vm + "/reinstall", token: a.Token, body: map[string]any{"template_id": "tpl-debian-12"}}, 202))
	wait(ok(req{method: "POST", path: vm + "/backups", token: a.Token, body: map[string]any{"note": "n"}}, 202))
	var bk struct{ Items []backups.Backup }
	ok(req{method: "GET", path: vm + "/backups", token: a.Token}, 200).decode(t, &bk)
	wait(ok(req{method: "POST", path: vm + "/backups/" + bk.Items[0].ID + "/restore", token: a.Token, body: map[string]any{"start_after": true}}, 202))
	// The operator restores the backup into a new machine of the tenant's, deleted again.
	restore := "/api/virt/backups/" + bk.Items[0].ID + "/restore"
	fails(req{method: "POST", path: restore, token: a.Token, body: map[string]any{}}, 403, "forbidden")
	fails(req{method: "POST", path: restore, token: admin, body: map[string]any{"node": "no-such-node"}}, 400, "invalid_request")
	made := ok(req{method: "POST", path: restore, token: admin, body: map[string]any{"name": "conform-copy", "start_after": true}}, 202)
	wait(made)
	var copied struct{ Machine struct{ ID string } }
	made.decode(t, &copied)
	wait(ok(req{method: "DELETE", path: "/api/client/machines/" + copied.Machine.ID, token: a.Token}, 202))
	wait(ok(req{method: "POST", path: vm + "/snapshots", token: a.Token, body: map[string]any{"name": "conform"}}, 202))
	fails(req{method: "POST", path: vm + "/snapshots", token: a.Token, body: map[string]any{"name": "conform"}}, 409, "conflict")
	ok(req{method: "GET", path: vm + "/snapshots", token: a.Token}, 200)
	wait(ok(req{method: "POST", path: vm + "/snapshots/conform/rollback", token: a.Token}, 202))
	wait(ok(req{method: "DELETE", path: vm + "/snapshots/conform", token: a.Token}, 202))
	conformMedia(t, s, admin, a.Token, m.ID, ok, wait)
	wait(ok(req{method: "DELETE", path: vm, token: a.Token}, 202))
}

// conformMedia walks the ISO library and a machine's media, boot order and rescue, in
// the client area and on the operator's routes.
func conformMedia(t *testing.T, s *testServer, admin, tok, id string, ok func(req, int) *response, wait func(*response)) {
	t.Helper()
	url, sum := isoServer(t, "conform")
	var added isos.ISOAdded
	ok(req{method: "POST", path: "/api/resources/isos", token: admin, body: map[string]any{"name": "conform rescue", "url": url, "checksum": sum}}, 202).decode(t, &added)
	s.waitTask(admin, added.Task.ID)
	ok(req{method: "GET", path: "/api/resources/isos", token: tok}, 200)
	ok(req{method: "GET", path: "/api/resources/isos/" + added.ISO.ID, token: tok}, 200)
	for _, vm := range []struct{ path, tok string }{{"/api/client/machines/" + id, tok}, {"/api/virt/vms/" + id, admin}} {
		wait(ok(req{method: "POST", path: vm.path + "/media", token: vm.tok, body: map[string]any{"iso_id": added.ISO.ID}}, 202))
		wait(ok(req{method: "DELETE", path: vm.path + "/media", token: vm.tok}, 202))
		wait(ok(req{method: "PUT", path: vm.path + "/boot-order", token: vm.tok, body: map[string]any{"order": []string{"disk", "cdrom"}}}, 202))
		wait(ok(req{method: "POST", path: vm.path + "/rescue", token: vm.tok, body: map[string]any{"enabled": true}}, 202))
		wait(ok(req{method: "POST", path: vm.path + "/rescue", token: vm.tok, body: map[string]any{"enabled": false}}, 202))
	}
	ok(req{method: "DELETE", path: "/api/resources/isos/" + added.ISO.ID, token: admin}, 204)
	content := []byte("an uploaded image")
	digest := sha256.Sum256(content)
	var upload isos.ISOAdded
	ok(req{method: "POST", path: "/api/resources/isos", token: admin, body: map[string]any{"name": "conform upload", "upload": true,
		"checksum": "sha256:" + hex.EncodeToString(digest[:])}}, 202).decode(t, &upload)
	ok(req{method: "PUT", path: "/api/resources/isos/" + upload.ISO.ID + "/content", token: admin, body: octets(content)}, 200)
	ok(req{method: "DELETE", path: "/api/resources/isos/" + upload.ISO.ID, token: admin}, 204)
}
