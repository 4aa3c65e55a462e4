package addresses

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// DefaultCooldown is how long a released address stays held before Allocate gives
// it again: long enough that the next customer does not inherit the last one's
// traffic, mail reputation or DNS records at once.
const DefaultCooldown = 24 * time.Hour

// Release puts into b the release of the addresses machine id holds (addrs, as its
// record lists them): each allocation record that still names the machine gets its
// ReleasedAt, required as it was read, so that the release lands with the delete of
// the machine's record in the caller's batch. A record already released, or held by
// another machine (taken over after an earlier release), is left alone. An address's
// reverse name is cleared with it, and deleted from the DNS server (see unpublish).
func (a *Addresses) Release(ctx context.Context, b *persistence.Batch, id string, addrs []hypervisor.Address) error {
	now := a.now()
	return a.eachHeld(ctx, b, id, addrs, func(al *Allocation) {
		a.unpublish(ctx, *al)
		al.ReleasedAt, al.PTR = &now, ""
	})
}

// Unallocate puts into b the delete of the allocation record of addr, when machine
// id still holds it (required as it was read): the undo of an allocation whose
// address the hypervisor never let the machine use (its push failed), so the address
// is free at once, with no cool-down.
func (a *Addresses) Unallocate(ctx context.Context, b *persistence.Batch, id string, addr hypervisor.Address) error {
	key := allocKey(addr.Pool, addr.Address)
	raw, err := a.store.Get(ctx, key)
	if errors.Is(err, persistence.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	var al Allocation
	if _, err := persistence.Decode(raw, &al); err != nil {
		return err
	}
	if al.MachineID != id || al.ReleasedAt != nil {
		return nil
	}
	b.Require(persistence.IfValue(key, bytes.Clone(raw))).Del(key)
	return nil
}

// Reassign puts into b, the batch that moves machine id to another tenant (nil: to
// none), the move of the addresses it holds: an allocation names the tenant holding
// it, and a moved machine's addresses are the new tenant's.
func (a *Addresses) Reassign(ctx context.Context, b *persistence.Batch, id string, addrs []hypervisor.Address, tenant *string) error {
	return a.eachHeld(ctx, b, id, addrs, func(al *Allocation) { al.TenantID = tenant })
}

// eachHeld puts into b each allocation record of addrs that machine id still holds,
// as change leaves it, required as it was read.
func (a *Addresses) eachHeld(ctx context.Context, b *persistence.Batch, id string, addrs []hypervisor.Address, change func(*Allocation)) error {
	for _, ad := range addrs {
		key := allocKey(ad.Pool, ad.Address)
		raw, err := a.store.Get(ctx, key)
		if errors.Is(err, persistence.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		var al Allocation
		if _, err := persistence.Decode(raw, &al); err != nil {
			return err
		}
		if al.MachineID != id || al.ReleasedAt != nil {
			continue
		}
		change(&al)
		val, err := persistence.Encode(allocVersion, &al)
		if err != nil {
			return err
		}
		b.Require(persistence.IfValue(key, bytes.Clone(raw))).Put(key, val)
	}
	return nil
}

// allocated counts a pool's allocation records: the addresses held, and those
// released but still cooling down (a record whose cool-down has passed is free).
func (a *Addresses) allocated(ctx context.Context, pool string) (int, error) {
	h, err := a.held(ctx, pool, a.now())
	return len(h.held), err
}
