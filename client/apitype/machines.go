package apitype

// MachineChange is the body of UpdateMachine: fields left zero keep their value.
// TenantID (operators) moves the machine to another tenant, or, Null, takes it from
// its tenant.
type MachineChange struct {
	Name     Optional[string] `json:"name,omitzero"`
	TenantID Optional[string] `json:"tenant_id,omitzero"`
}
