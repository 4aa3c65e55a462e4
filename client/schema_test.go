package client

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/app/apptest"
)

// The client's types are its own copies of the API's JSON (it imports none of the
// server's packages), so nothing but this test keeps the two in step. It reads the
// OpenAPI document of a real server and compares it, schema by schema, with the Go
// types the client sends and reads.

// modelled pairs each schema of the API document with the client type that mirrors
// it. patch marks the merge-patch bodies: their nullable fields must be Optional, so
// that the client can send the null that clears them.
var modelled = []struct {
	schema string
	typ    reflect.Type
	patch  bool
}{
	// Answers.
	{"Tenant", typeOf[Tenant](), false},
	{"User", typeOf[User](), false},
	{"Template", typeOf[Template](), false},
	{"Machine", typeOf[Machine](), false},
	{"Task", typeOf[Task](), false},
	{"TaskReply", typeOf[taskReply](), false},
	{"Provisioned", typeOf[provisioned](), false},
	{"FirewallRule", typeOf[FirewallRule](), false},
	{"Overview", typeOf[Overview](), false},
	{"HealthReply", typeOf[Health](), false},
	{"ClusterHealth", typeOf[ClusterHealth](), false},
	{"MemberStatus", typeOf[MemberStatus](), false},
	{"TokenReply", typeOf[tokenReply](), false},
	{"Problem", typeOf[problem](), false},
	{"PowerSchedule", typeOf[PowerSchedule](), false},
	{"BackupSchedule", typeOf[BackupSchedule](), false},
	{"Backup", typeOf[Backup](), false},
	{"HealthCheck", typeOf[HealthCheck](), false},
	{"Alert", typeOf[Alert](), false},
	{"MonitoringOverview", typeOf[MonitoringOverview](), false},
	{"FaultyDeployments", typeOf[faultyDeployments](), false},
	{"ClusterForecast", typeOf[ClusterForecast](), false},
	{"Trends", typeOf[Trends](), false},
	{"UsageGraph", typeOf[UsageGraph](), false},
	{"ClusterUsage", typeOf[ClusterUsage](), false},
	{"Node", typeOf[Node](), false},
	{"SyncResult", typeOf[SyncResult](), false},
	{"ConsoleReply", typeOf[Console](), false},
	{"PageTenant", typeOf[Page[Tenant]](), false},
	{"PageUser", typeOf[Page[User]](), false},
	{"PageTemplate", typeOf[Page[Template]](), false},
	{"PageMachine", typeOf[Page[Machine]](), false},
	{"PageTask", typeOf[Page[Task]](), false},
	{"PageFirewallRule", typeOf[Page[FirewallRule]](), false},
	{"PagePowerSchedule", typeOf[Page[PowerSchedule]](), false},
	{"PageBackupSchedule", typeOf[Page[BackupSchedule]](), false},
	{"PageBackup", typeOf[Page[Backup]](), false},
	{"PageHealthCheck", typeOf[Page[HealthCheck]](), false},
	{"PageAlert", typeOf[Page[Alert]](), false},
	{"PageNode", typeOf[Page[Node]](), false},
	{"PageSessionInfo", typeOf[Page[Session]](), false},
	{"SessionInfo", typeOf[Session](), false},
	{"TOTPEnrolment", typeOf[TOTPEnrolment](), false},
	{"MachineDetail", typeOf[MachineDetail](), false},
	{"APIKey", typeOf[APIKey](), false},
	{"AuditEntry", typeOf[AuditEntry](), false},
	{"PageAuditEntry", typeOf[Page[AuditEntry]](), false},
	{"NewAPIKey", typeOf[NewAPIKey](), false},
	{"PageAPIKey", typeOf[Page[APIKey]](), false},
	{"Webhook", typeOf[Webhook](), false},
	{"NewWebhook", typeOf[NewWebhook](), false},
	{"PageWebhook", typeOf[Page[Webhook]](), false},
	{"Delivery", typeOf[WebhookDelivery](), false},
	{"PageDelivery", typeOf[Page[WebhookDelivery]](), false},
	{"Attempt", typeOf[WebhookAttempt](), false},
	{"Snapshot", typeOf[Snapshot](), false},
	{"PageSnapshot", typeOf[Page[Snapshot]](), false},
	{"RecoveryCodeList", typeOf[recoveryCodes](), false},
	{"LoginLinkReply", typeOf[LoginLink](), false},
	{"OIDCProviders", typeOf[oidcProviders](), false},
	{"OIDCProvider", typeOf[OIDCProvider](), false},
	{"Plan", typeOf[Plan](), false},
	{"PagePlan", typeOf[Page[Plan]](), false},
	{"PlanCapacity", typeOf[PlanCapacity](), false},
	{"Pool", typeOf[IPPool](), false},
	{"PagePool", typeOf[Page[IPPool]](), false},
	{"Location", typeOf[Location](), false},
	{"Proxmox", typeOf[LocationProxmox](), false},
	{"PageLocation", typeOf[Page[Location]](), false},
	{"OfferedLocation", typeOf[OfferedLocation](), false},
	{"PageOfferedLocation", typeOf[Page[OfferedLocation]](), false},
	{"UsageLine", typeOf[UsageLine](), false},
	{"UsageReport", typeOf[UsageReport](), false},
	{"MachineTraffic", typeOf[MachineTraffic](), false},
	{"TrafficOverage", typeOf[TrafficOverage](), false},
	{"NodeRoom", typeOf[NodeRoom](), false},
	{"Overcommit", typeOf[Overcommit](), false},
	{"ISO", typeOf[ISO](), false},
	{"PageISO", typeOf[Page[ISO]](), false},
	{"ISOAdded", typeOf[ISOAdded](), false},
	{"MountedISO", typeOf[MountedISO](), false},

	// Bodies.
	{"LoginRequest", typeOf[loginRequest](), false},
	{"RefreshRequest", typeOf[refreshRequest](), false},
	{"PasswordChange", typeOf[passwordChange](), false},
	{"PasswordResetRequest", typeOf[passwordResetRequest](), false},
	{"PasswordResetConfirm", typeOf[passwordResetConfirm](), false},
	{"TOTPCode", typeOf[totpCode](), false},
	{"SnapshotRequest", typeOf[SnapshotSpec](), false},
	{"APIKeyCreate", typeOf[APIKeySpec](), false},
	{"BackupRequest", typeOf[BackupSpec](), false},
	{"RestoreBody", typeOf[restoreSpec](), false},
	{"RestoreNewRequest", typeOf[RestoreNewSpec](), false},
	{"TOTPLogin", typeOf[totpLogin](), false},
	{"LoginLinkRequest", typeOf[loginLinkRequest](), false},
	{"TenantCreate", typeOf[TenantCreate](), false},
	{"TenantChange", typeOf[TenantChange](), false},
	{"Suspension", typeOf[Suspension](), false},
	{"TenantSuspend", typeOf[SuspendSpec](), false},
	{"TenantUnsuspend", typeOf[unsuspendSpec](), false},
	{"BillingSuspension", typeOf[BillingSuspension](), false},
	{"BillingSuspend", typeOf[SuspendSpec](), false},
	{"BillingUnsuspend", typeOf[unsuspendSpec](), false},
	{"UserCreate", typeOf[UserCreate](), false},
	{"UserChange", typeOf[UserChange](), false},
	{"MachineSpec", typeOf[MachineSpec](), false},
	{"ResourceChange", typeOf[Resize](), false},
	{"MachinePatch", typeOf[MachineChange](), true},
	{"RuleBody", typeOf[FirewallRuleSpec](), false},
	{"RuleBodyPatch", typeOf[FirewallRuleSpec](), false}, // UpdateFirewallRule: sets, never clears
	{"RuleBodyPatch", typeOf[FirewallRulePatch](), true},
	{"PowerScheduleCreate", typeOf[PowerScheduleSpec](), false},
	{"PowerScheduleBodyPatch", typeOf[PowerScheduleChange](), true},
	{"BackupScheduleCreate", typeOf[BackupScheduleSpec](), false},
	{"BackupScheduleBodyPatch", typeOf[BackupScheduleChange](), true},
	{"HealthCheckSpec", typeOf[HealthCheckSpec](), false},
	{"HealthCheckChange", typeOf[HealthCheckChange](), true},
	{"AlertPatch", typeOf[alertChange](), true},
	{"ConfigRequestPatch", typeOf[MachineConfig](), true},
	{"NetworkRequest", typeOf[networkChange](), false},
	{"DiskRequest", typeOf[DiskSpec](), false},
	{"MigrateRequest", typeOf[migration](), false},
	{"ReinstallRequest", typeOf[Reinstall](), false},
	{"PlanSpec", typeOf[PlanSpec](), false},
	{"WebhookSpec", typeOf[WebhookSpec](), false},
	{"WebhookChange", typeOf[WebhookChange](), true},
	{"PlanChange", typeOf[PlanChange](), true},
	{"PlanMove", typeOf[planMove](), false},
	{"PoolSpec", typeOf[IPPoolSpec](), false},
	{"LocationSpec", typeOf[LocationSpec](), false},
	{"ProxmoxSpec", typeOf[LocationProxmoxSpec](), false},
	{"LocationChange", typeOf[LocationChange](), true},
	{"PoolChange", typeOf[IPPoolChange](), true},
	{"NewISO", typeOf[ISOSpec](), false},
	{"MediaRequest", typeOf[mediaRequest](), false},
	{"BootOrderRequest", typeOf[bootOrderRequest](), false},
	{"RescueRequest", typeOf[rescueRequest](), false},
	{"AddressRequest", typeOf[AddressRequest](), false},
}

