package proxmox

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/vmplane/vmplane/hypervisor"
)

// fwRule is one Proxmox firewall rule as GET .../firewall/rules lists it. go-proxmox's
// FirewallRule has no digest field, and the digest is what guards the list.
type fwRule struct {
	Pos      int    `json:"pos"`
	Digest   string `json:"digest"`
	Type     string `json:"type"`
	Action   string `json:"action"`
	Proto    string `json:"proto"`
	Dport    string `json:"dport"`
	Sport    string `json:"sport"`
	Source   string `json:"source"`
	Dest     string `json:"dest"`
	Macro    string `json:"macro"`
	Iface    string `json:"iface"`
	Log      string `json:"log"`
	ICMPType string `json:"icmp-type"`
	Comment  string `json:"comment"`
	Enable   any    `json:"enable"`
}

// ruleKeys are the fields of a rule that a push makes equal; "enable" is always set.
var ruleKeys = []string{"type", "action", "proto", "dport", "sport", "source", "dest", "macro", "iface", "log", "icmp-type", "comment", "enable"}

// ruleSpec is a rule as Proxmox stores it: its fields by name, absent ones empty.
type ruleSpec map[string]string

// spec is the listed rule's fields.
func (r fwRule) spec() ruleSpec {
	return ruleSpec{"type": r.Type, "action": r.Action, "proto": r.Proto, "dport": r.Dport, "sport": r.Sport,
		"source": r.Source, "dest": r.Dest, "macro": r.Macro, "iface": r.Iface, "log": r.Log, "icmp-type": r.ICMPType,
		"comment": r.Comment, "enable": strconv.Itoa(boolInt(truthy(r.Enable)))}
}

// key identifies a rule by all its fields, to compare lists.
func (s ruleSpec) key() string {
	var b strings.Builder
	for _, k := range ruleKeys {
		b.WriteString(s[k])
		b.WriteByte(0)
	}
	return b.String()
}

