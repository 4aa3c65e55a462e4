package tenants

import (
	"context"
	"strconv"
	"strings"

	"github.com/vmplane/vmplane/actors/kit"
)

// rulePage answers a listRules: a page of the tenant's rules in position order (a
// machine's set when MachineID is set). Rules have positions, not keys, so a cursor is
// "<position>.<id>" of the page's last rule: the next page starts after that rule
// wherever it is now, or, when it was deleted, at the position it had (the rules
// after it moved up by one).
func (e *tenantEntity) rulePage(m *listRules) any {
	start := 0
	if m.Cursor != "" {
		pos, id, ok := strings.Cut(m.Cursor, ".")
		n, err := strconv.Atoi(pos)
		if !ok || err != nil || n < 1 {
			return kit.BadCursor()
		}
		start = n - 1
		if r, ok := e.ruleIDs[id]; ok {
			start = r.Position
		}
	}
	page, last := kit.PageSlice(e.rules, start, m.Limit, func(r *FirewallRule) bool {
		return m.MachineID == nil || r.MachineID == nil || *r.MachineID == *m.MachineID
	})
	out := Rules{Items: make([]FirewallRule, len(page))}
	for i, r := range page {
		out.Items[i] = *r
	}
	if last >= 0 {
		out.Next = strconv.Itoa(e.rules[last].Position) + "." + e.rules[last].ID
	}
	return out
}

// Page returns a page of a tenant's rules in position order, optionally only a
// machine's set, after the cursor (the next cursor of the previous page).
func (f Firewall) Page(ctx context.Context, tenant string, machineID *string, cursor string, limit int) ([]FirewallRule, string, error) {
	r, err := kit.Ask[Rules](ctx, f.t.kind, tenant, &listRules{MachineID: machineID, Cursor: cursor, Limit: limit})
	return r.Items, r.Next, err
}
