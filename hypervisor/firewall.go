package hypervisor

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/vmplane/vmplane/apierr"
)

// Firewall rule protocols. icmp is ICMP for IPv4 only; IPv6 needs ipv6-icmp, as in
// pve-firewall (a rule that mixes them is refused there with "detected mixed ipv4/ipv6
// addresses in rule").
const (
	ProtocolTCP      = "tcp"
	ProtocolUDP      = "udp"
	ProtocolICMP     = "icmp"
	ProtocolIPv6ICMP = "ipv6-icmp"
	ProtocolAny      = "any"
)

// MaxRuleComment is the longest rule comment, in bytes; MaxRuleValueLen bounds a
// rule's port, source and destination (a port list, an address or a CIDR).
const (
	MaxRuleComment  = 255
	MaxRuleValueLen = 64
)

// FirewallRuleErrors checks one rule the way pve-firewall verifies a rule, so that a
// rule every driver accepts is one Proxmox accepts too: tenants' rules do not depend
// on the driver. It returns the faults by field name (direction, action, protocol,
// port, source, destination, comment), none for a valid rule:
//
//   - direction in or out; action accept, drop or reject;
//   - protocol tcp, udp, icmp (IPv4), ipv6-icmp (IPv6) or any;
//   - port only with tcp or udp: a port 1..65535, a range "80:85" or a list of them;
//   - source and destination an address or CIDR (no ipset or alias names: vmplane
//     manages none), of one IP version between them and with the protocol;
//   - comment one line of at most MaxRuleComment bytes.
func FirewallRuleErrors(r FirewallRule) []apierr.FieldError {
	var f []apierr.FieldError
	if r.Direction != "in" && r.Direction != "out" {
		f = append(f, apierr.Field("direction", "must be in or out"))
	}
	if r.Action != "accept" && r.Action != "drop" && r.Action != "reject" {
		f = append(f, apierr.Field("action", "must be accept, drop or reject"))
	}
	version := 0 // the IP version the rule is bound to so far
	switch r.Protocol {
	case ProtocolTCP, ProtocolUDP:
		if len(r.Port) > MaxRuleValueLen {
			f = append(f, apierr.Field("port", "must be at most %d characters", MaxRuleValueLen))
		} else if r.Port != "" {
			if msg := portsError(r.Port); msg != "" {
				f = append(f, apierr.Field("port", "%s", msg))
			}
		}
	case ProtocolICMP, ProtocolIPv6ICMP, ProtocolAny:
		if r.Port != "" {
			f = append(f, apierr.Field("port", "only tcp and udp rules have ports"))
		}
		switch r.Protocol {
		case ProtocolICMP:
			version = 4
		case ProtocolIPv6ICMP:
			version = 6
		}
	default:
		f = append(f, apierr.Field("protocol", "must be tcp, udp, icmp, ipv6-icmp or any"))
	}
	for _, a := range []struct{ field, v string }{{"source", r.Source}, {"destination", r.Destination}} {
		if a.v == "" {
			continue
		}
		if len(a.v) > MaxRuleValueLen {
			f = append(f, apierr.Field(a.field, "must be at most %d characters", MaxRuleValueLen))
			continue
		}
		v := addressVersion(a.v)
		switch {
		case v == 0:
			f = append(f, apierr.Field(a.field, "must be an address or a CIDR such as 203.0.113.0/24 (ipsets and aliases are not supported)"))
		case version == 4 && v == 6 && r.Protocol == ProtocolICMP:
			f = append(f, apierr.Field(a.field, "is IPv6 but protocol icmp is IPv4 only: use ipv6-icmp"))
		case version == 6 && v == 4 && r.Protocol == ProtocolIPv6ICMP:
			f = append(f, apierr.Field(a.field, "is IPv4 but protocol ipv6-icmp is IPv6 only: use icmp"))
		case version != 0 && v != version:
			f = append(f, apierr.Field(a.field, "is IPv%d but source is IPv%d: a rule cannot mix IPv4 and IPv6", v, version))
		default:
			version = v
		}
	}
	if strings.ContainsAny(r.Comment, "\r\n") {
		f = append(f, apierr.Field("comment", "must be one line"))
	} else if len(r.Comment) > MaxRuleComment {
		f = append(f, apierr.Field("comment", "must be at most %d characters", MaxRuleComment))
	}
	return f
}

// Validate checks one rule with FirewallRuleErrors: nil for a valid rule, else an
// ErrInvalidRule whose apierr kind is a 400 naming each fault by field (direction,
// port, ...), so errors.Is(err, ErrInvalidRule) and apierr.From(err).Fields both work.
func (r FirewallRule) Validate() error {
	return invalidRule(FirewallRuleErrors(r))
}

