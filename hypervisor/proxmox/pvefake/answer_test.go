package pvefake

import (
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// TestReturnSchemaValidation checks the answer validator on the shapes Proxmox uses:
// numbers are JSON numbers (not strings), booleans the integers 0 and 1, non-optional
// properties present, enum values in their enum; undeclared properties pass.
func TestReturnSchemaValidation(t *testing.T) {
	status := apiSchema["/nodes/{node}/qemu/{vmid}/status/current"]["GET"].Returns
	rules := apiSchema["/nodes/{node}/qemu/{vmid}/firewall/rules"]["GET"].Returns
	nextid := apiSchema["/cluster/nextid"]["GET"].Returns
	putConfig := apiSchema["/nodes/{node}/qemu/{vmid}/config"]["PUT"].Returns
	config := apiSchema["/nodes/{node}/qemu/{vmid}/config"]["GET"].Returns
	for _, tc := range []struct {
		name   string
		schema *schemaValue
		data   string
		want   string // "" valid, else a part of the one violation
	}{
		{"status", status, `{"vmid":100,"status":"running","ha":{"managed":0},"cpus":2,"maxmem":1073741824,"extra":"x"}`, ""},
		{"vmid as string", status, `{"vmid":"100","status":"running","ha":{}}`, `data.vmid: got the string "100", want an integer`},
		{"fractional integer", status, `{"vmid":100.5,"status":"running","ha":{}}`, "data.vmid: got the number 100.5, want an integer"},
		{"cpus as string", status, `{"vmid":100,"status":"running","ha":{},"cpus":"2"}`, "data.cpus: got the string"},
		{"missing ha", status, `{"vmid":100,"status":"running"}`, `property "ha" is missing`},
		{"null required", status, `{"vmid":100,"status":null,"ha":{}}`, "data.status: is null"},
		{"status outside enum", status, `{"vmid":100,"status":"paused","ha":{}}`, `value "paused" is not in the enumeration`},
		{"boolean as JSON true", status, `{"vmid":100,"status":"running","ha":{},"template":true}`, "want a boolean (0 or 1)"},
		{"boolean 2", status, `{"vmid":100,"status":"running","ha":{},"template":2}`, "want a boolean (0 or 1)"},
		{"boolean 1", status, `{"vmid":100,"status":"running","ha":{},"template":1}`, ""},
		{"optional null", status, `{"vmid":100,"status":"running","ha":{},"lock":null}`, ""},
		{"not an object", status, `"running"`, "data: got the string"},
		{"rules", rules, `[{"pos":0,"type":"in","action":"ACCEPT","enable":1,"dport":"22"}]`, ""},
		{"rule enable as string", rules, `[{"pos":0,"type":"in","action":"ACCEPT","enable":"1"}]`, `data[0].enable: got the string "1"`},
		{"rule log outside enum", rules, `[{"pos":0,"type":"in","action":"ACCEPT","log":"loud"}]`, "data[0].log"},
		{"rule without type", rules, `[{"pos":0,"action":"ACCEPT"}]`, `property "type" is missing`},
		{"rules not an array", rules, `{"pos":0}`, "want an array"},
		{"nextid as Proxmox answers it", nextid, `"100"`, ""},
		{"nextid as a number", nextid, `100`, ""},
		{"nextid not a number", nextid, `"abc"`, "want an integer"},
		{"put config null", putConfig, `null`, ""},
		{"put config not null", putConfig, `"UPID:..."`, "want null"},
		{"config indexed key", config, `{"digest":"d","net0":"virtio=AA:BB:CC:DD:EE:FF,bridge=vmbr0","cores":2,"cpulimit":"1.5"}`, ""},
		{"config indexed key wrong type", config, `{"digest":"d","net0":5}`, "data.net0: got the number 5, want a string"},
		{"config boolean as text", config, `{"digest":"d","onboot":"yes"}`, `data.onboot: got the string "yes"`},
		{"config without digest", config, `{"cores":2}`, `property "digest" is missing`},
	} {
		errs := validateAnswer(tc.schema, []byte(tc.data))
		switch {
		case tc.want == "" && len(errs) > 0:
			t.Errorf("%s: got %v; want valid", tc.name, errs)
		case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], tc.want)):
			t.Errorf("%s: got %v; want one violation containing %q", tc.name, errs, tc.want)
		}
	}
}

// TestEveryRouteHasReturnSchema: every call the fake answers (each power action on
// its own) is in the checked subset with a return schema whose every part has a type
// the validator knows, so no answer goes unchecked.
func TestEveryRouteHasReturnSchema(t *testing.T) {
	known := map[string]bool{"null": true, "string": true, "integer": true, "number": true, "boolean": true, "object": true, "array": true}
	var walk func(where string, sv *schemaValue)
	walk = func(where string, sv *schemaValue) {
		if !known[sv.Type] {
			t.Errorf("%s: type %q", where, sv.Type)
		}
		for name, p := range sv.Properties {
			walk(where+"."+name, p)
		}
		if sv.Items != nil {
			walk(where+"[]", sv.Items)
		}
	}
	for _, rt := range routes {
		var params []map[string]string
		if strings.HasSuffix(rt.pattern, "/status/{action}") {
			for _, a := range []string{"start", "stop", "shutdown", "reboot", "reset", "suspend", "resume"} {
				params = append(params, map[string]string{"action": a})
			}
		} else {
			params = append(params, nil)
		}
		for _, p := range params {
			sm, name, ok := schemaFor(rt.method, rt.pattern, p)
			if !ok || sm.Returns == nil {
				t.Errorf("%s: no return schema", name)
				continue
			}
			if !ReturnSchema(name) {
				t.Errorf("ReturnSchema(%q) = false", name)
			}
			walk(name, sm.Returns)
		}
	}
	if ReturnSchema("GET /nodes/{node}/qemu/{vmid}/pending") {
		t.Error("ReturnSchema answers true for a call outside the subset")
	}
}

