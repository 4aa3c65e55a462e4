package machines

import (
	"context"
	"errors"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/persistence"
)

// releaseAddresses puts into b, the batch that deletes the machine's record, the
// release of the addresses it holds from the IP pools, so the two land together: an
// address is never held by a machine that is gone, nor freed from one that stays.
func (e *machineEntity) releaseAddresses(b *persistence.Batch) error {
	if e.sys.releaseAddresses == nil || len(e.rec.Addresses) == 0 {
		return nil
	}
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	return e.sys.releaseAddresses(ctx, b, e.id, e.rec.Addresses)
}

// reassignAddresses is what puts into the batch that moves the machine to tenant the
// move of its addresses (nil when it holds none).
func (e *machineEntity) reassignAddresses(tenant *string) func(*persistence.Batch) error {
	if e.sys.reassignAddresses == nil || len(e.rec.Addresses) == 0 {
		return nil
	}
	return func(b *persistence.Batch) error {
		ctx, cancel := e.sys.rt.Work()
		defer cancel()
		return e.sys.reassignAddresses(ctx, b, e.id, e.rec.Addresses, tenant)
	}
}

// AddressChange is a change of a machine's addresses, which the IP pools make (Deps.
// ChangeAddresses): the reverse name of Address set to PTR, "" clearing it.
type AddressChange struct {
	Address string `json:"address"`
	PTR     string `json:"ptr"`
}

// AddressesChanger checks c against the addresses a machine holds (have), puts the
// records it changes into b, and returns the machine's addresses as they are after it.
type AddressesChanger func(ctx context.Context, b *persistence.Batch, machine string, have []hypervisor.Address, c AddressChange) ([]hypervisor.Address, error)

type changeAddresses struct {
	Tenant *string
	Change AddressChange
}

// ChangeAddresses makes c to machine id's addresses (tenant: its own, unsuspended) and answers the machine.
func (m *Machines) ChangeAddresses(ctx context.Context, id string, tenant *string, c AddressChange) (Machine, error) {
	return askMachine[Machine](ctx, m, id, &changeAddresses{Tenant: tenant, Change: c})
}

// changeAddresses records what the IP pools made of a change, in one batch with theirs.
func (e *machineEntity) changeAddresses(m *changeAddresses) (Machine, error) {
	switch {
	case !kit.InScope(m.Tenant, e.rec.TenantID):
		return Machine{}, apierr.NotFound("machine", e.id)
	case m.Tenant != nil && e.rec.BillingSuspension != nil:
		return Machine{}, machineSuspended(e.rec.BillingSuspension)
	}
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	theirs := new(persistence.Batch)
	next := *e.rec
	next.UpdatedAt = time.Now().UTC()
	var err error
	if next.Addresses, err = e.sys.changeAddresses(ctx, theirs, e.id, slices.Clone(e.rec.Addresses), m.Change); err != nil {
		return Machine{}, err
	}
	err = e.saveWith(&next, nil, "addresses", nil, merged(theirs)) // refused: persistence's 409
	return e.rec.Machine, err
}

// Bounds of the addresses a machine of no plan holds, which only operators add: the
// IPv4 addresses, as a plan's ipv4 is bounded, and the routed IPv6 prefixes.
const (
	MaxIPv4Addresses = 256
	MaxIPv6Prefixes  = 16
)

// MinAddressVersion and MaxAddressVersion bound an added address's IP version (of
// which 4 and 6 exist).
const MinAddressVersion, MaxAddressVersion = 4, 6

// AddressRequest is one more address for a machine, the body of POST
// .../machines/{id}/addresses.
type AddressRequest struct {
	Version int    `json:"version" openapi:"required,limit=address.version" doc:"4: one more IPv4 address; 6: a routed IPv6 /64 prefix (5 is refused)"`
	Address string `json:"address,omitempty" openapi:"limit=ip_pool.address" doc:"IPv4 only: the address asked for, which must be a free host address of an IP pool usable on the machine's node (held or cooling down: 409 address_taken; in no such pool: 422 address_unusable); omitted: the lowest free one"`
}

// AddressAdder puts into b the allocation of one more address for machine (of
// tenant, on node of the location tagged loc; have are the addresses it holds, whose pools are preferred), as r
// asks, and returns it, with taken, which reports after b was refused whether another
// allocation took the address or changed its pool (then it is allocated again).
type AddressAdder func(ctx context.Context, b *persistence.Batch, machine string, tenant *string, loc, node string, have []hypervisor.Address, r AddressRequest) (addr hypervisor.Address, taken func(context.Context) (bool, error), err error)

type (
	addAddress struct {
		Tenant  *string
		Request AddressRequest
	}
	removeAddress struct {
		Tenant  *string
		Address string
	}
)

// AddAddress gives machine id one more address from the IP pools (tenant: its own,
// unsuspended), within its plan's counts, and answers the machine once the pools, its
// record and the hypervisor hold it.
func (m *Machines) AddAddress(ctx context.Context, id string, tenant *string, r AddressRequest) (Machine, error) {
	return askMachine[Machine](ctx, m, id, &addAddress{Tenant: tenant, Request: r})
}

