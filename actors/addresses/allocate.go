package addresses

import (
	"bytes"
	"context"
	"errors"
	"net/netip"
	"slices"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
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
	// PTR is the address's reverse DNS name (empty: none), cleared on its release.
	PTR string `json:"ptr,omitempty"`
	// ReleasedAt is set when the machine is gone: the address stays held until the
	// cool-down after it has passed, so that it is not handed to the next customer
	// at once.
	ReleasedAt *time.Time `json:"released_at,omitempty"`
}

const allocVersion = 1

// Want is what a machine is to be given: IPv4 addresses, and whether a routed IPv6
// prefix (a new machine's, or one more of an existing machine's).
type Want struct {
	// Location is the tag of the location the machine is made in ("": the default
	// one): only that location's pools serve it.
	Location string
	// Node is the node the machine is placed on (its name in the location), NodeID
	// its id across locations: the pools bound to it (by either) serve it, else the
	// location's pools bound to no node.
	Node   string
	NodeID string
	IPv4   int
	IPv6   bool
	// Address, when set, is the IPv4 address asked for: it is the first of the IPv4
	// addresses given (IPv4 must be at least 1), and it must be a host address of a
	// pool usable on Node (else 422 address_unusable) that no machine holds, nor is
	// cooling down after its release (else 409 address_taken). It is taken by the
	// same conditional write as any other, so two machines asking for it at once
	// never both get it.
	Address string
	// Prefer are pools to give from first, in their order (the pools the machine's
	// other addresses are from), when they are usable on Node.
	Prefer []string
}

// Grant is what Allocate gave: the addresses, and the stored values its batch
// requires (the pools unchanged, each address's record absent or as it was read), so
// that Taken can tell a batch refused for one of them.
type Grant struct {
	Addresses []hypervisor.Address
	// Node is Want's node when a pool bound to it gave some of them ("" when only
	// pools bound to no node did): the machine must be placed there.
	Node string
	// DNS are the resolvers of the pools the addresses are from, each once, in the
	// order of the addresses: what the machine is told to use.
	DNS []string
	// read maps each key the batch requires to the value it requires (nil: absent).
	read map[string][]byte
}

// Allocate puts into b the allocation records of the addresses w asks for, for
// machine id of tenant, each required absent (create-if-absent) or, for an address
// released longer than the cool-down ago, required as it was read (taken over), and
// each pool it gives from required unchanged, so that of two batches that chose the
// same address only one commits, and no allocation outlives a pool deleted meanwhile:
// the refused batch's maker allocates again (Taken). A version no pool serves at all
// is given nothing (addresses come from outside vmplane); a version whose pools are
// full is 409 pool_exhausted.
func (a *Addresses) Allocate(ctx context.Context, b *persistence.Batch, w Want, id string, tenant *string) (Grant, error) {
	g := Grant{read: map[string][]byte{}}
	if w.IPv4 == 0 && !w.IPv6 {
		return g, nil
	}
	pools, err := a.usable(ctx, w)
	if err != nil {
		return Grant{}, err
	}
	preferred(pools, w.Prefer)
	now := a.now()
	// asked is the address w asks for, once it is put into b: the pool it is from
	// and its text, which the free addresses of that pool then skip.
	var asked struct{ pool, addr string }
	if w.Address != "" {
		if w.IPv4 < 1 {
			return Grant{}, apierr.Invalid(apierr.Field("address", "is an IPv4 address, and the machine gets none"))
		}
		p, addr, err := requested(pools, w.Address, w.Node)
		if err != nil {
			return Grant{}, err
		}
		held, err := a.held(ctx, p.ID, now)
		if err != nil {
			return Grant{}, err
		}
		if held.held[addr.Address] {
			return Grant{}, apierr.New(apierr.ErrAddressTaken, "address %s is held by a machine, or cooling down after its release", addr.Address)
		}
		if err := a.put(b, &g, p, held, addr, w.Node, id, tenant, now); err != nil {
			return Grant{}, err
		}
		asked.pool, asked.addr = p.ID, addr.Address
		w.IPv4--
	}
	take := func(version, n int) error {
		if n == 0 {
			return nil
		}
		var candidates []usablePool
		for _, p := range pools {
			if p.Version == version {
				candidates = append(candidates, p)
			}
		}
		if len(candidates) == 0 {
			return nil
		}
		for _, p := range candidates {
			held, err := a.held(ctx, p.ID, now)
			if err != nil {
				return err
			}
			if p.ID == asked.pool {
				held.held[asked.addr] = true
			}
			for _, addr := range free(p.Pool, held, n) {
				if err := a.put(b, &g, p, held, addr, w.Node, id, tenant, now); err != nil {
					return err
				}
				n--
			}
			if n == 0 {
				return nil
			}
		}
		return apierr.New(apierr.ErrPoolExhausted, "no IPv%d pool usable on node %s of location %s has a free address", version, w.Node, hvloc.Name(w.Location))
	}
	if err := take(4, w.IPv4); err != nil {
		return Grant{}, err
	}
	if w.IPv6 {
		if err := take(6, 1); err != nil {
			return Grant{}, err
		}
	}
	return g, nil
}