// TestFakeAnswersMatchReturnSchema calls every read the fake answers, the PVE 8 and 9
// layouts both, and the writes whose answers carry data, and checks that none was
// refused by the return schema: status/current carries "ha", a single firewall rule
// answers enable as an integer, a boolean config key set as "yes" reads back as 1.
func TestFakeAnswersMatchReturnSchema(t *testing.T) {
	for _, layout := range []string{"pve9", "pve8"} {
		t.Run(layout, func(t *testing.T) {
			s := New(Config{RRDLayout: layout, TaskPolls: -1})
			defer s.Close()
			c := newClient(t, s)
			id, err := s.AddVM(VMSpec{Status: "running"})
			if err != nil {
				t.Fatal(err)
			}
			vm := "/nodes/pve1/qemu/" + strconv.Itoa(id)
			if err := s.SetFirewallRules(id, []map[string]string{{"type": "in", "action": "ACCEPT", "proto": "tcp", "dport": "22", "enable": "1", "log": "nolog"}}); err != nil {
				t.Fatal(err)
			}
			want := func(code int, data json.RawMessage, msg string) json.RawMessage {
				t.Helper()
				if code != 200 {
					t.Fatalf("got %d %q", code, msg)
				}
				return data
			}
			want(c.do("PUT", vm+"/config", url.Values{"onboot": {"yes"}, "cpulimit": {"1.5"}, "tablet": {"off"}}))
			c.wait("pve1", want(c.do("POST", "/nodes/pve1/vzdump", url.Values{"vmid": {strconv.Itoa(id)}, "storage": {"local"}, "mode": {"snapshot"}})))
			for _, g := range []struct {
				path string
				q    url.Values
			}{
				{"/version", nil},
				{"/cluster/resources", nil},
				{"/cluster/resources", url.Values{"type": {"vm"}}},
				{"/cluster/nextid", nil},
				{vm + "/config", nil},
				{vm + "/status/current", nil},
				{vm + "/firewall/rules", nil},
				{vm + "/firewall/rules/0", nil},
				{vm + "/firewall/options", nil},
				{vm + "/migrate", url.Values{"target": {"pve2"}}},
				{vm + "/rrddata", url.Values{"timeframe": {"day"}, "cf": {"AVERAGE"}}},
				{"/nodes/pve1/rrddata", url.Values{"timeframe": {"week"}, "cf": {"MAX"}}},
				{"/nodes/pve1/storage/local/content", url.Values{"content": {"backup"}, "vmid": {strconv.Itoa(id)}}},
			} {
				want(c.do("GET", g.path, g.q))
			}
			var cfg map[string]any
			if err := json.Unmarshal(want(c.do("GET", vm+"/config", nil)), &cfg); err != nil {
				t.Fatal(err)
			}
			if cfg["onboot"] != 1.0 || cfg["tablet"] != 0.0 || cfg["cpulimit"] != "1.5" {
				t.Errorf("config onboot, tablet, cpulimit = %#v, %#v, %#v; want 1, 0 and \"1.5\" as Proxmox answers them", cfg["onboot"], cfg["tablet"], cfg["cpulimit"])
			}
			want(c.do("POST", vm+"/termproxy", nil))
			user, pass := s.ConsoleUser()
			want(c.do("POST", "/access/ticket", url.Values{"username": {user}, "password": {pass}}))
			c.wait("pve1", want(c.do("POST", vm+"/status/stop", nil)))
			want(c.do("GET", vm+"/migrate", url.Values{"target": {"pve2"}}))
			for _, r := range s.Requests() {
				if r.Schema == "" || !ReturnSchema(r.Schema) {
					t.Errorf("%s %s: no return schema", r.Method, r.Path)
				}
				if r.Status != 200 || r.AnswerErrors != nil {
					t.Errorf("%s %s: %d %v", r.Method, r.Path, r.Status, r.AnswerErrors)
				}
			}
		})
	}
}

// TestInvalidAnswerIs500 shows what the check does with an answer real Proxmox could
// not give: a 500 naming the violation, recorded on the request; with SkipAnswerCheck
// the answer goes out as it is.
func TestInvalidAnswerIs500(t *testing.T) {
	for _, skip := range []bool{false, true} {
		rec := httptest.NewRecorder()
		c := &call{s: &Server{cfg: Config{SkipAnswerCheck: skip}}, w: rec, method: "GET",
			route: "/nodes/{node}/qemu/{vmid}/status/current", p: map[string]string{"node": "pve1", "vmid": "100"}}
		c.ok(map[string]any{"vmid": "100", "status": "running", "ha": map[string]any{"managed": 0}})
		switch {
		case skip && (rec.Code != 200 || c.answerErrs != nil):
			t.Errorf("skipped check: got %d %v; want 200", rec.Code, c.answerErrs)
		case !skip && (rec.Code != 500 || len(c.answerErrs) != 1 || !strings.Contains(rec.Body.String(), "Result verification failed: data.vmid")):
			t.Errorf("got %d %v %s; want 500 naming data.vmid", rec.Code, c.answerErrs, rec.Body)
		}
	}
}
