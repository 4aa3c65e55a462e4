package pvefake

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// apischema.json is the checked subset of Proxmox VE's API schema: one entry per path
// and method of every call vmplane's driver makes, in the shape of pve-docs'
// apidata.js. The calls (SchemaPaths lists them): /version, /access/ticket,
// /cluster/resources and nextid; a node's rrddata, task list, task status, vzdump and storage
// content (list, delete), download-url and upload; a VM's create/restore, delete, config (GET, POST, PUT),
// status/current and power actions, clone, migrate (GET, POST), resize, rrddata,
// termproxy, vncwebsocket, firewall rules (list, one, insert, update, delete),
// firewall options (GET, PUT), firewall IP sets (list, create; a set's entries:
// list, add, delete the set; one entry: read, update, remove) and snapshots (list,
// create, rollback, delete).
//
//   - "params": the parameters Proxmox accepts, with their types and enums (copied
//     from the API schema Proxmox VE publishes, pve-docs 9.1.3's apidata.js; /version,
//     /access/ticket, the storage content calls and upload written for the fake, which
//     that subset leaves out; upload's from pve-storage's API2::Storage::Status; the
//     IP set calls from pve-firewall's API2::Firewall::IPSet).
//     checkSchema refuses a call that breaks them, as pveproxy does.
//   - "returns": what Proxmox answers in "data" (type, properties, items, optional,
//     enum), written for the fake from the PVE 8/9 API and docs/proxmox.md
//     (the reference subset has no returns). With Config.SkipAnswerCheck unset, every
//     answer is checked against it before it is sent (checkAnswer): strings are JSON
//     strings, integers and numbers JSON numbers (an integer without a fraction),
//     booleans the integers 0 or 1, non-optional properties present and not null, enum
//     values in their enum, array items and nested properties checked alike. Undeclared
//     properties are allowed (Proxmox's returns allow them unless
//     "additionalProperties" is 0). The one extension, "x-perl-string": 1, marks a
//     number that real Proxmox answers as a JSON string because Perl stringified it
//     (/cluster/nextid, and numbers such as cpulimit in a VM's config); there a string
//     holding a number of the declared type passes too.
//
//go:embed apischema.json
var apiSchemaJSON []byte

// schemaParam is one parameter of a method.
type schemaParam struct {
	Type     string   `json:"type"`
	Enum     []string `json:"enum"`
	Optional int      `json:"optional"`
}

// schemaMethod is one method of a path.
type schemaMethod struct {
	Params  map[string]schemaParam `json:"params"`
	Returns *schemaValue           `json:"returns"`
}

// apiSchema is the parsed schema: path → method → parameters.
var apiSchema = func() map[string]map[string]schemaMethod {
	var s map[string]map[string]schemaMethod
	if err := json.Unmarshal(apiSchemaJSON, &s); err != nil {
		panic("pvefake: apischema.json: " + err.Error())
	}
	return s
}()

// SchemaPaths lists the method and path ("POST /nodes/{node}/qemu/{vmid}/config") of
// every call the embedded schema describes, sorted.
func SchemaPaths() []string {
	var out []string
	for p, ms := range apiSchema {
		for m := range ms {
			out = append(out, m+" "+p)
		}
	}
	sort.Strings(out)
	return out
}

// schemaFor returns the schema of a routed call, resolving the fake's
// "status/{action}" to the action's own path as the schema names it.
func schemaFor(method, route string, p map[string]string) (schemaMethod, string, bool) {
	path := route
	if strings.HasSuffix(route, "/status/{action}") {
		path = strings.TrimSuffix(route, "{action}") + p["action"]
	}
	m, ok := apiSchema[path][method]
	return m, method + " " + path, ok
}

// indexedParam matches the "net[n]" style names of the schema to net0, net1, ...
var indexedParam = regexp.MustCompile(`^([a-z]+)\d+$`)

// checkSchema verifies a call's parameters (query and body, path parameters aside)
// against the schema, as pveproxy does before any handler runs: an undeclared
// parameter, a value outside its enum, a non-integer integer, a non-boolean boolean or
// a missing required parameter is a 400 naming it. It reports false when it answered.
// Calls the schema does not describe pass.
func (c *call) checkSchema() bool {
	sm, _, ok := schemaFor(c.method, c.route, c.p)
	if !ok {
		return true
	}
	errs := map[string]string{}
	for name, vals := range c.form {
		if _, isPath := c.p[name]; isPath {
			continue
		}
		sp, ok := sm.Params[name]
		if !ok {
			if m := indexedParam.FindStringSubmatch(name); m != nil {
				sp, ok = sm.Params[m[1]+"[n]"]
			}
		}
		if !ok {
			errs[name] = "property is not defined in schema and the schema does not allow additional properties"
			continue
		}
		v := ""
		if len(vals) > 0 {
			v = vals[len(vals)-1]
		}
		if msg := sp.check(v); msg != "" {
			errs[name] = msg
		}
	}
	for name, sp := range sm.Params {
		if _, isPath := c.p[name]; isPath || sp.Optional == 1 || strings.HasSuffix(name, "[n]") {
			continue
		}
		if _, given := c.form[name]; !given {
			errs[name] = "property is missing and it is not optional"
		}
	}
	if len(errs) == 0 {
		return true
	}
	c.status = 400
	c.w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	c.w.WriteHeader(400)
	_ = json.NewEncoder(c.w).Encode(map[string]any{"data": nil, "errors": errs, "message": "Parameter verification failed.\n"})
	return false
}

// check verifies one value against its declared type and enum.
func (sp schemaParam) check(v string) string {
	switch sp.Type {
	case "integer":
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return fmt.Sprintf("type check ('integer') failed - got '%s'", v)
		}
	case "number":
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return fmt.Sprintf("type check ('number') failed - got '%s'", v)
		}
	case "boolean":
		switch strings.ToLower(v) {
		case "0", "1", "true", "false", "yes", "no", "on", "off":
		default:
			return fmt.Sprintf("type check ('boolean') failed - got '%s'", v)
		}
	}
	if len(sp.Enum) > 0 {
		for _, e := range sp.Enum {
			if e == v {
				return ""
			}
		}
		return fmt.Sprintf("value '%s' does not have a value in the enumeration '%s'", v, strings.Join(sp.Enum, ", "))
	}
	return ""
}
