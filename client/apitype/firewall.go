package apitype

// FirewallRulePatch is the body of PatchFirewallRule: fields left zero keep their
// value; MachineID, Source, Destination, Port and Comment may be Null, which clears
// them (a rule without machine applies to all the tenant's machines).
type FirewallRulePatch struct {
	Direction   Optional[string] `json:"direction,omitzero"`
	Action      Optional[string] `json:"action,omitzero"`
	Protocol    Optional[string] `json:"protocol,omitzero"`
	MachineID   Optional[string] `json:"machine_id,omitzero"`
	Source      Optional[string] `json:"source,omitzero"`
	Destination Optional[string] `json:"destination,omitzero"`
	Port        Optional[string] `json:"port,omitzero"`
	Enabled     Optional[bool]   `json:"enabled,omitzero"`
	Position    Optional[int64]  `json:"position,omitzero"`
	Comment     Optional[string] `json:"comment,omitzero"`
}
