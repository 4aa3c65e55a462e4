package pvefake

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
)

var ipconfigKey = regexp.MustCompile(`^ipconfig\d+$`)

// checkIPConfig checks a cloud-init ipconfigN value as Proxmox's pve-qm-ipconfig
// format does: ip (an IPv4 CIDR or dhcp), gw (an IPv4 address), ip6 (an IPv6 CIDR,
// dhcp or auto) and gw6 (an IPv6 address), each at most once; a gateway without
// its address is refused, as qemu-server refuses it.
func checkIPConfig(key, val string) error {
	seen := map[string]string{}
	for _, part := range strings.Split(val, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return fmt.Errorf("invalid format - format error\n%s: value without key, but schema does not define a default key", key)
		}
		if _, dup := seen[k]; dup {
			return fmt.Errorf("invalid format - format error\n%s.%s: duplicate key in comma-separated list property", key, k)
		}
		seen[k] = v
		bad := func() error {
			return fmt.Errorf("invalid format - format error\n%s.%s: invalid format - value does not look like a valid %s", key, k, map[string]string{
				"ip": "IPv4 network configuration", "gw": "IPv4 address", "ip6": "IPv6 network configuration", "gw6": "IPv6 address"}[k])
		}
		switch k {
		case "ip":
			if p, err := netip.ParsePrefix(v); v != "dhcp" && (err != nil || !p.Addr().Is4()) {
				return bad()
			}
		case "ip6":
			if p, err := netip.ParsePrefix(v); v != "dhcp" && v != "auto" && (err != nil || !p.Addr().Is6()) {
				return bad()
			}
		case "gw":
			if a, err := netip.ParseAddr(v); err != nil || !a.Is4() {
				return bad()
			}
		case "gw6":
			if a, err := netip.ParseAddr(v); err != nil || !a.Is6() {
				return bad()
			}
		default:
			return fmt.Errorf("invalid format - format error\n%s.%s: property is not defined in schema and the schema does not allow additional properties", key, k)
		}
	}
	if _, ok := seen["gw"]; ok && seen["ip"] == "" {
		return fmt.Errorf("%s: gateway given without an IPv4 address", key)
	}
	if _, ok := seen["gw6"]; ok && seen["ip6"] == "" {
		return fmt.Errorf("%s: gateway given without an IPv6 address", key)
	}
	return nil
}
