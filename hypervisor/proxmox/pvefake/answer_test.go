package pvefake

import (
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
