package proxmox

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"sort"
	"strings"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pveconf"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvehttp"
)

var _ hypervisor.Readdresser = (*Driver)(nil)

// ipfilterSet is the IP set Proxmox's VM firewall option ipfilter checks the source
// addresses of net0 against (pve-firewall's compute_ipfilter_ipset_name). With
// ipfilter on, a machine may send only from the addresses in it, plus the link-local
// IPv6 address of its MAC, which Proxmox adds by itself.
const ipfilterSet = "ipfilter-net0"

// ipfilterComment marks the set vmplane writes, for an operator reading the GUI.
const ipfilterComment = "vmplane: the addresses this machine may send from"

// ipsetEntry is one entry of a VM's IP set as the API lists it.
type ipsetEntry struct {
	CIDR    string `json:"cidr"`
	Comment string `json:"comment,omitempty"`
	Nomatch any    `json:"nomatch,omitempty"`
	Digest  string `json:"digest,omitempty"`
}

// ipsetInfo is one of a VM's IP sets as the API lists them.
type ipsetInfo struct {
	Name    string `json:"name"`
	Comment string `json:"comment,omitempty"`
}

// ipsetCIDR is an entry as pve-firewall stores it (clean_cidr, then
// parse_ip_or_cidr): host bits cleared and a full-length prefix (/32, /128)
// dropped. Entries are compared in this form, so one an older Proxmox (or an
// operator) stored as 192.0.2.5/32 is the same as 192.0.2.5; ok is false for
// anything else (an alias name).
func ipsetCIDR(s string) (string, bool) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil {
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

// ipfilterEntries are the ipfilter-net0 entries of a machine's addresses, in their
// order: an IPv4 address as the host itself (a /32), an IPv6 address as its whole
// routed prefix (2001:db8:0:1::/64), since the machine may use any address in the
// prefix it was given. An address that does not parse is a 400 naming it.
func ipfilterEntries(addrs []hypervisor.Address) ([]string, error) {
	out := make([]string, 0, len(addrs))
	seen := map[string]bool{}
	for i, a := range addrs {
		ip, err := netip.ParseAddr(a.Address)
		if err != nil || ip.Zone() != "" {
			return nil, invalid(fmt.Sprintf("addresses[%d].address", i), "must be an IP address")
		}
		e := ip.String()
		if ip.Is6() && !ip.Is4In6() {
			if a.Prefix < 1 || a.Prefix > 128 {
				return nil, invalid(fmt.Sprintf("addresses[%d].prefix", i), "must be 1..128 for an IPv6 prefix")
			}
			e, _ = ipsetCIDR(netip.PrefixFrom(ip, a.Prefix).String())
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out, nil
}

// ipsetsPath is the path of a VM's IP sets; ipsetPath of one of them.
func ipsetsPath(l *located) string { return l.path() + "/firewall/ipset" }

func ipsetPath(l *located, name string) string { return ipsetsPath(l) + "/" + url.PathEscape(name) }

// ipsets lists a VM's IP sets.
func (d *Driver) ipsets(ctx context.Context, l *located) ([]ipsetInfo, error) {
	var sets []ipsetInfo
	err := d.get(ctx, ipsetsPath(l), nil, &sets)
	return sets, err
}

// ipset reads one of a VM's IP sets; ok is false when the VM has no set of that name.
func (d *Driver) ipset(ctx context.Context, l *located, name string) (entries []ipsetEntry, ok bool, err error) {
	sets, err := d.ipsets(ctx, l)
	if err != nil {
		return nil, false, err
	}
	for _, s := range sets {
		if s.Name == name {
			err := d.get(ctx, ipsetPath(l, name), nil, &entries)
			return entries, err == nil, err
		}
	}
	return nil, false, nil
}

// createIPSet creates an empty IP set; one that exists already (another member of a
// vmplane cluster made it meanwhile) is fine.
func (d *Driver) createIPSet(ctx context.Context, l *located, name, comment string) error {
	body := map[string]any{"name": name}
	if comment != "" {
		body["comment"] = comment
	}
	err := d.call(ctx, "POST", ipsetsPath(l), nil, body, nil)
	if se, ok := statusOf(err); ok && se.Code == 400 && strings.Contains(se.Params["name"], "already exists") {
		return nil
	}
	return d.apiError(ctx, err)
}

// convergeIPSet makes a VM's IP set hold exactly want (each entry's cidr, nomatch and,
// for new entries, comment), creating the set when it is missing. Entries are compared
// in their stored form (ipsetCIDR); an extra one is deleted by the text Proxmox lists
// it under, because pve-firewall removes only an exact match and answers success for
// anything else. An entry that matches an address but carries nomatch (an exclusion)
// is replaced. Each step is idempotent, so a retried or half-done push converges.
func (d *Driver) convergeIPSet(ctx context.Context, l *located, name, comment string, want []ipsetEntry) error {
	cur, exists, err := d.ipset(ctx, l, name)
	if err != nil {
		return err
	}
	if !exists {
		if err := d.createIPSet(ctx, l, name, comment); err != nil {
			return err
		}
	}
	key := func(e ipsetEntry) string {
		c, ok := ipsetCIDR(e.CIDR)
		if !ok {
			c = e.CIDR // an alias: compared by its name
		}
		if pveconf.Truthy(e.Nomatch) {
			return "!" + c
		}
		return c
	}
	wanted := map[string]bool{}
	for _, e := range want {
		wanted[key(e)] = true
	}
	have := map[string]bool{}
	for _, e := range cur {
		if k := key(e); wanted[k] && !have[k] {
			have[k] = true
			continue
		}
		// Extra, or the same entry twice under two spellings.
		if err := d.del(ctx, ipsetPath(l, name)+"/"+url.PathEscape(e.CIDR), nil, nil); err != nil {
			return err
		}
	}
	// Proxmox puts each new entry at the top: adding in reverse keeps want's order.
	for i := len(want) - 1; i >= 0; i-- {
		e := want[i]
		if have[key(e)] {
			continue
		}
		have[key(e)] = true
		body := map[string]any{"cidr": e.CIDR}
		if e.Comment != "" {
			body["comment"] = e.Comment
		}
		if pveconf.Truthy(e.Nomatch) {
			body["nomatch"] = 1
		}
		err := d.call(ctx, "POST", ipsetPath(l, name), nil, body, nil)
		if se, ok := statusOf(err); ok && se.Code == 400 && strings.Contains(se.Params["cidr"], "already exists") {
			continue // added meanwhile by another member
		}
		if err := d.apiError(ctx, err); err != nil {
			return err
		}
	}
	return nil
}

// firewallBoolOptions are the VM firewall options Proxmox keeps as booleans (the API
// answers 0 or 1, and takes any of its boolean spellings).
var firewallBoolOptions = map[string]bool{"enable": true, "dhcp": true, "ipfilter": true, "macfilter": true, "ndp": true, "radv": true}

// firewallOptionIs reports whether the option key, as the API answered it (v, nil
// when unset), already has the value want ("1" or "0" for a boolean option).
func firewallOptionIs(key string, v any, want string) bool {
	if firewallBoolOptions[key] {
		return pveconf.Truthy(v) == (want == "1")
	}
	if v == nil {
		return false
	}
	return fmt.Sprint(v) == want
}

// setFirewallOptions gives VM firewall options the values in want ("1" or "0" for
// the boolean ones), writing only those that differ, in one PUT guarded by the digest
// of the options it was computed from (read again when someone changed them
// meanwhile). When all have their value already, nothing is written.
func (d *Driver) setFirewallOptions(ctx context.Context, l *located, want map[string]string) error {
	for attempt := 1; ; attempt++ {
		var opts map[string]any
		if err := d.get(ctx, l.path()+"/firewall/options", nil, &opts); err != nil {
			return err
		}
		body := map[string]any{}
		for k, v := range want {
			if !firewallOptionIs(k, opts[k], v) {
				body[k] = v
			}
		}
		if len(body) == 0 {
			return nil
		}
		if dg, ok := opts["digest"].(string); ok && dg != "" {
			body["digest"] = dg
		}
		err := d.put(ctx, l.path()+"/firewall/options", body, nil)
		if !errors.Is(err, errModified) {
			return err
		}
		if attempt >= modifiedAttempts {
			return hypervisor.NewError(errModified, "the firewall options of machine %d changed on Proxmox during each of %d attempts; retry", l.vmid, attempt)
		}
	}
}

// Default policies vmplane writes (see enforceIPFilter and SetFirewall). "No rules =
// open": a machine without rules lets everything through in both directions, and the
// firewall that is on for it only enforces ipfilter (and Proxmox's MAC filter); a
// machine with rules drops incoming traffic no rule accepts (Proxmox's own default
// policy_in) and sends freely unless an out rule says otherwise.
const (
	policyAccept = "ACCEPT"
	policyDrop   = "DROP"
)

// enforceIPFilter makes Proxmox enforce a machine's ipfilter-net0, which it does only
// while the VM firewall is on: the options ipfilter=1 and enable=1, with
// policy_in=policy_out=ACCEPT when the machine has no rules on Proxmox (so turning
// the firewall on changes nothing for a tenant who never pushed rules but the
// addresses it may send from; a machine with rules keeps the policies its push set),
// then firewall=1 on every NIC. Writes only what differs, so running it again on a
// machine that has all this writes nothing. Callers write the IP set first, so the
// filter is never on over a set that does not hold the machine's addresses yet.
func (d *Driver) enforceIPFilter(ctx context.Context, l *located) error {
	var rules []pveconf.Rule
	if err := d.get(ctx, l.path()+"/firewall/rules", nil, &rules); err != nil {
		return err
	}
	want := map[string]string{"ipfilter": "1", "enable": "1"}
	if len(rules) == 0 {
		want["policy_in"], want["policy_out"] = policyAccept, policyAccept
	}
	if err := d.setFirewallOptions(ctx, l, want); err != nil {
		return err
	}
	return d.nicFirewallOn(ctx, l)
}

// nicFirewallOn sets firewall=1 on every netN of the machine that lacks it (one
// digest-guarded config write, none when all have it): Proxmox applies a VM's
// firewall, ipfilter included, only on the interfaces that have it.
func (d *Driver) nicFirewallOn(ctx context.Context, l *located) error {
	return d.updateConfig(ctx, l, fmt.Sprintf("enable the firewall on the interfaces of machine %d", l.vmid),
		func(cfg pveconf.VM) (map[string]any, error) {
			body := map[string]any{}
			for _, n := range cfg.NICs() {
				if n.Conf.Get("firewall") != "1" {
					n.Conf.Set("firewall", "1")
					body[n.Key] = n.Conf.String()
				}
			}
			return body, nil
		})
}

// writeIPFilter makes ipfilter-net0 hold exactly the machine's addresses (see
// ipfilterEntries), then has Proxmox enforce it (enforceIPFilter: ipfilter and the
// firewall on, both policies ACCEPT on a machine without rules).
func (d *Driver) writeIPFilter(ctx context.Context, l *located, addrs []hypervisor.Address) error {
	cidrs, err := ipfilterEntries(addrs)
	if err != nil {
		return err
	}
	want := make([]ipsetEntry, len(cidrs))
	for i, c := range cidrs {
		want[i] = ipsetEntry{CIDR: c, Comment: "vmplane"}
	}
	if err := d.convergeIPSet(ctx, l, ipfilterSet, ipfilterComment, want); err != nil {
		return inStep(err, "write the IP set %s of machine %d", ipfilterSet, l.vmid)
	}
	if err := d.enforceIPFilter(ctx, l); err != nil {
		return inStep(err, "turn on the firewall and ipfilter for machine %d", l.vmid)
	}
	return nil
}

// inStep prefixes a driver error's detail with the step it failed in, keeping its
// reason and kind (a plain wrap would not survive the error's trip through an actor
// message as JSON). Other errors come back as they are.
func inStep(err error, format string, args ...any) error {
	var he *hypervisor.Error
	if !errors.As(err, &he) {
		return err
	}
	return hypervisor.NewError(he, "%s: %s", fmt.Sprintf(format, args...), he.Detail)
}

// SetAddresses gives an existing machine the addresses addrs (its primary first): the
// IP set ipfilter-net0 is made to hold exactly them (missing entries added, extra
// ones deleted, the set created if absent) and enforced (the firewall and ipfilter
// on, see enforceIPFilter), so the machine cannot send from a neighbour's address;
// then cloud-init's
// ipconfig0 is rewritten when the primary addresses it carries changed (the guest
// picks that up on its next boot). No addresses empty the set vmplane made, which
// leaves the machine only its link-local address; a machine vmplane never addressed
// (no set) is left alone.
func (d *Driver) SetAddresses(ctx context.Context, ref hypervisor.Ref, addrs []hypervisor.Address) error {
	if _, err := ipfilterEntries(addrs); err != nil {
		return err
	}
	l, err := d.locateLive(ctx, ref.VMID)
	if err != nil {
		return err
	}
	if len(addrs) == 0 {
		_, exists, err := d.ipset(ctx, l, ipfilterSet)
		if err != nil || !exists {
			return err
		}
		return d.convergeIPSet(ctx, l, ipfilterSet, ipfilterComment, nil)
	}
	if err := d.writeIPFilter(ctx, l, addrs); err != nil {
		return err
	}
	ipc := pveconf.IPConfig(addrs)
	return d.updateConfig(ctx, l, fmt.Sprintf("address machine %d", ref.VMID), func(cfg pveconf.VM) (map[string]any, error) {
		if ipc == "" || cfg["ipconfig0"] == ipc {
			return nil, nil
		}
		return map[string]any{"ipconfig0": ipc}, nil
	})
}

// savedIPSet is one IP set with its entries, saved across a reinstall or a restore.
type savedIPSet struct {
	name, comment string
	entries       []ipsetEntry
}

// readIPSets reads every IP set of a VM with its entries, sorted by name.
func (d *Driver) readIPSets(ctx context.Context, l *located) ([]savedIPSet, error) {
	sets, err := d.ipsets(ctx, l)
	if err != nil {
		return nil, err
	}
	out := make([]savedIPSet, 0, len(sets))
	for _, s := range sets {
		var entries []ipsetEntry
		if err := d.get(ctx, ipsetPath(l, s.Name), nil, &entries); err != nil {
			return nil, err
		}
		out = append(out, savedIPSet{name: s.Name, comment: s.Comment, entries: entries})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// restoreIPSets makes a VM's IP sets the saved ones: each converged to its saved
// entries, and sets the VM has that were not saved (a template's, copied by the
// clone) deleted with their entries.
func (d *Driver) restoreIPSets(ctx context.Context, l *located, saved []savedIPSet) error {
	keep := map[string]bool{}
	for _, s := range saved {
		keep[s.name] = true
		if err := d.convergeIPSet(ctx, l, s.name, s.comment, s.entries); err != nil {
			return err
		}
	}
	now, err := d.ipsets(ctx, l)
	if err != nil {
		return err
	}
	for _, s := range now {
		if keep[s.Name] {
			continue
		}
		err := d.del(ctx, ipsetPath(l, s.Name), url.Values{"force": {"1"}}, nil)
		if err != nil && !noSuchIPSet(err) {
			return err
		}
	}
	return nil
}

// noSuchIPSet reports whether err is pve-firewall's "no such IPSet": the set is gone
// already.
func noSuchIPSet(err error) bool {
	var se *pvehttp.StatusError
	if errors.As(err, &se) {
		return strings.Contains(se.Message, "no such IPSet")
	}
	return strings.Contains(err.Error(), "no such IPSet")
}
