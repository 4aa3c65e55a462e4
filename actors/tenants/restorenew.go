package tenants

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/vmplane/vmplane/actors/addresses"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/persistence"
)

// An operator restores a backup into a new machine of a tenant: the tenant's entity
// checks and reserves the quota and records the machine in one batch, as for a
// create, and the machine's task restores the backup on the hypervisor.

// RestoreNewRequest asks for a backup to be restored into a new machine.
type RestoreNewRequest struct {
	// Node is the node to restore to; "": the driver's choice (the backup's node when
	// its storage is local to one, else the least loaded online node).
	Node string `json:"node,omitempty" openapi:"minLength=1,limit=hypervisor.name"`
	// Name is the new machine's; "": the backup's machine's name.
	Name string `json:"name,omitempty" openapi:"limit=machine.name"`
	// TenantID is the tenant the new machine belongs to, within its quota; absent: the
	// backup's tenant.
	TenantID *string `json:"tenant_id,omitempty" openapi:"limit=id"`
	// StartAfter starts the machine once it is restored (it is restored stopped).
	StartAfter bool `json:"start_after,omitempty" doc:"start the new machine once it is restored"`
}

// restoreMachine asks a tenant's entity to reserve its quota for a restore into a new
// machine and record the machine.
type restoreMachine struct {
	Target machines.RestoreTarget
	// Name and Node are the record's until the hypervisor reports the machine.
	Name, Node string
	Sizes      machines.RestoreSizes
	// IPv4 and IPv6 are the addresses the machine gets from the IP pools (restoreAddresses).
	IPv4 int
	IPv6 bool
	// Stamp: as createMachine's.
	Stamp *kit.Stamp
}

// RestoreNew restores backup id into a new machine of the tenant req names (else the
// backup's), within that tenant's quota: the quota is checked and reserved and the
// machine recorded in one durable step, as a create's, then the restore runs as the
// machine's task (vm.restore_new). The quota counts the sizes of the backup's machine
// as its record stands, or none when the machine is gone; the record takes the
// restored machine's sizes from the hypervisor when the task ends. An unknown backup
// is 404, an unknown tenant or node 400, a suspended tenant 403 tenant_suspended.
func (t *Tenants) RestoreNew(ctx context.Context, id string, req RestoreNewRequest) (Provisioned, error) {
	st := kit.StampOf(ctx)
	if r, ok, err := kit.Recorded[Provisioned](st); ok {
		return r, err
	}
	b, err := t.sys.Backups.Find(ctx, id, nil)
	if err != nil {
		return Provisioned{}, err
	}
	tenant := b.TenantID
	if req.TenantID != nil {
		tenant = *req.TenantID
	}
	var f []apierr.FieldError
	if req.Name != "" && !machines.ValidName(req.Name) {
		f = append(f, machines.NameFieldError())
	}
	if _, err := t.Get(ctx, tenant); errors.Is(err, apierr.ErrNotFound) {
		f = append(f, apierr.Field("tenant_id", "no tenant %s", tenant))
	} else if err != nil {
		return Provisioned{}, err
	}
	if len(f) > 0 {
		return Provisioned{}, apierr.Invalid(f...)
	}
	if loc := string(b.Location); req.Node != "" && loc != "" {
		// A node of the backup's location, where the archive is: named there
		// without the @location of its record's id (capacity.NodeID).
		req.Node = strings.TrimSuffix(req.Node, "@"+loc)
	}
	if req.Node != "" {
		n, err := t.sys.Nodes.Get(ctx, capacity.NodeID(string(b.Location), req.Node))
		if errors.Is(err, apierr.ErrNotFound) {
			return Provisioned{}, apierr.Invalid(apierr.Field("node", "no node %s", req.Node))
		}
		if err != nil {
			return Provisioned{}, err
		}
		if n.Status != string(hypervisor.NodeOnline) {
			return Provisioned{}, apierr.New(apierr.ErrInvalidState, "node %s is %s", n.ID, n.Status)
		}
	}
	msg := &restoreMachine{Target: machines.RestoreTarget{From: b.Ref(), BackupID: b.ID,
		Archive: b.BackupID, Name: req.Name, Node: req.Node, StartAfter: req.StartAfter},
		Name: req.Name, Node: req.Node, Stamp: st}
	if msg.Node == "" {
		msg.Node = b.Node // until the hypervisor says where it restored the machine
	}
	src, err := t.sys.Machines.Stored(ctx, b.MachineID)
	if err == nil {
		msg.Sizes = machines.RestoreSizes{CPUCores: src.CPUCores, MemoryMB: src.MemoryMB, DiskGB: src.DiskGB,
			TemplateID: src.TemplateID, PlanID: src.PlanID}
		if msg.Name == "" {
			msg.Name = src.Name
		}
		if msg.IPv4, msg.IPv6, err = t.restoreAddresses(ctx, src); err != nil {
			return Provisioned{}, err
		}
	} else if !errors.Is(err, apierr.ErrNotFound) {
		return Provisioned{}, err
	}
	if msg.Name == "" {
		// The backup's machine is gone and no name was asked: the machine gets one of
		// its own, so that a restart finds it by that name if the process dies before
		// the task records its vmid (without one it could not be told from any other).
		msg.Name = restoredName()
		msg.Target.Name = msg.Name
	}
	return kit.Ask[Provisioned](ctx, t.kind, tenant, msg)
}

