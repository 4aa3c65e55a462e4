package machines

import "github.com/vmplane/vmplane/persistence"

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
