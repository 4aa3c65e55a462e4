package addresses

import (
	"context"
	"errors"
	"net/netip"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// allocKey is the record of one address of a pool: its text form (the prefix's first
// address for an IPv6 prefix), which names it uniquely within the pool.
func allocKey(pool, address string) []byte { return persistence.Key("ip-alloc", pool, address) }

// Allocation is the record of one held address, ip-alloc/<pool>/<address>.
type Allocation struct {
	Pool      string    `json:"pool"`
	Address   string    `json:"address"`
	Prefix    int       `json:"prefix"`
	MachineID string    `json:"machine_id"`
	TenantID  *string   `json:"tenant_id"`
	CreatedAt time.Time `json:"created_at"`
	// ReleasedAt is set when the machine is gone: the address stays held until the
	// cool-down after it has passed, so that it is not handed to the next customer
	// at once.
	ReleasedAt *time.Time `json:"released_at,omitempty"`
}

const allocVersion = 1

// Want is what a new machine is to be given: IPv4 addresses, and whether a routed
// IPv6 prefix.
type Want struct {
	// Node is the node the machine is placed on: its own pools serve it, else the
	// pools bound to no node.
	Node string
	IPv4 int
	IPv6 bool
}

// Allocate puts into b the allocation records of the addresses w asks for, for
// machine id of tenant, each required absent (create-if-absent), so that of two
// batches that chose the same address only one commits: the other is refused and its
// maker allocates again (Taken). It returns the addresses. A version no pool serves
// at all is given nothing (addresses come from outside vmplane); a version whose
// pools are full is 409 pool_exhausted.
func (a *Addresses) Allocate(ctx context.Context, b *persistence.Batch, w Want, id string, tenant *string) ([]hypervisor.Address, error) {
	if w.IPv4 == 0 && !w.IPv6 {
		return nil, nil
	}
	pools, err := a.usable(ctx, w.Node)
	if err != nil {
		return nil, err
	}
	var out []hypervisor.Address
	now := time.Now().UTC()
	take := func(version, n int) error {
		var candidates []Pool
		for _, p := range pools {
			if p.Version == version {
				candidates = append(candidates, p)
			}
		}
		if len(candidates) == 0 {
			return nil
		}
		for _, p := range candidates {
			held, err := a.held(ctx, p.ID)
			if err != nil {
				return err
			}
			for _, addr := range free(p, held, n) {
				al := Allocation{Pool: p.ID, Address: addr.Address, Prefix: addr.Prefix, MachineID: id, TenantID: tenant, CreatedAt: now}
				val, err := persistence.Encode(allocVersion, &al)
				if err != nil {
					return err
				}
				b.Require(persistence.IfAbsent(allocKey(p.ID, addr.Address))).Put(allocKey(p.ID, addr.Address), val)
				out = append(out, addr)
				n--
			}
			if n == 0 {
				return nil
			}
		}
		return apierr.New(apierr.ErrPoolExhausted, "no IPv%d pool usable on node %s has a free address", version, w.Node)
	}
	if err := take(4, w.IPv4); err != nil {
		return nil, err
	}
	if w.IPv6 {
		if err := take(6, 1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Taken reports whether any of addrs is now held: the batch that allocated them was
// refused because another took one first, and the caller allocates again.
func (a *Addresses) Taken(ctx context.Context, addrs []hypervisor.Address) (bool, error) {
	for _, ad := range addrs {
		_, err := a.store.Get(ctx, allocKey(ad.Pool, ad.Address))
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, persistence.ErrNotFound) {
			return false, err
		}
	}
	return false, nil
}

// usable are the pools that serve node: those bound to it when there are, else those
// bound to none.
func (a *Addresses) usable(ctx context.Context, node string) ([]Pool, error) {
	var own, shared []Pool
	var p Pool
	if err := a.store.Scan(ctx, persistence.Prefix("ip-pool"), nil, 0, func(_, v []byte) error {
		p = Pool{}
		if _, err := persistence.Decode(v, &p); err != nil {
			return err
		}
		switch {
		case p.Node == nil:
			shared = append(shared, p)
		case *p.Node == node:
			own = append(own, p)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	// A node's own pools come first; the shared ones serve what they lack.
	return append(own, shared...), nil
}

// held is the set of a pool's addresses that have an allocation record.
func (a *Addresses) held(ctx context.Context, pool string) (map[string]bool, error) {
	prefix := persistence.Prefix("ip-alloc", pool)
	out := map[string]bool{}
	err := a.store.Scan(ctx, prefix, nil, 0, func(k, _ []byte) error {
		out[string(k[len(prefix):])] = true
		return nil
	})
	return out, err
}

// free returns up to n addresses of p that held lacks, lowest first: for IPv4 each
// host address but the network's, the broadcast and the gateway; for IPv6 each /64
// (but the one the gateway is in).
func free(p Pool, held map[string]bool, n int) []hypervisor.Address {
	prefix, err := netip.ParsePrefix(p.CIDR)
	if err != nil || n <= 0 {
		return nil
	}
	gw, _ := netip.ParseAddr(p.Gateway)
	var out []hypervisor.Address
	if p.Version == 4 {
		last := lastOf(prefix)
		for addr := prefix.Addr().Next(); addr.IsValid() && addr.Less(last) && len(out) < n; addr = addr.Next() {
			if addr == gw || held[addr.String()] {
				continue
			}
			out = append(out, hypervisor.Address{Address: addr.String(), Prefix: prefix.Bits(), Gateway: p.Gateway, Version: 4, Pool: p.ID})
		}
		return out
	}
	for sub := prefix.Addr(); sub.IsValid() && prefix.Contains(sub) && len(out) < n; sub = nextPrefix(sub) {
		net := netip.PrefixFrom(sub, PrefixBits)
		if net.Contains(gw) || held[sub.String()] {
			continue
		}
		out = append(out, hypervisor.Address{Address: sub.String(), Prefix: PrefixBits, Gateway: p.Gateway, Version: 6, Pool: p.ID})
	}
	return out
}

// lastOf is the last address of an IPv4 prefix (its broadcast).
func lastOf(p netip.Prefix) netip.Addr {
	a := p.Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := uint32(a[0])<<24 | uint32(a[1])<<16 | uint32(a[2])<<8 | uint32(a[3]) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// nextPrefix is the first address of the /64 after the one sub starts; invalid past
// the end of the address space.
func nextPrefix(sub netip.Addr) netip.Addr {
	b := sub.As16()
	for i := 7; i >= 0; i-- {
		b[i]++
		if b[i] != 0 {
			return netip.AddrFrom16(b)
		}
	}
	return netip.Addr{}
}
