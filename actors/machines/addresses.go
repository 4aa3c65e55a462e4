package machines

import (
	"context"
	"slices"
	"time"

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
	merge := func(b *persistence.Batch) error {
		b.Ops, b.Conds = append(b.Ops, theirs.Ops...), append(b.Conds, theirs.Conds...)
		return nil
	}
	err = e.saveWith(&next, nil, "addresses", nil, merge) // refused: persistence's 409
	return e.rec.Machine, err
}
