package pvefake

import (
	"strconv"
	"strings"
)

// ruleFields are the rule properties the fake keeps.
var ruleFields = []string{"type", "action", "proto", "dport", "sport", "source", "dest", "enable", "comment", "macro", "iface", "log", "icmp-type"}

// fwRules lists a VM's rules with their positions and the list digest, as
// PVE::Firewall::copy_list_with_digest does.
func (c *call) fwRules() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	digest := v.fwDigest()
	out := make([]map[string]any, len(v.rules))
	for i, r := range v.rules {
		e := map[string]any{"pos": i, "digest": digest}
		for k, val := range r {
			if k == "enable" {
				n, _ := strconv.Atoi(val)
				e[k] = n
				continue
			}
			e[k] = val
		}
		out[i] = e
	}
	c.ok(out)
}

func (c *call) fwRule() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	pos, ok := c.pos(v)
	if !ok {
		return
	}
	e := map[string]any{"pos": pos}
	for k, val := range v.rules[pos] {
		e[k] = val
	}
	c.ok(e)
}

// pos parses {pos} and checks that a rule is there.
func (c *call) pos(v *vm) (int, bool) {
	pos, err := strconv.Atoi(c.p["pos"])
	if err != nil || pos < 0 {
		c.paramErr("pos", "invalid format - value must be an integer")
		return 0, false
	}
	if pos >= len(v.rules) {
		c.fail(500, "no rule at position %d", pos)
		return 0, false
	}
	return pos, true
}

// fwDigestOK checks the optional digest of a rule-list change.
func (c *call) fwDigestOK(v *vm) bool {
	if d := c.form.Get("digest"); d != "" && d != v.fwDigest() {
		c.fail(500, "detected modified configuration - file changed by other user? Try again.")
		return false
	}
	return true
}

// validRule checks the fields Proxmox verifies on create and update.
func (c *call) validRule(r map[string]string) bool {
	switch r["type"] {
	case "in", "out", "forward", "group":
	default:
		c.paramErr("type", "value '%s' does not have a value in the enumeration 'in, out, forward, group'", r["type"])
		return false
	}
	switch r["action"] {
	case "ACCEPT", "DROP", "REJECT":
	default:
		c.paramErr("action", "invalid format - value '%s' does not look like a valid action", r["action"])
		return false
	}
	if r["dport"] != "" && r["proto"] != "tcp" && r["proto"] != "udp" {
		c.fail(400, "missing property - 'dport' requires setting 'proto'")
		return false
	}
	return true
}

// fwCreate inserts a rule at the top (Proxmox unshifts new rules; pos is ignored).
// enable defaults to 0, as in Proxmox.
func (c *call) fwCreate() {
	v := c.vmLocked()
	if v == nil || !c.fwDigestOK(v) {
		return
	}
	r := map[string]string{}
	for _, k := range ruleFields {
		if val := c.form.Get(k); val != "" {
			r[k] = val
		}
	}
	if r["enable"] == "" {
		r["enable"] = "0"
	}
	if !c.validRule(r) {
		return
	}
	v.rules = append([]map[string]string{r}, v.rules...)
	v.fwVersion++
	c.ok(nil)
}

// fwUpdate modifies a rule, or with moveto moves it (other arguments ignored).
func (c *call) fwUpdate() {
	v := c.vmLocked()
	if v == nil || !c.fwDigestOK(v) {
		return
	}
	pos, ok := c.pos(v)
	if !ok {
		return
	}
	if mv := c.form.Get("moveto"); mv != "" {
		to, err := strconv.Atoi(mv)
		if err != nil || to < 0 {
			c.paramErr("moveto", "invalid format - value must be an integer")
			return
		}
		if to != pos {
			rule := v.rules[pos]
			var out []map[string]string
			for i, r := range v.rules {
				if i == pos {
					continue
				}
				if i == to {
					out = append(out, rule)
				}
				out = append(out, r)
			}
			if to >= len(v.rules) {
				out = append(out, rule)
			}
			v.rules = out
			v.fwVersion++
		}
		c.ok(nil)
		return
	}
	r := copyMap(v.rules[pos])
	for _, k := range ruleFields {
		if val := c.form.Get(k); val != "" {
			r[k] = val
		}
	}
	for _, k := range strings.Split(c.form.Get("delete"), ",") {
		delete(r, strings.TrimSpace(k))
	}
	if !c.validRule(r) {
		return
	}
	v.rules[pos] = r
	v.fwVersion++
	c.ok(nil)
}

func (c *call) fwDelete() {
	v := c.vmLocked()
	if v == nil || !c.fwDigestOK(v) {
		return
	}
	pos, ok := c.pos(v)
	if !ok {
		return
	}
	v.rules = append(v.rules[:pos:pos], v.rules[pos+1:]...)
	v.fwVersion++
	c.ok(nil)
}

// fwOptionKeys are the VM firewall options.
var fwOptionKeys = []string{"enable", "dhcp", "ipfilter", "macfilter", "ndp", "radv", "policy_in", "policy_out", "log_level_in", "log_level_out"}

func (c *call) fwOptions() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	out := map[string]any{"digest": v.fwDigest()}
	for k, val := range v.fwOptions {
		if n, err := strconv.Atoi(val); err == nil {
			out[k] = n
			continue
		}
		out[k] = val
	}
	c.ok(out)
}

func (c *call) fwSetOptions() {
	v := c.vmLocked()
	if v == nil || !c.fwDigestOK(v) {
		return
	}
	if v.fwOptions == nil {
		v.fwOptions = map[string]string{}
	}
	for _, k := range fwOptionKeys {
		if val := c.form.Get(k); val != "" {
			if k == "enable" || k == "dhcp" || k == "ipfilter" || k == "macfilter" || k == "ndp" || k == "radv" {
				val = strconv.Itoa(b2i(boolParam(val)))
			}
			v.fwOptions[k] = val
		}
	}
	for _, k := range strings.Split(c.form.Get("delete"), ",") {
		delete(v.fwOptions, strings.TrimSpace(k))
	}
	v.fwVersion++
	c.ok(nil)
}
