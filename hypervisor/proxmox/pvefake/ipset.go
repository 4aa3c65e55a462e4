package pvefake

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/netip"
	"regexp"
	"sort"
	"strings"
)

// ipSet is one IP set of a VM's firewall (an "[IPSET name] # comment" section of
// /etc/pve/firewall/<vmid>.fw): its entries newest first, as pve-firewall unshifts
// every new entry.
type ipSet struct {
	comment string
	entries []ipSetEntry
}

// ipSetEntry is one entry of an IP set. cidr is stored as pve-firewall normalises it
// on add: host bits cleared, and a full-length prefix (/32, /128) dropped.
type ipSetEntry struct {
	cidr    string
	comment string
	nomatch bool
}

// ipsetName is pve-firewall's ipset-name standard option: the pattern, 2 to 64
// characters.
var ipsetName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9\-_]+$`)

// ipAlias is pve-firewall's alias pattern, with the scope prefixes an ipset entry may
// carry.
var ipAlias = regexp.MustCompile(`^(dc/|guest/)?[A-Za-z][A-Za-z0-9\-_]+$`)

// copyIPSets deep-copies a VM's IP sets (clone, backup, restore).
func copyIPSets(in map[string]*ipSet) map[string]*ipSet {
	if in == nil {
		return nil
	}
	out := make(map[string]*ipSet, len(in))
	for name, set := range in {
		out[name] = &ipSet{comment: set.comment, entries: append([]ipSetEntry(nil), set.entries...)}
	}
	return out
}

// listDigest is PVE::Firewall::copy_list_with_digest's digest of a list of entries:
// SHA-1 over every defined key and value, keys sorted.
func listDigest(items []map[string]string) string {
	h := sha1.New()
	for _, it := range items {
		keys := make([]string, 0, len(it))
		for k := range it {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(h, "%s:%s\n", k, it[k])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fields is an entry as the API lists it, nomatch only when set.
func (e ipSetEntry) fields() map[string]string {
	m := map[string]string{"cidr": e.cidr}
	if e.comment != "" {
		m["comment"] = e.comment
	}
	if e.nomatch {
		m["nomatch"] = "1"
	}
	return m
}

// digest guards an IP set's entry list.
func (set *ipSet) digest() string {
	items := make([]map[string]string, len(set.entries))
	for i, e := range set.entries {
		items[i] = e.fields()
	}
	return listDigest(items)
}

// setsDigest guards a VM's list of IP sets (names and comments).
func (v *vm) setsDigest() string {
	names := v.ipsetNames()
	items := make([]map[string]string, len(names))
	for i, n := range names {
		items[i] = map[string]string{"name": n}
		if c := v.ipsets[n].comment; c != "" {
			items[i]["comment"] = c
		}
	}
	return listDigest(items)
}

func (v *vm) ipsetNames() []string {
	names := make([]string, 0, len(v.ipsets))
	for n := range v.ipsets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// hasFirewallConfig reports whether the VM has a firewall config file: pve-firewall
// removes /etc/pve/firewall/<vmid>.fw when nothing is left to write, and vzdump
// archives the file only when it exists.
func (v *vm) hasFirewallConfig() bool {
	return len(v.rules) > 0 || len(v.fwOptions) > 0 || len(v.ipsets) > 0
}

// ipsetNameOK checks an IP set name from the path or the body.
func (c *call) ipsetNameOK(name string) bool {
	if len(name) < 2 || len(name) > 64 || !ipsetName.MatchString(name) {
		c.paramErr("name", "value does not match the regex pattern")
		return false
	}
	return true
}

// normalizeCIDR is what pve-firewall's create_ip stores for an address or network
// (clean_cidr, then parse_ip_or_cidr): host bits cleared, /32 and /128 dropped. ok is
// false for something that is neither an address nor a CIDR (the IPorCIDRorAlias
// format check; aliases are handled by the caller).
func normalizeCIDR(s string) (string, bool) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return "", false
		}
		return a.String(), true
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return "", false
	}
	p = p.Masked()
	if p.Bits() == p.Addr().BitLen() {
		return p.Addr().String(), true
	}
	return p.String(), true
}

// ipsetLocked finds the request's VM and its IP set {name}; an unknown set is the
// 500 "no such IPSet" pve-firewall dies with.
func (c *call) ipsetLocked() (*vm, *ipSet) {
	v := c.vmLocked()
	if v == nil || !c.ipsetNameOK(c.p["name"]) {
		return nil, nil
	}
	set, ok := v.ipsets[c.p["name"]]
	if !ok {
		c.fail(500, "no such IPSet '%s'", c.p["name"])
		return nil, nil
	}
	return v, set
}

// ipsetIndex lists a VM's IP sets by name with the list digest.
func (c *call) ipsetIndex() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	digest := v.setsDigest()
	out := []map[string]any{}
	for _, n := range v.ipsetNames() {
		e := map[string]any{"name": n, "digest": digest}
		if cm := v.ipsets[n].comment; cm != "" {
			e["comment"] = cm
		}
		out = append(out, e)
	}
	c.ok(out)
}

// ipsetCreate creates an empty IP set, or with rename renames one (keeping its
// entries), as pve-firewall's create_ipset does.
func (c *call) ipsetCreate() {
	v := c.vmLocked()
	if v == nil {
		return
	}
	name := c.form.Get("name")
	if !c.ipsetNameOK(name) {
		return
	}
	if v.ipsets == nil {
		v.ipsets = map[string]*ipSet{}
	}
	if from := c.form.Get("rename"); from != "" {
		if !c.ipsetNameOK(from) {
			return
		}
		if d := c.form.Get("digest"); d != "" && d != v.setsDigest() {
			c.fail(500, "%s", modifiedMessage)
			return
		}
		set, ok := v.ipsets[from]
		if !ok {
			c.paramErr("name", "IPSet '%s' does not exist", from)
			return
		}
		if _, taken := v.ipsets[name]; taken && name != from {
			c.paramErr("name", "IPSet '%s' does already exist", name)
			return
		}
		delete(v.ipsets, from)
		if cm, ok := c.form["comment"]; ok && len(cm) > 0 {
			set.comment = cm[len(cm)-1]
		}
		v.ipsets[name] = set
		c.ok(nil)
		return
	}
	if _, taken := v.ipsets[name]; taken {
		c.paramErr("name", "IPSet '%s' already exists", name)
		return
	}
	v.ipsets[name] = &ipSet{comment: c.form.Get("comment")}
	c.ok(nil)
}

// ipsetDelete deletes an IP set: only an empty one unless force=1.
func (c *call) ipsetDelete() {
	v, set := c.ipsetLocked()
	if set == nil {
		return
	}
	if len(set.entries) > 0 && !boolParam(c.form.Get("force")) {
		c.fail(500, "IPSet '%s' is not empty", c.p["name"])
		return
	}
	delete(v.ipsets, c.p["name"])
	c.ok(nil)
}

// ipsetEntries lists an IP set's entries, each with the list digest.
func (c *call) ipsetEntries() {
	_, set := c.ipsetLocked()
	if set == nil {
		return
	}
	digest := set.digest()
	out := []map[string]any{}
	for _, e := range set.entries {
		m := map[string]any{"cidr": e.cidr, "digest": digest}
		if e.comment != "" {
			m["comment"] = e.comment
		}
		if e.nomatch {
			m["nomatch"] = 1
		}
		out = append(out, m)
	}
	c.ok(out)
}

// ipsetAdd adds an entry at the top, normalised as pve-firewall stores it; the same
// address twice, a zero prefix, or something that is no address, network or alias is
// refused.
func (c *call) ipsetAdd() {
	_, set := c.ipsetLocked()
	if set == nil {
		return
	}
	raw := c.form.Get("cidr")
	cidr, ok := normalizeCIDR(raw)
	if !ok {
		if ipAlias.MatchString(raw) {
			// The fake has no aliases: resolve_alias dies on every name.
			_, alias, _ := strings.Cut(raw, "/")
			if alias == "" {
				alias = raw
			}
			c.fail(500, "no such alias '%s'", alias)
			return
		}
		c.paramErr("cidr", "value does not look like a valid IP address or CIDR network")
		return
	}
	for _, e := range set.entries {
		if e.cidr == cidr {
			c.paramErr("cidr", "address '%s' already exists", cidr)
			return
		}
	}
	if strings.HasSuffix(cidr, "/0") {
		c.paramErr("cidr", "a zero prefix is not allowed in ipset entries")
		return
	}
	e := ipSetEntry{cidr: cidr, comment: c.form.Get("comment"), nomatch: boolParam(c.form.Get("nomatch"))}
	set.entries = append([]ipSetEntry{e}, set.entries...)
	c.ok(nil)
}

// cidrParamOK checks the {cidr} of an entry's path (the IPorCIDRorAlias format).
func (c *call) cidrParamOK() bool {
	if _, ok := normalizeCIDR(c.p["cidr"]); ok || ipAlias.MatchString(c.p["cidr"]) {
		return true
	}
	c.paramErr("cidr", "value does not look like a valid IP address or CIDR network")
	return false
}

// ipsetDigestOK checks the optional digest of an entry change.
func (c *call) ipsetDigestOK(set *ipSet) bool {
	if d := c.form.Get("digest"); d != "" && d != set.digest() {
		c.fail(500, "%s", modifiedMessage)
		return false
	}
	return true
}

// ipsetEntry reads one entry. pve-firewall compares {cidr} with the stored text as it
// is: 192.0.2.5/32 does not find the stored 192.0.2.5.
func (c *call) ipsetEntry() {
	_, set := c.ipsetLocked()
	if set == nil || !c.cidrParamOK() {
		return
	}
	digest := set.digest()
	for _, e := range set.entries {
		if e.cidr == c.p["cidr"] {
			m := map[string]any{"cidr": e.cidr, "digest": digest}
			if e.comment != "" {
				m["comment"] = e.comment
			}
			if e.nomatch {
				m["nomatch"] = 1
			}
			c.ok(m)
			return
		}
	}
	c.paramErr("cidr", "no such IP/Network")
}

// ipsetUpdate sets an entry's comment and nomatch (both replaced, as pve-firewall
// does: an omitted one is cleared).
func (c *call) ipsetUpdate() {
	_, set := c.ipsetLocked()
	if set == nil || !c.cidrParamOK() || !c.ipsetDigestOK(set) {
		return
	}
	for i, e := range set.entries {
		if e.cidr == c.p["cidr"] {
			set.entries[i].comment = c.form.Get("comment")
			set.entries[i].nomatch = boolParam(c.form.Get("nomatch"))
			c.ok(nil)
			return
		}
	}
	c.paramErr("cidr", "no such IP/Network")
}

// ipsetRemove removes an entry. Like pve-firewall it succeeds when no entry has that
// exact text, so a caller must name an entry as the list spells it.
func (c *call) ipsetRemove() {
	_, set := c.ipsetLocked()
	if set == nil || !c.cidrParamOK() || !c.ipsetDigestOK(set) {
		return
	}
	kept := set.entries[:0:0]
	for _, e := range set.entries {
		if e.cidr != c.p["cidr"] {
			kept = append(kept, e)
		}
	}
	set.entries = kept
	c.ok(nil)
}