// params are the fields to create the rule, or to make another rule this one (with
// the delete list of the fields it lacks and from has).
func (s ruleSpec) params(from ruleSpec) map[string]any {
	p := map[string]any{}
	var del []string
	for _, k := range ruleKeys {
		switch {
		case k == "enable":
			p[k], _ = strconv.Atoi(s[k])
		case s[k] != "":
			p[k] = s[k]
		case from[k] != "":
			del = append(del, k)
		}
	}
	if len(del) > 0 {
		p["delete"] = strings.Join(del, ",")
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

// specOf maps one of our rules to Proxmox's fields: direction → type in/out,
// action → ACCEPT/DROP/REJECT, protocol (any → none), port → dport, source, dest,
// enable, comment.
func specOf(r hypervisor.FirewallRule) ruleSpec {
	s := ruleSpec{"type": r.Direction, "action": strings.ToUpper(r.Action), "enable": strconv.Itoa(boolInt(r.Enabled)),
		"dport": r.Port, "source": r.Source, "dest": r.Destination, "comment": r.Comment}
	if r.Protocol != "" && r.Protocol != "any" {
		s["proto"] = r.Protocol
	}
	return s
}

// SetFirewall makes the machine's rule list exactly rules, in order, and enables its
// firewall.
//
// Proxmox addresses rules by position only, inserts every new rule at the top, and
// shifts positions on every insert and delete, so appending a rule set is not
// idempotent: a retried or half-done push would leave rules twice. The push therefore
// converges (see convergeRules): it reads Proxmox's list, compares it with ours, and
// updates, inserts, deletes or moves one rule at a time, each write guarded by the
// digest of the list it was computed from, until the two are equal. Any number of
// retries, restarts or partial failures ends with exactly the tenant's rules, and a
// push of what is already there writes nothing. Finally firewall/options enable=1 and
// firewall=1 on every netN (one digest-guarded config write), because Proxmox applies
// VM rules only when both are on.
func (d *Driver) SetFirewall(ctx context.Context, ref hypervisor.Ref, rules []hypervisor.FirewallRule) error {
	if err := hypervisor.ValidateFirewallRules(rules); err != nil {
		return err
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return err
	}
	want := make([]ruleSpec, len(rules))
	for i, r := range rules {
		want[i] = specOf(r)
	}
	if err := d.convergeRules(ctx, l, want); err != nil {
		return err
	}
	var opts map[string]any
	if err := d.get(ctx, l.path()+"/firewall/options", nil, &opts); err != nil {
		return err
	}
	if !truthy(opts["enable"]) {
		body := map[string]any{"enable": 1}
		if dg, ok := opts["digest"].(string); ok && dg != "" {
			body["digest"] = dg
		}
		if err := d.put(ctx, l.path()+"/firewall/options", body, nil); err != nil {
			return err
		}
	}
	return d.updateConfig(ctx, l, fmt.Sprintf("enable the firewall on the interfaces of machine %d", ref.VMID),
		func(cfg vmConfig) (map[string]any, error) {
			body := map[string]any{}
			for _, n := range cfg.nics() {
				if n.conf.get("firewall") != "1" {
					n.conf.set("firewall", "1")
					body[n.key] = n.conf.String()
				}
			}
			return body, nil
		})
}

// fwStep is one write that brings Proxmox's rule list closer to ours.
type fwStep struct {
	op   string // update, insert, delete, move
	pos  int    // the rule written (update, delete, move)
	to   int    // move: its new position
	spec ruleSpec
	from ruleSpec // update: the rule it replaces
}

// nextFirewallStep compares Proxmox's list with the wanted one and returns the next
// write, or false when they are equal. Rules are matched by all their fields; the
// first occurrences of a rule are kept. A surplus rule is rewritten into a missing one
// (update) before anything is inserted or deleted, so the machine is never left with
// fewer rules than both lists share; then missing rules are inserted (at the top, as
// Proxmox does), surplus ones deleted from the bottom, and finally rules moved into
// place from the top. Each step shrinks the difference, so the loop ends.
func nextFirewallStep(cur, want []ruleSpec) (fwStep, bool) {
	wantN := map[string]int{}
	for _, w := range want {
		wantN[w.key()]++
	}
	kept := map[string]int{}
	var surplus []int
	for i, c := range cur {
		if k := c.key(); kept[k] < wantN[k] {
			kept[k]++
		} else {
			surplus = append(surplus, i)
		}
	}
	var missing []int
	for i, w := range want {
		if k := w.key(); kept[k] > 0 {
			kept[k]--
		} else {
			missing = append(missing, i)
		}
	}
	switch {
	case len(surplus) > 0 && len(missing) > 0:
		return fwStep{op: "update", pos: surplus[0], spec: want[missing[0]], from: cur[surplus[0]]}, true
	case len(missing) > 0:
		return fwStep{op: "insert", spec: want[missing[0]]}, true
	case len(surplus) > 0:
		return fwStep{op: "delete", pos: surplus[len(surplus)-1]}, true
	}
	for i := range want {
		if cur[i].key() == want[i].key() {
			continue
		}
		for j := i + 1; j < len(cur); j++ {
			if cur[j].key() == want[i].key() {
				return fwStep{op: "move", pos: j, to: i}, true
			}
		}
	}
	return fwStep{}, false
}

// modifiedAttempts bounds how often a read-modify-write starts over because someone
// changed the machine on Proxmox between its read and its write.
const modifiedAttempts = 3

// convergeRules makes the VM's rule list want (see SetFirewall): one read, one
// digest-guarded write, until equal. A write that collides with a concurrent edit is
// computed again from a fresh read, up to modifiedAttempts collisions, then the push
// fails with conflict.
func (d *Driver) convergeRules(ctx context.Context, l *located, want []ruleSpec) error {
	base := l.path() + "/firewall/rules"
	collisions, steps, limit := 0, 0, -1
	for {
		var list []fwRule
		if err := d.get(ctx, base, nil, &list); err != nil {
			return err
		}
		sort.SliceStable(list, func(i, j int) bool { return list[i].Pos < list[j].Pos })
		cur := make([]ruleSpec, len(list))
		digest := ""
		for i, r := range list {
			cur[i], digest = r.spec(), r.Digest
		}
		if limit < 0 {
			// Each rule is updated, inserted or deleted at most once and moved at most once.
			limit = 2*(len(cur)+len(want)) + 2
		}
		step, more := nextFirewallStep(cur, want)
		if !more {
			return nil
		}
		if steps >= limit {
			return hypervisor.NewError(errModified, "the firewall rules of machine %d keep changing on Proxmox while they are pushed; push them again", l.vmid)
		}
		var body map[string]any
		var err error
		switch step.op {
		case "update":
			body = step.spec.params(step.from)
		case "insert":
			body = step.spec.params(nil)
		case "move":
			body = map[string]any{"moveto": step.to}
		}
		if digest != "" && body != nil {
			body["digest"] = digest
		}
		pos := base + "/" + strconv.Itoa(step.pos)
		switch step.op {
		case "insert":
			err = d.post(ctx, base, body, nil)
		case "delete":
			var q url.Values
			if digest != "" {
				q = url.Values{"digest": {digest}}
			}
			err = d.del(ctx, pos, q, nil)
		default:
			err = d.put(ctx, pos, body, nil)
		}
		if errors.Is(err, errModified) {
			if collisions++; collisions >= modifiedAttempts {
				return hypervisor.NewError(errModified, "the firewall rules of machine %d changed on Proxmox %d times while they were pushed; push them again", l.vmid, collisions)
			}
			continue
		}
		if err != nil {
			return err
		}
		steps++
	}
}