// restoreMachine reserves the tenant's quota for a restore into a new machine,
// allocates its addresses and records the machine in the same batch
// (machines.AddRestoreAs), through the loop a create takes (provision). Addresses
// come from the pools of the backup's location; those from pools bound to the
// record's node hold the restore to that node.
func (e *tenantEntity) restoreMachine(ctx *kit.Ctx, m *restoreMachine) {
	if e.rec.Suspension != nil {
		// A suspension stops the tenant's machines: a new one would escape it.
		ctx.Fail(SuspendedError(e.rec.Suspension))
		return
	}
	s := m.Sizes
	need := Usage{Machines: 1, CPUCores: s.CPUCores, MemoryMB: s.MemoryMB, DiskGB: s.DiskGB}
	// The new machine is the backup's location's (the archive is there, and the
	// record's location is its ref's): that location's pools serve it.
	loc := hvloc.Tag(m.Target.From.Location)
	want := addresses.Want{Location: loc, Node: m.Node, IPv4: m.IPv4, IPv6: m.IPv6}
	if m.Node != "" {
		want.NodeID = capacity.NodeID(loc, m.Node)
	}
	e.provision(ctx, m.Stamp, need, want, func(actx context.Context, b *persistence.Batch, id string, g addresses.Grant) (*machines.Creation, error) {
		t := m.Target
		t.Addresses = g.Addresses
		if t.Node == "" {
			t.Node = g.Node
		}
		return e.sys.Machines.AddRestoreAs(actx, b, id, e.id, t, m.Name, m.Node, s)
	})
}

// restoreAddresses says what addresses a restore of src's backup gets from the IP
// pools, as a create of src would: its plan's (ipv4, a prefix with ipv6_prefix);
// without a plan (or with one deleted since), as many as src's record lists of each
// version. A backup whose machine is gone gets none: nothing says what it had, and
// the copy keeps the backup's network configuration.
func (t *Tenants) restoreAddresses(ctx context.Context, src machines.Machine) (v4 int, v6 bool, err error) {
	if src.PlanID != nil && t.sys.Plans != nil {
		p, err := t.sys.Plans.Get(ctx, *src.PlanID)
		if err == nil {
			return p.IPv4, p.IPv6Prefix != nil, nil
		}
		if !errors.Is(err, apierr.ErrNotFound) {
			return 0, false, err
		}
	}
	for _, a := range src.Addresses {
		switch a.Version {
		case 4:
			v4++
		case 6:
			v6 = true
		}
	}
	return v4, v6, nil
}

// restoredName is the name of a machine restored from the backup of a machine gone
// when none was asked: "restored-" and 8 random hex digits, a valid machine name.
func restoredName() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "restored-" + hex.EncodeToString(b[:])
}