// RemoveAddress takes one of machine id's addresses but its first (its primary) away:
// the hypervisor stops letting it through, then the pool releases it (with the
// cool-down of a delete) in the write of the record.
func (m *Machines) RemoveAddress(ctx context.Context, id string, tenant *string, address string) (Machine, error) {
	return askMachine[Machine](ctx, m, id, &removeAddress{Tenant: tenant, Address: address})
}

// addressTries bounds the allocations made again because another machine's took the
// address first.
const addressTries = 20

// addressesWritable refuses a change of the machine's addresses that the caller
// (tenant: a tenant's user) may not make now.
func (e *machineEntity) addressesWritable(tenant *string) error {
	switch {
	case !kit.InScope(tenant, e.rec.TenantID):
		return apierr.NotFound("machine", e.id)
	case tenant != nil && e.rec.BillingSuspension != nil:
		return machineSuspended(e.rec.BillingSuspension)
	case tenant != nil && e.rec.TerminateAt != nil:
		return apierr.New(apierr.ErrInvalidState, "machine %s is to be deleted at %s", e.id, e.rec.TerminateAt.Format(time.RFC3339))
	case e.rec.TaskID != nil:
		return apierr.New(apierr.ErrOperationInProgress, "machine %s has task %s in progress", e.id, *e.rec.TaskID)
	case e.rec.VMID == 0:
		return apierr.New(apierr.ErrInvalidState, "machine %s was never made on the hypervisor", e.id)
	}
	return nil
}

// addAddress allocates one more address (m.Request), records it with the allocation in
// one batch, then has the hypervisor let the machine use it. Should the hypervisor
// fail, the previous set is pushed again and, once that is in place, the allocation
// and the record's entry are undone, the address free at once (the machine never
// used it); should that push fail too, the machine keeps the address (pool, record)
// so that the pools never hand out an address the hypervisor may let it through, and
// the next change of its addresses pushes the whole set again.
func (e *machineEntity) addAddress(m *addAddress) (Machine, error) {
	if err := e.addressesWritable(m.Tenant); err != nil {
		return Machine{}, err
	}
	r := m.Request
	switch {
	case r.Version != 4 && r.Version != 6:
		return Machine{}, apierr.Invalid(apierr.Field("version", "must be 4 or 6"))
	case r.Address != "" && r.Version != 4:
		return Machine{}, apierr.Invalid(apierr.Field("address", "is asked for only with version 4 (an IPv6 prefix is the lowest free)"))
	case e.sys.addAddress == nil:
		return Machine{}, apierr.New(apierr.ErrConflict, "this server hands out no addresses from IP pools")
	case len(e.rec.Addresses) == 0:
		// The hypervisor is told the whole set the machine may use: it would then
		// let the new address alone through, not the one configured outside vmplane.
		return Machine{}, apierr.New(apierr.ErrConflict, "machine %s holds no address from the IP pools: its network is configured outside vmplane", e.id)
	}
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	if err := e.withinPlan(ctx, m.Tenant, r.Version); err != nil {
		return Machine{}, err
	}
	before := slices.Clone(e.rec.Addresses)
	var got hypervisor.Address
	for try := 1; ; try++ {
		theirs := new(persistence.Batch)
		addr, taken, err := e.sys.addAddress(ctx, theirs, e.id, e.rec.TenantID, string(e.rec.Location), e.rec.Node, slices.Clone(before), r)
		if err != nil {
			return Machine{}, err
		}
		next := *e.rec
		next.Addresses = append(slices.Clone(before), addr)
		next.UpdatedAt = time.Now().UTC()
		err = e.saveWith(&next, nil, "addresses", nil, merged(theirs))
		if persistence.IsConditionFailed(err) && try < addressTries {
			if again, terr := taken(ctx); terr == nil && again {
				continue
			}
		}
		if err != nil {
			return Machine{}, err
		}
		got = addr
		break
	}
	perr := e.pushAddresses(ctx, e.rec.Addresses)
	if perr == nil {
		return e.rec.Machine, nil
	}
	if err := e.pushAddresses(ctx, before); err != nil {
		e.sys.log.Warn("the machine keeps an address the hypervisor may not have: neither the new set nor the previous one was taken",
			zap.String("machine_id", e.id), zap.String("address", got.Address), zap.Error(err))
		return Machine{}, perr
	}
	undo := *e.rec
	undo.Addresses = before
	undo.UpdatedAt = time.Now().UTC()
	theirs := new(persistence.Batch)
	err := e.sys.unallocateAddress(ctx, theirs, e.id, got)
	if err == nil {
		err = e.saveWith(&undo, nil, "addresses", nil, merged(theirs))
	}
	if err != nil {
		// The address stays held and listed: the safe side, as above.
		e.sys.log.Warn("the allocation of an address the hypervisor refused is not undone", zap.String("machine_id", e.id),
			zap.String("address", got.Address), zap.Error(err))
	}
	return Machine{}, perr
}

