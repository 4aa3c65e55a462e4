package addresses

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// ReverseDNS is the DNS server reverse names are pushed to (pdns.Client): SetPTR makes
// name the PTR record of ip, or deletes it for "". Its errors are typed: a server with
// no zone for ip is apierr.ErrDNSZoneMissing, one that does not take the change
// apierr.ErrDNSUnavailable.
type ReverseDNS interface {
	SetPTR(ctx context.Context, ip netip.Addr, name string) error
}

// MaxPTRLen bounds a reverse name: a domain name's 253 characters, without the final
// dot.
const MaxPTRLen = 253

// CheckPTR checks a reverse name's syntax (a host name of at least two labels: letters,
// digits and hyphens, no label longer than 63 or at either end a hyphen, the last not
// all digits) and returns it as stored: lower case, without a final dot. "" is no name.
func CheckPTR(name string) (string, error) {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	if name == "" {
		return "", nil
	}
	bad := apierr.Invalid(apierr.Field("ptr", "must be a host name such as host.example.com (at most %d characters; labels of letters, digits and hyphens)", MaxPTRLen))
	if len(name) > MaxPTRLen {
		return "", bad
	}
	labels := strings.Split(name, ".")
	if len(labels) < 2 {
		return "", bad
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "", bad
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", bad
			}
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return "", bad
	}
	return name, nil
}

// SetPTR sets the reverse name of address, one of the addresses machine holds (have,
// as its record lists them; an IPv6 prefix is named by its first address or by the
// machine's ::1 in it), to ptr ("" clears it), and returns have with the name as
// stored. It checks the name, pushes it to the DNS server when one is configured, and
// puts into b the allocation record with the name, required as it was read (still the
// machine's). A push the DNS server refuses fails the call with its typed error
// (dns_zone_missing, dns_unavailable) and b gets nothing, so that the record never
// names what the DNS server lacks; a batch refused after a push leaves the DNS server
// ahead of the record until the next set.
func (a *Addresses) SetPTR(ctx context.Context, b *persistence.Batch, machine string, have []hypervisor.Address, address, ptr string) ([]hypervisor.Address, error) {
	i := slices.IndexFunc(have, func(h hypervisor.Address) bool { return h.Address == address || h.Host() == address })
	if i < 0 {
		return nil, apierr.NotFound("address", address)
	}
	ptr, err := a.setPTR(ctx, b, machine, have[i], ptr)
	if err != nil {
		return nil, err
	}
	have[i].PTR = ptr
	return have, nil
}

// setPTR is SetPTR of one address; it returns the name as stored.
func (a *Addresses) setPTR(ctx context.Context, b *persistence.Batch, machine string, addr hypervisor.Address, ptr string) (string, error) {
	ptr, err := CheckPTR(ptr)
	if err != nil {
		return "", err
	}
	key := allocKey(addr.Pool, addr.Address)
	raw, err := a.store.Get(ctx, key)
	if errors.Is(err, persistence.ErrNotFound) {
		return "", apierr.New(apierr.ErrConflict, "address %s has no allocation record: it was not given by an IP pool", addr.Address)
	}
	if err != nil {
		return "", err
	}
	var al Allocation
	if _, err := persistence.Decode(raw, &al); err != nil {
		return "", err
	}
	if al.MachineID != machine || al.ReleasedAt != nil {
		return "", apierr.New(apierr.ErrConflict, "address %s is no longer held by machine %s", addr.Address, machine)
	}
	if a.dns != nil && (ptr != "" || al.PTR != "") {
		ip, err := netip.ParseAddr(addr.Host())
		if err != nil {
			return "", apierr.New(apierr.ErrConflict, "address %s is not an IP address", addr.Address)
		}
		if err := a.dns.SetPTR(ctx, ip, ptr); err != nil {
			return "", err
		}
	}
	al.PTR = ptr
	val, err := persistence.Encode(allocVersion, &al)
	if err != nil {
		return "", err
	}
	b.Require(persistence.IfValue(key, bytes.Clone(raw))).Put(key, val)
	return ptr, nil
}

// unpublish deletes the reverse name of an address being released from the DNS
// server, when one is configured. A failure is logged, not returned: the release is
// part of a machine's delete, which a DNS server that is down must not hold up; the
// stale record names a host the next holder's SetPTR replaces.
func (a *Addresses) unpublish(ctx context.Context, al Allocation) {
	if a.dns == nil || al.PTR == "" {
		return
	}
	host := hypervisor.Address{Address: al.Address, Prefix: al.Prefix}.Host()
	ip, err := netip.ParseAddr(host)
	if err == nil {
		err = a.dns.SetPTR(ctx, ip, "")
	}
	if err != nil {
		a.rt.Log.Warn("the reverse name of a released address stays on the DNS server", zap.String("address", al.Address),
			zap.String("ptr", al.PTR), zap.Error(err))
	}
}