// ValidateFirewallRules checks a rule set, in order, with FirewallRuleErrors: nil when
// every rule is valid, else an ErrInvalidRule (400) naming each fault as
// rules[i].field. Every driver's SetFirewall calls it first, so no driver needs rules
// of its own and a rule set one driver takes, every driver takes.
func ValidateFirewallRules(rules []FirewallRule) error {
	var all []apierr.FieldError
	for i, r := range rules {
		for _, e := range FirewallRuleErrors(r) {
			all = append(all, apierr.FieldError{Field: fmt.Sprintf("rules[%d].%s", i, e.Field), Message: e.Message})
		}
	}
	return invalidRule(all)
}

// invalidRule is the ErrInvalidRule of a list of faults, nil for none. Its kind is
// apierr.Invalid, so the problem body lists the fields.
func invalidRule(faults []apierr.FieldError) error {
	if len(faults) == 0 {
		return nil
	}
	kind := apierr.Invalid(faults...)
	return &Error{Kind: kind, Reason: ErrInvalidRule.Reason, Detail: kind.Detail}
}

// portsError checks "22", "80:85" and "80,443,8000:8080"; it returns why not, or "".
func portsError(s string) string {
	if len(s) > 256 {
		return "must be a port, a range such as 80:85, or a list such as 80,443"
	}
	for part := range strings.SplitSeq(s, ",") { // not Split: no slice on every rule write
		lo, hi, isRange := strings.Cut(part, ":")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 || a > 65535 {
			return "ports must be 1..65535, as a port, a range such as 80:85, or a list such as 80,443"
		}
		if isRange {
			b, err := strconv.Atoi(hi)
			if err != nil || b < 1 || b > 65535 {
				return "ports must be 1..65535, as a port, a range such as 80:85, or a list such as 80,443"
			}
			if b < a {
				return "a range must go up: 80:85, not 85:80"
			}
		}
	}
	return ""
}

// addressVersion is 4 or 6 for an address or CIDR, 0 for anything else: what
// net.ParseIP, then net.ParseCIDR, and To4 answered, on net/netip (no allocation on
// every rule write; TestAddressesAsNetDid holds the two to each other).
func addressVersion(s string) int {
	var a netip.Addr
	if strings.IndexByte(s, '/') < 0 {
		// Without a slash s is an address or nothing (net.ParseCIDR needs one); with
		// one, it is no address (ParseAddr refuses a slash, or takes it into a zone
		// that net refused), and ParseAddr's error would be an allocation.
		var err error
		if a, err = netip.ParseAddr(s); err != nil || a.Zone() != "" {
			return 0
		}
	} else {
		var ok bool
		if a, _, ok = parseCIDR(s); !ok {
			return 0
		}
	}
	if a.Is4() || a.Is4In6() {
		return 4
	}
	return 6
}

// CanonicalCIDR accepts a CIDR or a bare address (a /32 or /128) and returns the
// network in canonical form, host bits cleared: an IPv4-mapped IPv6 address is
// written as IPv4, as net.IP's String did. It is what net.ParseIP, net.ParseCIDR and
// net.IPNet's String made of it, on net/netip with one allocation (the string).
func CanonicalCIDR(s string) (string, bool) {
	var buf [64]byte
	if strings.IndexByte(s, '/') < 0 {
		// As in addressVersion: without a slash, an address or nothing.
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return "", false
		}
		a = a.Unmap()
		bits := 128
		if a.Is4() {
			bits = 32
		}
		return string(strconv.AppendInt(append(a.AppendTo(buf[:0]), '/'), int64(bits), 10)), true
	}
	a, bits, ok := parseCIDR(s)
	if !ok {
		return "", false
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return "", false
	}
	m := p.Addr()
	if m.Is4In6() {
		// Only a mask of 96 bits or more keeps the ::ffff: of a mapped address, and
		// net printed what is left as IPv4 with the mask's last 32 bits.
		m, bits = m.Unmap(), bits-96
	}
	return string(strconv.AppendInt(append(m.AppendTo(buf[:0]), '/'), int64(bits), 10)), true
}

// parseCIDR is net.ParseCIDR's grammar on net/netip: an address without a zone, a
// slash, and a prefix length of decimal digits (leading zeros allowed, as net's dtoi
// allows them; netip.ParsePrefix refuses them) no longer than the address.
func parseCIDR(s string) (netip.Addr, int, bool) {
	addr, mask, found := strings.Cut(s, "/")
	if !found {
		return netip.Addr{}, 0, false
	}
	a, err := netip.ParseAddr(addr)
	if err != nil || a.Zone() != "" || mask == "" {
		return netip.Addr{}, 0, false
	}
	n := 0
	for i := 0; i < len(mask); i++ {
		c := mask[i]
		if c < '0' || c > '9' {
			return netip.Addr{}, 0, false
		}
		n = n*10 + int(c-'0')
		if n > a.BitLen() {
			return netip.Addr{}, 0, false
		}
	}
	return a, n, true
}
