package client

import (
	"context"
	"iter"
	"net/http"
)

// The firewall calls beyond the client area's list, create, update and delete (in
// api.go): one rule by id, a patch that can clear fields, and the operators' list of
// every tenant's rules.

// GetFirewallRule reads one firewall rule.
func (c *Client) GetFirewallRule(ctx context.Context, id string) (*FirewallRule, error) {
	return getRecord[FirewallRule](ctx, c, "/api/resources/firewall-rules/"+esc(id))
}

// PatchFirewallRule changes a rule as p says, clearing the fields p sets to Null;
// UpdateFirewallRule cannot clear a field.
func (c *Client) PatchFirewallRule(ctx context.Context, id string, p FirewallRulePatch) (*FirewallRule, error) {
	return callFor[FirewallRule](ctx, c, http.MethodPatch, "/api/client/firewall/rules/"+esc(id), c.clientQuery(), p)
}

// AllFirewallRulesPage reads one page of every firewall rule the caller may see, in
// creation order: for an operator those of every tenant; for a tenant's user its
// tenant's (FirewallRules lists one tenant's in position order).
func (c *Client) AllFirewallRulesPage(ctx context.Context, opt ListOptions) (Page[FirewallRule], error) {
	return getPage[FirewallRule](ctx, c, "/api/resources/firewall-rules", opt.values())
}

// AllFirewallRules yields every firewall rule the caller may see.
func (c *Client) AllFirewallRules(ctx context.Context, opt ListOptions) iter.Seq2[FirewallRule, error] {
	return all(ctx, opt, c.AllFirewallRulesPage)
}