// AllocateOne puts into b the allocation of one more address of version (4, or 6 for
// a routed prefix) for machine id of tenant, which holds have, where at names (its
// location and node; the counts and address are AllocateOne's): address when
// asked for (IPv4), else the lowest free one, from the pools of have first. It is
// Allocate of one address, but a version no pool serves is 409 pool_exhausted too:
// the machine asked for one. The Grant is for Taken.
func (a *Addresses) AllocateOne(ctx context.Context, b *persistence.Batch, at Want, version int, address string, have []hypervisor.Address, id string, tenant *string) (hypervisor.Address, Grant, error) {
	w := Want{Location: at.Location, Node: at.Node, NodeID: at.NodeID, Address: address}
	if version == 6 {
		w.IPv6 = true
	} else {
		w.IPv4 = 1
	}
	for _, h := range have {
		if h.Version == version && !slices.Contains(w.Prefer, h.Pool) {
			w.Prefer = append(w.Prefer, h.Pool)
		}
	}
	g, err := a.Allocate(ctx, b, w, id, tenant)
	if err != nil {
		return hypervisor.Address{}, Grant{}, err
	}
	if len(g.Addresses) == 0 {
		return hypervisor.Address{}, Grant{}, apierr.New(apierr.ErrPoolExhausted, "no IPv%d pool is usable on node %s of location %s", version, at.Node, hvloc.Name(at.Location))
	}
	return g.Addresses[0], g, nil
}

// put puts into b the allocation of addr, an address of pool p free by held, to
// machine id on node (its name in its location), with the requirements that make it
// conditional, and adds it to g.
func (a *Addresses) put(b *persistence.Batch, g *Grant, p usablePool, held holding, addr hypervisor.Address, node, id string, tenant *string, now time.Time) error {
	if _, ok := g.read[string(poolKey(p.ID))]; !ok {
		b.Require(persistence.IfValue(poolKey(p.ID), p.raw)).Put(stampKey(p.ID), []byte(persistence.NewID()))
		g.read[string(poolKey(p.ID))] = p.raw
		for _, d := range p.DNS {
			if !slices.Contains(g.DNS, d) {
				g.DNS = append(g.DNS, d)
			}
		}
	}
	al := Allocation{Pool: p.ID, Address: addr.Address, Prefix: addr.Prefix, MachineID: id, TenantID: tenant, CreatedAt: now}
	val, err := persistence.Encode(allocVersion, &al)
	if err != nil {
		return err
	}
	key := allocKey(p.ID, addr.Address)
	if prev := held.cooled[addr.Address]; prev != nil {
		b.Require(persistence.IfValue(key, prev))
	} else {
		b.Require(persistence.IfAbsent(key))
	}
	b.Put(key, val)
	g.read[string(key)] = held.cooled[addr.Address]
	g.Addresses = append(g.Addresses, addr)
	if p.Node != nil {
		g.Node = node // the pool may name it by its id (name@location)
	}
	return nil
}

// requested finds the pool among pools (those usable on node) whose range holds s, an
// IPv4 host address (not the network's, the broadcast or the gateway): anything else
// is 422 address_unusable, or 400 when s is no IPv4 address at all.
func requested(pools []usablePool, s, node string) (usablePool, hypervisor.Address, error) {
	ip, err := netip.ParseAddr(s)
	if err != nil || !ip.Is4() {
		return usablePool{}, hypervisor.Address{}, apierr.Invalid(apierr.Field("address", "must be an IPv4 address such as 192.0.2.10"))
	}
	for _, p := range pools {
		prefix, err := netip.ParsePrefix(p.CIDR)
		if err != nil || p.Version != 4 || !prefix.Contains(ip) {
			continue
		}
		gw, _ := netip.ParseAddr(p.Gateway)
		if ip == prefix.Addr() || ip == lastOf(prefix) || ip == gw {
			return usablePool{}, hypervisor.Address{}, apierr.New(apierr.ErrAddressUnusable,
				"address %s is the network, broadcast or gateway address of IP pool %s", ip, p.Name)
		}
		return p, hypervisor.Address{Address: ip.String(), Prefix: prefix.Bits(), Gateway: p.Gateway, Version: 4, Pool: p.ID}, nil
	}
	where := "any node"
	if node != "" {
		where = "node " + node
	}
	return usablePool{}, hypervisor.Address{}, apierr.New(apierr.ErrAddressUnusable, "address %s is in no IPv4 pool usable on %s", ip, where)
}

