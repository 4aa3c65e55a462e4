package clientarea

import (
	"github.com/vmplane/vmplane/actors/tenants"
	"github.com/vmplane/vmplane/httpedge/api"
)

// RuleBody is a firewall rule as written by clients; in a PATCH, null clears
// machine_id, port, source, destination and comment.
type RuleBody struct {
	MachineID   *string `json:"machine_id,omitempty" openapi:"nullable,minLength=1,limit=id"`
	Direction   *string `json:"direction,omitempty" openapi:"required,enum=in|out"`
	Action      *string `json:"action,omitempty" openapi:"required,enum=accept|drop|reject"`
	Protocol    *string `json:"protocol,omitempty" openapi:"required,enum=tcp|udp|icmp|ipv6-icmp|any"`
	Port        *string `json:"port,omitempty" openapi:"nullable,limit=rule.value"`
	Source      *string `json:"source,omitempty" openapi:"nullable,limit=rule.value"`
	Destination *string `json:"destination,omitempty" openapi:"nullable,limit=rule.value"`
	Enabled     *bool   `json:"enabled,omitempty"`
	Position    *int    `json:"position,omitempty" openapi:"minimum=1"`
	Comment     *string `json:"comment,omitempty" openapi:"nullable,limit=rule.comment"`
	TenantID    *string `json:"tenant_id,omitempty" openapi:"limit=id"`
}

// DecodeRule decodes a rule body strictly and notes which nullable fields were null.
func DecodeRule(c *api.Call) (tenants.RuleInput, error) {
	var b RuleBody
	if err := c.Decode(&b); err != nil {
		return tenants.RuleInput{}, err
	}
	in := tenants.RuleInput{MachineID: b.MachineID, Direction: b.Direction, Action: b.Action, Protocol: b.Protocol,
		Port: b.Port, Source: b.Source, Destination: b.Destination, Enabled: b.Enabled, Position: b.Position, Comment: b.Comment}
	for _, f := range []string{"machine_id", "port", "source", "destination"} {
		if c.Null(f) {
			in.Clear = append(in.Clear, f)
		}
	}
	if c.Null("comment") {
		// A rule without a comment has the empty one.
		empty := ""
		in.Comment = &empty
	}
	return in, nil
}
