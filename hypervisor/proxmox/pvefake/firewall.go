package pvefake

import (
	"net"
	"regexp"
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
		out[i] = ruleAnswer(r, i, digest)
	}
	c.ok(out)
}

// ruleAnswer is a rule as the firewall API answers it: its position, enable as an
// integer and the other fields as strings, with the list digest when there is one.
func ruleAnswer(r map[string]string, pos int, digest string) map[string]any {
	e := map[string]any{"pos": pos}
	if digest != "" {
		e["digest"] = digest
	}
	for k, val := range r {
		if k == "enable" {
			n, _ := strconv.Atoi(val)
			e[k] = n
			continue
		}
		e[k] = val
	}
	return e
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
	c.ok(ruleAnswer(v.rules[pos], pos, ""))
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
		c.fail(500, "%s", modifiedMessage)
		return false
	}
	return true
}

// validRule checks the fields Proxmox verifies on create and update.
//
// It stays PVE's validation of raw parameters, not hypervisor.FirewallRuleErrors:
// the fake models the real server, whose rule model is wider than ours (forward and
// group rules, macros, sport, upper-case actions, every /etc/protocols name) and
// whose errors are PVE's parameter errors. The driver validates our rules with the
// shared check before it sends anything; this check is what catches a driver that
// translates a valid rule into parameters Proxmox would refuse.
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
	if r["dport"] != "" && r["proto"] != "tcp" && r["proto"] != "udp" && r["proto"] != "udplite" && r["proto"] != "sctp" && r["proto"] != "dccp" {
		c.fail(400, "missing property - 'dport' requires setting 'proto'")
		return false
	}
	for _, k := range []string{"dport", "sport"} {
		if r[k] != "" && !portSpec.MatchString(r[k]) {
			c.paramErr(k, "invalid format - invalid port '%s'", r[k])
			return false
		}
	}
	if p := r["proto"]; p != "" && !protocols[p] {
		c.paramErr("proto", "unknown protocol '%s'", p)
		return false
	}
	if m := r["macro"]; m != "" && !macros[m] {
		c.paramErr("macro", "unknown macro '%s'", m)
		return false
	}
	// pve-firewall's verify_rule: every address of a rule, and an ICMP protocol, must
	// agree on one IP version; icmp is IPv4 only, IPv6 needs ipv6-icmp.
	version := 0
	switch r["proto"] {
	case "icmp":
		version = 4
	case "icmpv6", "ipv6-icmp":
		version = 6
	}
	for _, k := range []string{"source", "dest"} {
		a := r[k]
		if a == "" {
			continue
		}
		if strings.HasPrefix(a, "+") {
			c.paramErr(k, "no such ipset '%s'", strings.TrimPrefix(a, "+"))
			return false
		}
		v := addrVersion(a)
		if v == 0 {
			c.paramErr(k, "no such alias '%s'", a)
			return false
		}
		if version != 0 && version != v {
			c.paramErr(k, "detected mixed ipv4/ipv6 addresses in rule")
			return false
		}
		version = v
	}
	return true
}

// portSpec is pve-firewall's port list: ports, ranges "a:b", or service names.
var portSpec = regexp.MustCompile(`^([0-9]{1,5}(:[0-9]{1,5})?|[a-z][a-z0-9-]*)(,([0-9]{1,5}(:[0-9]{1,5})?|[a-z][a-z0-9-]*))*$`)

// protocols are the /etc/protocols names pve-firewall accepts that the fake knows.
var protocols = map[string]bool{"tcp": true, "udp": true, "icmp": true, "icmpv6": true, "ipv6-icmp": true,
	"udplite": true, "sctp": true, "dccp": true, "gre": true, "esp": true, "ah": true, "igmp": true, "ipv6": true}

// macros are some of pve-firewall's macro names.
var macros = map[string]bool{"SSH": true, "HTTP": true, "HTTPS": true, "DNS": true, "Ping": true, "SMTP": true, "NTP": true}

// addrVersion is 4 or 6 for an address, range, list or CIDR, 0 for anything else
// (an alias name).
func addrVersion(a string) int {
	first, _, _ := strings.Cut(a, ",")
	first, _, _ = strings.Cut(first, "-")
	first, _, _ = strings.Cut(first, "/")
	ip := net.ParseIP(first)
	switch {
	case ip == nil:
		return 0
	case ip.To4() != nil:
		return 4
	}
	return 6
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
