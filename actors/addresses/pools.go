package addresses

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// Pool is a range of addresses machines are given theirs from: an IPv4 subnet whose
// addresses are handed out one by one, or an IPv6 range handed out as routed /64
// prefixes. A pool belongs to one location (hypervisor cluster) and serves only the
// machines made in it. A pool bound to a node serves only machines placed on that
// node; a pool bound to none serves every node of its location that has no pool of
// its own.
type Pool struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// CIDR is the pool's range, e.g. 192.0.2.0/24 or 2001:db8::/48.
	CIDR string `json:"cidr"`
	// Gateway is the router the pool's machines send through, inside CIDR.
	Gateway string `json:"gateway"`
	// Node is the node the pool serves alone (its name in the pool's location, or its
	// id); null: any node.
	Node *string `json:"node"`
	// Location is the hypervisor cluster whose machines the pool serves ("default":
	// the one the settings configure, and that of a pool written before locations).
	Location hvloc.ID `json:"location_id"`
	// DNS are the resolvers the pool's machines are told to use.
	DNS []string `json:"dns"`
	// Version is 4 or 6, from CIDR.
	Version int `json:"version"`
	// Allocated is how many of the pool's addresses (IPv6: prefixes) machines hold,
	// counting those released but still cooling down. It is counted when the pool is
	// read, never stored.
	Allocated int       `json:"allocated"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Bounds of a pool's fields.
const (
	MinNameLen, MaxNameLen = 1, 100
	// MaxDNS bounds the resolvers of a pool.
	MaxDNS = 4
	// MinIPv4Bits and MinIPv6Bits are the shortest prefixes a pool may have: a /8 of
	// IPv4 or a /16 of IPv6 is larger than any one installation hands out.
	MinIPv4Bits, MinIPv6Bits = 8, 16
	// MaxIPv4Bits is the longest IPv4 prefix (a /30: two usable addresses besides the
	// network and broadcast ones); MaxIPv6Bits the longest IPv6 one, a single /64.
	MaxIPv4Bits, MaxIPv6Bits = 30, 64
	// PrefixBits is the length of the IPv6 prefix each machine is routed.
	PrefixBits = 64
	// MaxAddressLen and MaxCIDRLen bound the text of an address and of a range (the
	// longest IPv6 ones, without zones).
	MaxAddressLen, MaxCIDRLen = 39, 43
)

// PoolSpec is a pool to create, the body of POST /api/resources/ip-pools.
type PoolSpec struct {
	Name    string   `json:"name" openapi:"required,limit=ip_pool.name"`
	CIDR    string   `json:"cidr" openapi:"required,limit=ip_pool.cidr" doc:"the range, e.g. 192.0.2.0/24 or 2001:db8::/48; IPv4 /8../30, IPv6 /16../64 (handed out as /64 prefixes)"`
	Gateway string   `json:"gateway" openapi:"required,limit=ip_pool.address" doc:"the gateway, an address inside cidr"`
	Node    *string  `json:"node,omitempty" openapi:"nullable,limit=id" doc:"the node the pool serves alone; null or omitted: any node"`
	DNS     []string `json:"dns,omitempty" openapi:"nullable,limit=ip_pool.dns,items.limit=ip_pool.address" doc:"resolvers the pool's machines use"`
	// LocationID is the location whose machines the pool serves.
	LocationID *string `json:"location_id,omitempty" openapi:"nullable,limit=id" doc:"the location whose machines the pool serves (GET /api/resources/locations); null or omitted: default"`
}

// PoolChange is a partial change of a pool, the body of PATCH
// /api/resources/ip-pools/{id}. The range never changes: addresses were handed out of it.
type PoolChange struct {
	Name    *string  `json:"name,omitempty" openapi:"limit=ip_pool.name"`
	Gateway *string  `json:"gateway,omitempty" openapi:"limit=ip_pool.address"`
	Node    *string  `json:"node,omitempty" openapi:"nullable,limit=id" doc:"null: any node"`
	DNS     []string `json:"dns,omitempty" openapi:"nullable,limit=ip_pool.dns,items.limit=ip_pool.address" doc:"null: none"`
	// LocationID moves the pool to another location: its addresses held stay with
	// their machines.
	LocationID *string `json:"location_id,omitempty" openapi:"nullable,limit=id" doc:"null: the default location"`
}

const poolVersion = 1

// nameKey is the index key of a pool name: ip-pool-name/<folded name>.
func nameKey(name string) []byte { return persistence.Key("ip-pool-name", kit.FoldName(name)) }

// Deps are what the addresses need from outside their package.
type Deps struct {
	Runtime *kit.Runtime
	// Cooldown is how long a released address stays held (0: DefaultCooldown; a
	// negative one frees it at once).
	Cooldown time.Duration
	// DNS is the server the tenants' reverse names are pushed to; nil: they are only
	// stored.
	DNS ReverseDNS
	// LocationExists answers whether a location of that id is there (a not-found
	// error otherwise), for a pool's location_id; nil: the default location alone is
	// known.
	LocationExists func(ctx context.Context, id string) error
}

// Addresses is the service of the pools and their allocations. Pools are written
// seldom, so they have no entity: each write is one conditional batch, and a write
// that lost a race is a 409. Allocations are written in their holders' batches.
type Addresses struct {
	rt       *kit.Runtime
	store    persistence.Store
	cooldown time.Duration
	dns      ReverseDNS
	located  func(ctx context.Context, id string) error
	// clock is time.Now but in tests that move time past a cool-down.
	clock func() time.Time
}

// now is the time as the allocations' records take it.
func (a *Addresses) now() time.Time { return a.clock().UTC() }

// Start returns the addresses' service.
func Start(d Deps) *Addresses {
	cooldown := d.Cooldown
	switch {
	case cooldown == 0:
		cooldown = DefaultCooldown
	case cooldown < 0:
		cooldown = 0
	}
	return &Addresses{rt: d.Runtime, store: d.Runtime.Store, cooldown: cooldown, dns: d.DNS, located: d.LocationExists, clock: time.Now}
}

// Get returns one pool.
func (a *Addresses) Get(ctx context.Context, id string) (Pool, error) {
	p, _, err := a.load(ctx, id)
	if err != nil {
		return Pool{}, err
	}
	p.Allocated, err = a.allocated(ctx, id)
	return p, err
}

// load returns a pool and its stored value, which a write requires unchanged.
func (a *Addresses) load(ctx context.Context, id string) (Pool, []byte, error) {
	if id == "" || len(id) > 64 || strings.Contains(id, "/") {
		return Pool{}, nil, apierr.NotFound("ip pool", id)
	}
	raw, err := a.store.Get(ctx, poolKey(id))
	if errors.Is(err, persistence.ErrNotFound) {
		return Pool{}, nil, apierr.NotFound("ip pool", id)
	}
	if err != nil {
		return Pool{}, nil, err
	}
	var p Pool
	if _, err := persistence.Decode(raw, &p); err != nil {
		return Pool{}, nil, err
	}
	return p, raw, nil
}

// List returns pools in creation order; with location, only those of that location
// (its id; "default": the default one).
func (a *Addresses) List(ctx context.Context, location *string, cursor string, limit int) ([]Pool, string, error) {
	list, next, err := kit.ScanPage(ctx, a.store, persistence.Prefix("ip-pool"), cursor, limit, func(r *Pool) (Pool, bool) {
		return *r, location == nil || string(r.Location) == hvloc.Tag(*location)
	})
	if err != nil {
		return nil, "", err
	}
	for i := range list {
		if list[i].Allocated, err = a.allocated(ctx, list[i].ID); err != nil {
			return nil, "", err
		}
	}
	return list, next, nil
}

// Create records a new pool; its name must be free, ignoring case (409 otherwise).
func (a *Addresses) Create(ctx context.Context, s PoolSpec) (Pool, error) {
	p := Pool{ID: persistence.NewID(), Name: s.Name, CIDR: s.CIDR, Gateway: s.Gateway, Node: s.Node, DNS: dns(s.DNS)}
	if s.LocationID != nil {
		p.Location = hvloc.ID(hvloc.Tag(*s.LocationID))
	}
	if err := a.validate(ctx, &p); err != nil {
		return Pool{}, err
	}
	now := a.now()
	p.CreatedAt, p.UpdatedAt = now, now
	if err := a.save(ctx, &p, nil, nil); err != nil {
		return Pool{}, err
	}
	return p, nil
}

// Update changes a pool: what c omits keeps its value, and node and dns are cleared
// by a null (nulls, by JSON name).
func (a *Addresses) Update(ctx context.Context, id string, c PoolChange, nulls map[string]bool) (Pool, error) {
	prev, raw, err := a.load(ctx, id)
	if err != nil {
		return Pool{}, err
	}
	next := prev
	if c.Name != nil {
		next.Name = *c.Name
	}
	if c.Gateway != nil {
		next.Gateway = *c.Gateway
	}
	switch {
	case c.Node != nil:
		next.Node = kit.Ptr(*c.Node)
	case nulls["node"]:
		next.Node = nil
	}
	if c.DNS != nil || nulls["dns"] {
		next.DNS = dns(c.DNS)
	}
	switch {
	case c.LocationID != nil:
		next.Location = hvloc.ID(hvloc.Tag(*c.LocationID))
	case nulls["location_id"]:
		next.Location = ""
	}
	if err := a.validate(ctx, &next); err != nil {
		return Pool{}, err
	}
	var conds []persistence.Cond
	if next.Location != prev.Location {
		// The machines holding its addresses stay in their cluster. As a delete does,
		// the move requires the allocation stamp as read before the count, so an
		// allocation made meanwhile refuses it.
		stamp, err := a.store.Get(ctx, stampKey(id))
		if err != nil && !errors.Is(err, persistence.ErrNotFound) {
			return Pool{}, err
		}
		if stamp == nil {
			conds = append(conds, persistence.IfAbsent(stampKey(id)))
		} else {
			conds = append(conds, persistence.IfValue(stampKey(id), stamp))
		}
		if n, err := a.allocated(ctx, id); err != nil {
			return Pool{}, err
		} else if n > 0 {
			return Pool{}, apierr.New(apierr.ErrConflict, "ip pool %s has %d allocated address(es) in location %s; a pool in use stays in its location",
				id, n, hvloc.Name(string(prev.Location)))
		}
	}
	next.UpdatedAt = a.now()
	if err := a.save(ctx, &next, &prev, raw, conds...); err != nil {
		return Pool{}, err
	}
	next.Allocated, err = a.allocated(ctx, id)
	return next, err
}

// Delete deletes a pool none of whose addresses is held (or cooling down after its
// release); one with allocations is a 409. It is safe against an allocation made at
// once: the allocation requires the pool record unchanged, and the delete requires the
// pool's allocation stamp as it read it before counting, so one of the two is refused.
func (a *Addresses) Delete(ctx context.Context, id string) error {
	p, raw, err := a.load(ctx, id)
	if err != nil {
		return err
	}
	// The stamp is read before the allocations are counted: an allocation that
	// commits after the count moves it, and the delete is refused.
	stamp, err := a.store.Get(ctx, stampKey(id))
	if err != nil && !errors.Is(err, persistence.ErrNotFound) {
		return err
	}
	h, err := a.held(ctx, id, a.now())
	if err != nil {
		return err
	}
	if n := len(h.held); n > 0 {
		return apierr.New(apierr.ErrConflict, "ip pool %s has %d allocated address(es) (held by machines, or released and cooling down)", id, n)
	}
	b := new(persistence.Batch).Require(persistence.IfValue(poolKey(id), raw)).Del(poolKey(id))
	if stamp == nil {
		b.Require(persistence.IfAbsent(stampKey(id)))
	} else {
		b.Require(persistence.IfValue(stampKey(id), stamp)).Del(stampKey(id))
	}
	// Released addresses whose cool-down has passed go with the pool.
	for addr, v := range h.cooled {
		b.Require(persistence.IfValue(allocKey(id, addr), v)).Del(allocKey(id, addr))
	}
	if holder, err := a.store.Get(ctx, nameKey(p.Name)); err == nil && string(holder) == id {
		b.Del(nameKey(p.Name))
	}
	if err := a.rt.Audit(b, kit.AuditOf(ctx).On("", id, "")); err != nil {
		return err
	}
	if err := a.store.Commit(ctx, b); persistence.IsConditionFailed(err) {
		return apierr.New(apierr.ErrConflict, "ip pool %s changed while it was deleted; try again", id)
	} else if err != nil {
		return err
	}
	return nil
}

// save writes p; prev and raw, for a change, are the pool as it was read and its
// stored value, which the batch requires unchanged, as it requires conds. A name it
// takes must be free.
func (a *Addresses) save(ctx context.Context, p, prev *Pool, raw []byte, conds ...persistence.Cond) error {
	stored := *p
	stored.Allocated = 0
	val, err := persistence.Encode(poolVersion, &stored)
	if err != nil {
		return err
	}
	b := new(persistence.Batch).Put(poolKey(p.ID), val)
	for _, c := range conds {
		b.Require(c)
	}
	if prev == nil {
		b.Require(persistence.IfAbsent(poolKey(p.ID)))
	} else {
		b.Require(persistence.IfValue(poolKey(p.ID), raw))
	}
	if prev == nil || kit.FoldName(prev.Name) != kit.FoldName(p.Name) {
		if err := a.nameFree(ctx, p.Name, p.ID); err != nil {
			return err
		}
		b.Require(persistence.IfAbsent(nameKey(p.Name))).Put(nameKey(p.Name), []byte(p.ID))
		if prev != nil {
			b.Del(nameKey(prev.Name))
		}
	}
	if err := a.rt.Audit(b, kit.AuditOf(ctx).On("", p.ID, "")); err != nil {
		return err
	}
	if err := a.store.Commit(ctx, b); persistence.IsConditionFailed(err) {
		if err := a.nameFree(ctx, p.Name, p.ID); err != nil {
			return err
		}
		return apierr.New(apierr.ErrConflict, "ip pool %s changed while it was written; try again", p.ID)
	} else if err != nil {
		return err
	}
	return nil
}

// nameFree is a 409 when a ip pool other than self is named name, ignoring case.
func (a *Addresses) nameFree(ctx context.Context, name, self string) error {
	return kit.NameFree(ctx, a.store, nameKey(name), "ip pool", name, self)
}

// dns is the resolvers as stored: never nil, so that the API shows [].
func dns(d []string) []string {
	if d == nil {
		return []string{}
	}
	return slices.Clone(d)
}

// validate checks every field of a pool (validate) and that its location is there.
func (a *Addresses) validate(ctx context.Context, p *Pool) error {
	if err := validate(p); err != nil {
		return err
	}
	tag := string(p.Location)
	if tag == "" {
		return nil
	}
	bad := apierr.Invalid(apierr.Field("location_id", "no location %s", tag))
	if a.located == nil || len(tag) > 64 || strings.Contains(tag, "/") {
		return bad
	}
	if err := a.located(ctx, tag); errors.Is(err, apierr.ErrNotFound) {
		return bad
	} else if err != nil {
		return err
	}
	return nil
}

// CountLocation counts the pools of the location tagged tag (a location with pools is
// not deleted).
func (a *Addresses) CountLocation(ctx context.Context, tag string) (int, error) {
	n := 0
	err := a.store.Scan(ctx, persistence.Prefix("ip-pool"), nil, 0, func(_, v []byte) error {
		var p Pool
		if _, err := persistence.Decode(v, &p); err != nil {
			return err
		}
		if string(p.Location) == tag {
			n++
		}
		return nil
	})
	return n, err
}

// validate checks every field of a pool, sets its version from its range, and writes
// the range and addresses in their canonical text.
func validate(p *Pool) error {
	var f []apierr.FieldError
	if n := len(strings.TrimSpace(p.Name)); n < MinNameLen || len(p.Name) > MaxNameLen {
		f = append(f, apierr.Field("name", "must be %d..%d characters", MinNameLen, MaxNameLen))
	}
	prefix, err := netip.ParsePrefix(p.CIDR)
	switch {
	case err != nil:
		f = append(f, apierr.Field("cidr", "must be a range such as 192.0.2.0/24 or 2001:db8::/48"))
	case prefix != prefix.Masked():
		f = append(f, apierr.Field("cidr", "has bits set past its length: the range is %s", prefix.Masked()))
	case prefix.Addr().Is4() && (prefix.Bits() < MinIPv4Bits || prefix.Bits() > MaxIPv4Bits):
		f = append(f, apierr.Field("cidr", "an IPv4 range must be /%d../%d", MinIPv4Bits, MaxIPv4Bits))
	case prefix.Addr().Is6() && (prefix.Bits() < MinIPv6Bits || prefix.Bits() > MaxIPv6Bits):
		f = append(f, apierr.Field("cidr", "an IPv6 range must be /%d../%d (machines are routed /%d prefixes)", MinIPv6Bits, MaxIPv6Bits, PrefixBits))
	case prefix.Addr().Is4In6() || prefix.Addr().Zone() != "":
		f = append(f, apierr.Field("cidr", "must be a plain IPv4 or IPv6 range"))
	default:
		p.CIDR = prefix.String()
		p.Version = 4
		if prefix.Addr().Is6() {
			p.Version = 6
		}
	}
	if gw, err := netip.ParseAddr(p.Gateway); err != nil || gw.Zone() != "" {
		f = append(f, apierr.Field("gateway", "must be an IP address"))
	} else if prefix.IsValid() && !prefix.Contains(gw) && !(gw.Is6() && gw.IsLinkLocalUnicast() && prefix.Addr().Is6()) {
		f = append(f, apierr.Field("gateway", "must be inside %s (or, for IPv6, link-local)", p.CIDR))
	} else {
		p.Gateway = gw.String()
	}
	if p.Node != nil && (*p.Node == "" || len(*p.Node) > 64) {
		f = append(f, apierr.Field("node", "must be a node name of 1..64 characters"))
	}
	if len(p.DNS) > MaxDNS {
		f = append(f, apierr.Field("dns", "must list at most %d resolvers", MaxDNS))
	}
	for i, d := range p.DNS {
		addr, err := netip.ParseAddr(d)
		if err != nil || addr.Zone() != "" {
			f = append(f, apierr.Field(fmt.Sprintf("dns[%d]", i), "must be an IP address"))
			continue
		}
		p.DNS[i] = addr.String()
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return nil
}