// removeAddress takes m.Address (an IPv6 prefix named by its first address or its
// ::1) from the machine: the hypervisor first, so that it never lets through an
// address the pool has released, then the release and the record in one batch. A
// batch refused after the push puts the previous set back on the hypervisor.
func (e *machineEntity) removeAddress(m *removeAddress) (Machine, error) {
	if !kit.InScope(m.Tenant, e.rec.TenantID) {
		return Machine{}, apierr.NotFound("machine", e.id)
	}
	i := slices.IndexFunc(e.rec.Addresses, func(h hypervisor.Address) bool { return h.Address == m.Address || h.Host() == m.Address })
	if i < 0 {
		return Machine{}, apierr.NotFound("address", m.Address)
	}
	if err := e.addressesWritable(m.Tenant); err != nil {
		return Machine{}, err
	}
	if i == 0 {
		return Machine{}, apierr.New(apierr.ErrConflict, "address %s is the machine's primary address: it goes only with the machine", m.Address)
	}
	ctx, cancel := e.sys.rt.Work()
	defer cancel()
	gone := e.rec.Addresses[i]
	next := *e.rec
	next.Addresses = slices.Delete(slices.Clone(e.rec.Addresses), i, i+1)
	next.UpdatedAt = time.Now().UTC()
	if err := e.pushAddresses(ctx, next.Addresses); err != nil {
		return Machine{}, err
	}
	theirs := new(persistence.Batch)
	err := e.releaseOne(ctx, theirs, gone)
	if err == nil {
		err = e.saveWith(&next, nil, "addresses", nil, merged(theirs))
	}
	if err != nil {
		if perr := e.pushAddresses(ctx, e.rec.Addresses); perr != nil {
			e.sys.log.Warn("the hypervisor no longer has an address the machine's record keeps", zap.String("machine_id", e.id),
				zap.String("address", gone.Address), zap.Error(perr))
		}
		return Machine{}, err
	}
	return e.rec.Machine, nil
}

// releaseOne puts into b the release of one address of the machine (with the
// cool-down of a delete).
func (e *machineEntity) releaseOne(ctx context.Context, b *persistence.Batch, addr hypervisor.Address) error {
	if e.sys.releaseAddresses == nil {
		return nil
	}
	return e.sys.releaseAddresses(ctx, b, e.id, []hypervisor.Address{addr})
}

// withinPlan refuses one more address of version past what the machine's plan gives
// each of its machines (ipv4; one /64 when it has ipv6_prefix). A machine of no plan
// (or whose plan is gone) takes more from operators only, up to MaxIPv4Addresses and
// MaxIPv6Prefixes.
func (e *machineEntity) withinPlan(ctx context.Context, tenant *string, version int) error {
	have := 0
	for _, a := range e.rec.Addresses {
		if a.Version == version {
			have++
		}
	}
	var pl *PlanLimits
	if e.rec.PlanID != nil && e.sys.planLimits != nil {
		got, err := e.sys.planLimits(ctx, *e.rec.PlanID)
		switch {
		case err == nil:
			pl = &got
		case !errors.Is(err, apierr.ErrNotFound):
			return err
		}
	}
	if pl == nil {
		if tenant != nil {
			return apierr.New(apierr.ErrConflict, "machine %s has no plan: only an operator gives it more addresses", e.id)
		}
		limit := MaxIPv4Addresses
		if version == 6 {
			limit = MaxIPv6Prefixes
		}
		if have+1 > limit {
			return apierr.New(apierr.ErrConflict, "a machine holds at most %d IPv%d addresses", limit, version)
		}
		return nil
	}
	limit, what := pl.IPv4, "IPv4 address(es)"
	if version == 6 {
		limit, what = 0, "IPv6 prefix(es)"
		if pl.IPv6 {
			limit = 1
		}
	}
	if have+1 > limit {
		refusal := apierr.New(apierr.ErrConflict, "plan %s allows each machine %d %s; the machine has %d", pl.Name, limit, what, have)
		refusal.Fields = []apierr.FieldError{apierr.Field("version", "plan %s allows %d per machine, the machine has %d", pl.Name, limit, have)}
		return refusal
	}
	return nil
}

// pushAddresses has the hypervisor let the machine use addrs (its whole set), when
// its driver keeps addresses (hypervisor.Readdresser).
func (e *machineEntity) pushAddresses(ctx context.Context, addrs []hypervisor.Address) error {
	r, ok := e.sys.driver.(hypervisor.Readdresser)
	if !ok {
		return nil
	}
	ref := e.ref()
	ref.Location = string(e.rec.Location)
	return r.SetAddresses(ctx, ref, addrs)
}

// merged is the extra of a save that carries theirs, a batch another room filled.
func merged(theirs *persistence.Batch) func(*persistence.Batch) error {
	return func(b *persistence.Batch) error {
		b.Ops, b.Conds = append(b.Ops, theirs.Ops...), append(b.Conds, theirs.Conds...)
		return nil
	}
}