// NodeOf is the node whose pool holds address, when a pool bound to a node holds it
// ("" when only a pool bound to none does, or none at all, or it is no address): a
// create asking for the address goes to that node, where the pool serves it.
func (a *Addresses) NodeOf(ctx context.Context, address string) (string, error) {
	ip, err := netip.ParseAddr(address)
	if err != nil {
		return "", nil
	}
	node := ""
	err = a.store.Scan(ctx, persistence.Prefix("ip-pool"), nil, 0, func(_, v []byte) error {
		var p Pool
		if _, err := persistence.Decode(v, &p); err != nil {
			return err
		}
		if prefix, err := netip.ParsePrefix(p.CIDR); err == nil && p.Node != nil && prefix.Contains(ip) && node == "" {
			node = *p.Node
		}
		return nil
	})
	return node, err
}

// preferred moves the pools named in prefer to the front of pools, in prefer's order,
// the others keeping theirs.
func preferred(pools []usablePool, prefer []string) {
	if len(prefer) == 0 {
		return
	}
	rank := func(p usablePool) int {
		if i := slices.Index(prefer, p.ID); i >= 0 {
			return i
		}
		return len(prefer)
	}
	slices.SortStableFunc(pools, func(x, y usablePool) int { return rank(x) - rank(y) })
}

// Taken reports whether a key g's batch required has moved since Allocate read it
// (another batch took one of its addresses first, or its pool changed or went): the
// batch was refused for that, and the caller allocates again.
func (a *Addresses) Taken(ctx context.Context, g Grant) (bool, error) {
	for key, want := range g.read {
		got, err := a.store.Get(ctx, []byte(key))
		switch {
		case errors.Is(err, persistence.ErrNotFound):
			if want != nil {
				return true, nil
			}
		case err != nil:
			return false, err
		case want == nil || !bytes.Equal(got, want):
			return true, nil
		}
	}
	return false, nil
}

// usablePool is a pool with its stored value, which an allocation from it requires
// unchanged.
type usablePool struct {
	Pool
	raw []byte
}

// usable are the pools of w's location that serve its node: those bound to it when
// there are, else those bound to none.
func (a *Addresses) usable(ctx context.Context, w Want) ([]usablePool, error) {
	var own, shared []usablePool
	if err := a.store.Scan(ctx, persistence.Prefix("ip-pool"), nil, 0, func(_, v []byte) error {
		p := usablePool{raw: bytes.Clone(v)}
		if _, err := persistence.Decode(v, &p.Pool); err != nil {
			return err
		}
		switch {
		case string(p.Location) != w.Location:
		case p.Node == nil:
			shared = append(shared, p)
		case *p.Node == w.Node || w.NodeID != "" && *p.Node == w.NodeID:
			own = append(own, p)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	// A node's own pools come first; the shared ones serve what they lack.
	return append(own, shared...), nil
}

// holding is what a pool's allocation records say: the addresses held (including
// those cooling down after their release), and the released ones whose cool-down has
// passed, with their stored value, which a new allocation of one requires unchanged.
type holding struct {
	held   map[string]bool
	cooled map[string][]byte
}

// held reads a pool's allocation records as of now.
func (a *Addresses) held(ctx context.Context, pool string, now time.Time) (holding, error) {
	prefix := persistence.Prefix("ip-alloc", pool)
	out := holding{held: map[string]bool{}, cooled: map[string][]byte{}}
	err := a.store.Scan(ctx, prefix, nil, 0, func(k, v []byte) error {
		addr := string(k[len(prefix):])
		var al Allocation
		if _, err := persistence.Decode(v, &al); err == nil && al.ReleasedAt != nil && !now.Before(al.ReleasedAt.Add(a.cooldown)) {
			out.cooled[addr] = bytes.Clone(v)
			return nil
		}
		out.held[addr] = true
		return nil
	})
	return out, err
}

// free returns up to n addresses of p that held lacks, lowest first: for IPv4 each
// host address but the network's, the broadcast and the gateway; for IPv6 each /64
// (but the one the gateway is in).
func free(p Pool, h holding, n int) []hypervisor.Address {
	prefix, err := netip.ParsePrefix(p.CIDR)
	if err != nil || n <= 0 {
		return nil
	}
	gw, _ := netip.ParseAddr(p.Gateway)
	var out []hypervisor.Address
	if p.Version == 4 {
		last := lastOf(prefix)
		for addr := prefix.Addr().Next(); addr.IsValid() && addr.Less(last) && len(out) < n; addr = addr.Next() {
			if addr == gw || h.held[addr.String()] {
				continue
			}
			out = append(out, hypervisor.Address{Address: addr.String(), Prefix: prefix.Bits(), Gateway: p.Gateway, Version: 4, Pool: p.ID})
		}
		return out
	}
	for sub := prefix.Addr(); sub.IsValid() && prefix.Contains(sub) && len(out) < n; sub = nextPrefix(sub) {
		net := netip.PrefixFrom(sub, PrefixBits)
		if net.Contains(gw) || h.held[sub.String()] {
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
