package tenants

import (
	"context"
	"net/netip"

	"github.com/vmplane/vmplane/actors/addresses"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/persistence"
)

// A new machine's addresses: a plan's machine gets the plan's ipv4 addresses and,
// when the plan has ipv6_prefix, a routed /64; a machine of explicit sizes gets what
// an operator asks for in the body (ipv4, ipv6), none by default. They are allocated
// on the node the machine is placed on (CreateMachine places it before the tenant's
// entity sees the create), in the batch that records the machine, so an address is
// never held by a machine that was not made, nor a machine made with an address
// another holds.

// addressesOf sets s.IPv4 and s.IPv6 to what the machine gets: the plan's when it
// has one (a count given beside a plan is refused, as sizes are), else the body's
// (the edge lets only operators give them), or none.
func addressesOf(s *MachineSpec, plan *plans.Plan) error {
	var f []apierr.FieldError
	if plan != nil {
		if s.IPv4 != nil {
			f = append(f, apierr.Field("ipv4", "must be omitted with plan_id: the plan gives the addresses"))
		}
		if s.IPv6 != nil {
			f = append(f, apierr.Field("ipv6", "must be omitted with plan_id: the plan gives the addresses"))
		}
		if len(f) > 0 {
			return apierr.Invalid(f...)
		}
		v4, v6 := plan.IPv4, plan.IPv6Prefix != nil
		s.IPv4, s.IPv6 = &v4, &v6
		return addressAsked(s)
	}
	if s.IPv4 != nil && (*s.IPv4 < 0 || *s.IPv4 > plans.MaxIPv4) {
		f = append(f, apierr.Field("ipv4", "must be 0..%d", plans.MaxIPv4))
	}
	if len(f) > 0 {
		return apierr.Invalid(f...)
	}
	return addressAsked(s)
}

// addressAsked refuses an address asked for on a machine that gets no IPv4 address,
// and one that is no IPv4 address (which the allocator would refuse only once the
// quota and the placement were checked).
func addressAsked(s *MachineSpec) error {
	if s.Address == nil {
		return nil
	}
	if s.IPv4 == nil || *s.IPv4 < 1 {
		return apierr.Invalid(apierr.Field("address", "is the machine's first IPv4 address, and it gets none (its plan's ipv4 is 0, or ipv4 is not given)"))
	}
	if ip, err := netip.ParseAddr(*s.Address); err != nil || !ip.Is4() {
		return apierr.Invalid(apierr.Field("address", "must be an IPv4 address such as 192.0.2.10"))
	}
	return nil
}

// wantOf is what s asks for: its counts (addressesOf) on its node, in its location
// (s.LocationID holds its tag once CreateMachine has read it).
func wantOf(s MachineSpec) addresses.Want {
	w := addresses.Want{Location: s.LocationID, Node: s.Node}
	if s.Node != "" {
		w.NodeID = capacity.NodeID(s.LocationID, s.Node)
	}
	if s.IPv4 != nil {
		w.IPv4 = *s.IPv4
	}
	w.IPv6 = s.IPv6 != nil && *s.IPv6
	if s.Address != nil {
		w.Address = *s.Address
	}
	return w
}

// allocate puts into b the allocations of the addresses w asks for, for machine id;
// a pool that cannot give them is 409 pool_exhausted, and nothing is written.
func (e *tenantEntity) allocate(ctx context.Context, b *persistence.Batch, w addresses.Want, id string) (addresses.Grant, error) {
	if e.sys.Addresses == nil || (w.IPv4 == 0 && !w.IPv6) {
		return addresses.Grant{}, nil
	}
	return e.sys.Addresses.Allocate(ctx, b, w, id, &e.id)
}

// taken is Addresses.Taken, false without pools.
func (e *tenantEntity) taken(ctx context.Context, g addresses.Grant) (bool, error) {
	if e.sys.Addresses == nil || len(g.Addresses) == 0 {
		return false, nil
	}
	return e.sys.Addresses.Taken(ctx, g)
}