// notModelled are the schemas of the document no client type mirrors, each with why.
// A new schema must be modelled or named here: the test fails otherwise.
var notModelled = map[string]string{
	"Health":             "Health.Checks is kept as raw JSON: the checks a server reports are its own",
	"MachineCreate":      "CreateMachine sends MachineSpec to /api/client/machines with ?tenant_id (ForTenant)",
	"PowerScheduleBody":  "CreateMachinePowerSchedule sends PowerScheduleSpec without machine_id (its PowerScheduleCreate check covers the rest)",
	"BackupScheduleBody": "CreateMachineBackupSchedule sends BackupScheduleSpec without machine_id (its BackupScheduleCreate check covers the rest)",
	"BrowserTokenReply":  "the web console's sign-in answers it to a browser; the Go client signs in with POST /api/auth/login",
	"PTRRequest":         "SetMachineAddressPTR takes the one field, ptr, as an argument",
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// jsonSchema is the part of a JSON Schema the comparison reads.
type jsonSchema struct {
	Ref        string                 `json:"$ref"`
	Type       json.RawMessage        `json:"type"` // "string" or ["string", "null"]
	Properties map[string]*jsonSchema `json:"properties"`
	Required   []string               `json:"required"`
	Items      *jsonSchema            `json:"items"`
	AnyOf      []*jsonSchema          `json:"anyOf"`
	OneOf      []*jsonSchema          `json:"oneOf"`
	AddProps   json.RawMessage        `json:"additionalProperties"`
}

// types are the JSON types the schema allows ("null" among them when nullable).
func (s *jsonSchema) types() []string {
	var one string
	if json.Unmarshal(s.Type, &one) == nil && one != "" {
		return []string{one}
	}
	var many []string
	json.Unmarshal(s.Type, &many)
	return many
}

type schemaCheck struct {
	t       *testing.T
	schemas map[string]*jsonSchema
	covered map[string]bool
}

// TestTypesMatchOpenAPI compares the client's types with the OpenAPI document of a real
// server.
func TestTypesMatchOpenAPI(t *testing.T) {
	t.Parallel()
	srv, err := apptest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	c, err := New(srv.Base)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	raw, err := c.OpenAPI(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkDocument(t, raw)
}

// TestTypesMatchCheckedInDocument compares the client's types with the document
// checked in for the generated client as well (clientcheck/openapi.json, which its
// own test keeps equal to the server's), when the repository has it.
func TestTypesMatchCheckedInDocument(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../clientcheck/openapi.json")
	if err != nil {
		t.Skip("no clientcheck/openapi.json:", err)
	}
	checkDocument(t, raw)
}

// checkDocument compares every modelled type with its schema in the OpenAPI document
// raw, and fails for schemas neither modelled nor named in notModelled.
func checkDocument(t *testing.T, raw []byte) {
	var doc struct {
		Components struct {
			Schemas map[string]*jsonSchema `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	sc := &schemaCheck{t: t, schemas: doc.Components.Schemas, covered: map[string]bool{}}
	for _, m := range modelled {
		s, ok := sc.schemas[m.schema]
		if !ok {
			t.Errorf("schema %s of %v is not in the API document", m.schema, m.typ)
			continue
		}
		sc.covered[m.schema] = true
		sc.compare(m.schema, m.typ, s, m.patch)
	}
	var left []string
	for name := range sc.schemas {
		if _, why := notModelled[name]; !sc.covered[name] && !why {
			left = append(left, name)
		}
	}
	sort.Strings(left)
	for _, name := range left {
		t.Errorf("schema %s of the API document has no client type: model it, or say why in notModelled", name)
	}
	for name := range notModelled {
		if _, ok := sc.schemas[name]; !ok {
			t.Errorf("notModelled names %s, which the API document no longer has", name)
		}
	}
}

// resolve follows $ref, and picks the schema of an anyOf/oneOf that is not null
// ("Machine or null"); named is the schema's name when it has one.
func (sc *schemaCheck) resolve(s *jsonSchema) (out *jsonSchema, named string, nullable bool) {
	for {
		switch {
		case s.Ref != "":
			named = s.Ref[strings.LastIndex(s.Ref, "/")+1:]
			sc.covered[named] = true
			next, ok := sc.schemas[named]
			if !ok {
				sc.t.Errorf("dangling reference %s", s.Ref)
				return s, named, nullable
			}
			s = next
		case len(s.AnyOf) > 0 || len(s.OneOf) > 0:
			var pick *jsonSchema
			for _, alt := range append(s.AnyOf, s.OneOf...) {
				if ts := alt.types(); len(ts) == 1 && ts[0] == "null" {
					nullable = true
					continue
				}
				pick = alt
			}
			if pick == nil {
				return s, named, nullable
			}
			s = pick
		default:
			return s, named, nullable || slices.Contains(s.types(), "null")
		}
	}
}

var (
	timeType = reflect.TypeFor[time.Time]()
	rawType  = reflect.TypeFor[json.RawMessage]()
)

// optionalOf reports whether t is an Optional[T], and T.
func optionalOf(t reflect.Type) (reflect.Type, bool) {
	if t.Kind() == reflect.Struct && t.PkgPath() == typeOf[Optional[int]]().PkgPath() && strings.HasPrefix(t.Name(), "Optional[") {
		f, _ := t.FieldByName("value")
		return f.Type, true
	}
	return t, false
}

// jsonFields are the JSON members of struct t by name, the fields of embedded
// structs included, as encoding/json sees them.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// compare checks Go type t against schema s at path: the JSON type, and for objects
// that every field of t is a property of s, that every required property of s is a
// field of t, and (patch) that nullable properties can be sent as null.
func (sc *schemaCheck) compare(path string, t reflect.Type, s *jsonSchema, patch bool) {
	s, named, _ := sc.resolve(s)
	if named != "" {
		path += " (" + named + ")"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if inner, ok := optionalOf(t); ok {
		t = inner
	}
	if t == rawType || t.Kind() == reflect.Interface {
		return // any JSON
	}
	types := s.types()
	has := func(want string) bool { return slices.Contains(types, want) }
	if len(types) == 0 {
		if len(s.Properties) == 0 {
			return // the schema allows anything (Task.result)
		}
		types = []string{"object"}
	}
	switch {
	case t == timeType:
		if !has("string") {
			sc.t.Errorf("%s: a time in Go, %v in the document", path, types)
		}
	case t.Kind() == reflect.String:
		if !has("string") {
			sc.t.Errorf("%s: a string in Go, %v in the document", path, types)
		}
	case t.Kind() == reflect.Bool:
		if !has("boolean") {
			sc.t.Errorf("%s: a bool in Go, %v in the document", path, types)
		}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		if !has("integer") {
			sc.t.Errorf("%s: an integer in Go, %v in the document", path, types)
		}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		if !has("number") && !has("integer") {
			sc.t.Errorf("%s: a number in Go, %v in the document", path, types)
		}
	case t.Kind() == reflect.Slice:
		if !has("array") || s.Items == nil {
			sc.t.Errorf("%s: a slice in Go, %v in the document", path, types)
			return
		}
		sc.compare(path+"[]", t.Elem(), s.Items, patch)
	case t.Kind() == reflect.Map:
		if !has("object") {
			sc.t.Errorf("%s: a map in Go, %v in the document", path, types)
		}
	case t.Kind() == reflect.Struct:
		if !has("object") {
			sc.t.Errorf("%s: a struct in Go, %v in the document", path, types)
			return
		}
		fields := jsonFields(t)
		for name, f := range fields {
			p, ok := s.Properties[name]
			if !ok {
				sc.t.Errorf("%s: field %s.%s (json %q) is not in the document", path, t.Name(), f.Name, name)
				continue
			}
			if _, nullable := sc.nullable(p); patch && nullable {
				if _, ok := optionalOf(f.Type); !ok {
					sc.t.Errorf("%s: %q may be null in a patch, but %s.%s is %v: make it an Optional", path, name, t.Name(), f.Name, f.Type)
				}
			}
			sc.compare(path+"."+name, f.Type, p, false)
		}
		for _, name := range s.Required {
			if _, ok := fields[name]; !ok {
				sc.t.Errorf("%s: required %q has no field in %v", path, name, t)
			}
		}
	default:
		sc.t.Errorf("%s: Go type %v has no JSON counterpart", path, t)
	}
}

func (sc *schemaCheck) nullable(s *jsonSchema) (*jsonSchema, bool) {
	r, _, nullable := sc.resolve(s)
	return r, nullable
}
