package proxmox

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// fwRule is one Proxmox firewall rule as GET .../firewall/rules lists it. go-proxmox's
// FirewallRule has no digest field, and the digest is what guards the list.
type fwRule struct {
	Pos     int    `json:"pos"`
	Digest  string `json:"digest"`
	Type    string `json:"type"`
	Action  string `json:"action"`
	Proto   string `json:"proto"`
	Dport   string `json:"dport"`
	Sport   string `json:"sport"`
	Source  string `json:"source"`
	Dest    string `json:"dest"`
	Macro   string `json:"macro"`
	Iface   string `json:"iface"`
	Log     string `json:"log"`
	Comment string `json:"comment"`
	Enable  any    `json:"enable"`
}

// params are the fields to create the rule again.
func (r fwRule) params() map[string]any {
	p := map[string]any{"type": r.Type, "action": r.Action, "enable": boolInt(truthy(r.Enable))}
	for k, v := range map[string]string{"proto": r.Proto, "dport": r.Dport, "sport": r.Sport, "source": r.Source,
		"dest": r.Dest, "macro": r.Macro, "iface": r.Iface, "log": r.Log, "comment": r.Comment} {
		if v != "" {
			p[k] = v
		}
	}
	return p
}

// truthy reads a Proxmox boolean that may come as 1, "1" or true.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case float64:
		return x != 0
	case string:
		return x == "1" || x == "true" || x == "on" || x == "yes"
	}
	return false
}

// ruleParams maps one of our rules to Proxmox's fields: direction → type in/out,
// action → ACCEPT/DROP/REJECT, protocol (any → none), port → dport, source, dest,
// enable, comment.
func ruleParams(r hypervisor.FirewallRule) map[string]any {
	p := map[string]any{"type": r.Direction, "action": strings.ToUpper(r.Action), "enable": boolInt(r.Enabled)}
	if r.Protocol != "" && r.Protocol != "any" {
		p["proto"] = r.Protocol
	}
	if r.Port != "" {
		p["dport"] = r.Port
	}
	if r.Source != "" {
		p["source"] = r.Source
	}
	if r.Destination != "" {
		p["dest"] = r.Destination
	}
	if r.Comment != "" {
		p["comment"] = r.Comment
	}
	return p
}

// validateRules checks rules the way the sim does.
func validateRules(rules []hypervisor.FirewallRule) error {
	for i, r := range rules {
		field := func(f string) string { return fmt.Sprintf("rules[%d].%s", i, f) }
		switch {
		case r.Direction != "in" && r.Direction != "out":
			return invalid(field("direction"), "must be in or out")
		case r.Action != "accept" && r.Action != "drop" && r.Action != "reject":
			return invalid(field("action"), "must be accept, drop or reject")
		case r.Protocol != "tcp" && r.Protocol != "udp" && r.Protocol != "icmp" && r.Protocol != "any":
			return invalid(field("protocol"), "must be tcp, udp, icmp or any")
		case r.Port != "" && r.Protocol != "tcp" && r.Protocol != "udp":
			return invalid(field("port"), "is only allowed with tcp or udp")
		case strings.ContainsAny(r.Comment, "\r\n"):
			return invalid(field("comment"), "must be one line")
		}
	}
	return nil
}

// SetFirewall replaces the machine's rule set and enables its firewall.
//
// Proxmox addresses rules by position only and inserts every new rule at the top
// (position 0). The driver therefore replaces make-before-break: it inserts the new
// rules last-first, so they end up at positions 0..n-1 in order above the old ones,
// then deletes the old ones, now at n.., from the bottom up. At no moment is the VM
// left without rules, and no operator-visible id is needed. The first write carries
// the list's digest, so an operator's concurrent edit makes the push fail rather than
// interleave; the result is read back and checked. Finally PUT firewall/options
// enable=1, and firewall=1 on every netN (one digest-guarded config write), because
// Proxmox applies VM rules only when both are on.
func (d *Driver) SetFirewall(ctx context.Context, ref hypervisor.Ref, rules []hypervisor.FirewallRule) error {
	if err := validateRules(rules); err != nil {
		return err
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return err
	}
	base := l.path() + "/firewall"
	var old []fwRule
	if err := d.get(ctx, base+"/rules", nil, &old); err != nil {
		return err
	}
	digest := ""
	if len(old) > 0 {
		digest = old[0].Digest
	}
	for i := len(rules) - 1; i >= 0; i-- {
		p := ruleParams(rules[i])
		if digest != "" {
			p["digest"], digest = digest, ""
		}
		if err := d.post(ctx, base+"/rules", p, nil); err != nil {
			return err
		}
	}
	for pos := len(rules) + len(old) - 1; pos >= len(rules); pos-- {
		if err := d.del(ctx, base+"/rules/"+strconv.Itoa(pos), nil, nil); err != nil {
			return err
		}
	}
	var got []fwRule
	if err := d.get(ctx, base+"/rules", nil, &got); err != nil {
		return err
	}
	if !sameRules(got, rules) {
		return apierr.New(apierr.ErrConflict, "the firewall rules of machine %d changed on Proxmox while they were replaced; push them again", ref.VMID)
	}
	if err := d.put(ctx, base+"/options", map[string]any{"enable": 1}, nil); err != nil {
		return err
	}
	cfg, err := d.vmConfig(ctx, l.node, l.vmid)
	if err != nil {
		return err
	}
	body := map[string]any{}
	for _, n := range cfg.nics() {
		if n.conf.get("firewall") != "1" {
			n.conf.set("firewall", "1")
			body[n.key] = n.conf.String()
		}
	}
	if len(body) == 0 {
		return nil
	}
	return d.writeConfig(ctx, l, cfg, body, fmt.Sprintf("enable the firewall on the interfaces of machine %d", ref.VMID))
}

// sameRules reports whether Proxmox's list is exactly the pushed rules, in order.
func sameRules(got []fwRule, want []hypervisor.FirewallRule) bool {
	if len(got) != len(want) {
		return false
	}
	for i, w := range want {
		g, p := got[i], ruleParams(w)
		str := func(k string) string { s, _ := p[k].(string); return s }
		if g.Pos != i || g.Type != str("type") || g.Action != str("action") || g.Proto != str("proto") ||
			g.Dport != str("dport") || g.Source != str("source") || g.Dest != str("dest") ||
			g.Comment != str("comment") || truthy(g.Enable) != w.Enabled {
			return false
		}
	}
	return true
}
