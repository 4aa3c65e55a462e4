package pveconf

import (
	"strconv"
	"strings"

	"github.com/vmplane/vmplane/hypervisor"
)

// Rule is one Proxmox firewall rule as GET .../firewall/rules lists it. go-proxmox's
// FirewallRule has no digest field, and the digest is what guards the list.
type Rule struct {
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

// RuleKeys are the fields of a rule that a push makes equal; "enable" is always set.
var RuleKeys = []string{"type", "action", "proto", "dport", "sport", "source", "dest", "macro", "iface", "log", "icmp-type", "comment", "enable"}

// RuleSpec is a rule as Proxmox stores it: its fields by name, absent ones empty.
type RuleSpec map[string]string

// Spec is the listed rule's fields.
func (r Rule) Spec() RuleSpec {
	return RuleSpec{"type": r.Type, "action": r.Action, "proto": r.Proto, "dport": r.Dport, "sport": r.Sport,
		"source": r.Source, "dest": r.Dest, "macro": r.Macro, "iface": r.Iface, "log": r.Log, "icmp-type": r.ICMPType,
		"comment": r.Comment, "enable": strconv.Itoa(BoolInt(Truthy(r.Enable)))}
}

// Key identifies a rule by all its fields, to compare lists.
func (s RuleSpec) Key() string {
	var b strings.Builder
	for _, k := range RuleKeys {
		b.WriteString(s[k])
		b.WriteByte(0)
	}
	return b.String()
}

// Params are the fields to create the rule, or to make another rule this one (with
// the delete list of the fields it lacks and from has).
func (s RuleSpec) Params(from RuleSpec) map[string]any {
	p := map[string]any{}
	var del []string
	for _, k := range RuleKeys {
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

// Truthy reads a Proxmox boolean that may come as 1, "1" or true.
func Truthy(v any) bool {
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

// SpecOf maps one of our rules to Proxmox's fields: direction → type in/out,
// action → ACCEPT/DROP/REJECT, protocol (any → none), port → dport, source, dest,
// enable, comment.
func SpecOf(r hypervisor.FirewallRule) RuleSpec {
	s := RuleSpec{"type": r.Direction, "action": strings.ToUpper(r.Action), "enable": strconv.Itoa(BoolInt(r.Enabled)),
		"dport": r.Port, "source": r.Source, "dest": r.Destination, "comment": r.Comment}
	if r.Protocol != "" && r.Protocol != "any" {
		s["proto"] = r.Protocol
	}
	return s
}

// RuleStep is one write that brings Proxmox's rule list closer to ours.
type RuleStep struct {
	Op   string   // update, insert, delete, move
	Pos  int      // the rule written (update, delete, move)
	To   int      // move: its new position
	Spec RuleSpec // update, insert: the rule to write
	From RuleSpec // update: the rule it replaces
}

// NextRuleStep compares Proxmox's list with the wanted one and returns the next
// write, or false when they are equal. Rules are matched by all their fields; the
// first occurrences of a rule are kept. A surplus rule is rewritten into a missing one
// (update) before anything is inserted or deleted, so the machine is never left with
// fewer rules than both lists share; then missing rules are inserted (at the top, as
// Proxmox does), surplus ones deleted from the bottom, and finally rules moved into
// place from the top. Each step shrinks the difference, so the loop ends.
func NextRuleStep(cur, want []RuleSpec) (RuleStep, bool) {
	wantN := map[string]int{}
	for _, w := range want {
		wantN[w.Key()]++
	}
	kept := map[string]int{}
	var surplus []int
	for i, c := range cur {
		if k := c.Key(); kept[k] < wantN[k] {
			kept[k]++
		} else {
			surplus = append(surplus, i)
		}
	}
	var missing []int
	for i, w := range want {
		if k := w.Key(); kept[k] > 0 {
			kept[k]--
		} else {
			missing = append(missing, i)
		}
	}
	switch {
	case len(surplus) > 0 && len(missing) > 0:
		return RuleStep{Op: "update", Pos: surplus[0], Spec: want[missing[0]], From: cur[surplus[0]]}, true
	case len(missing) > 0:
		return RuleStep{Op: "insert", Spec: want[missing[0]]}, true
	case len(surplus) > 0:
		return RuleStep{Op: "delete", Pos: surplus[len(surplus)-1]}, true
	}
	for i := range want {
		if cur[i].Key() == want[i].Key() {
			continue
		}
		for j := i + 1; j < len(cur); j++ {
			if cur[j].Key() == want[i].Key() {
				return RuleStep{Op: "move", Pos: j, To: i}, true
			}
		}
	}
	return RuleStep{}, false
}
