package tenants

import (
	"context"
	"errors"
	"strings"

	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/actors/plans"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
)

// A machine is made in one location (hypervisor cluster): its plan's, or the one its
// create names, or the default one. Its node is one of that location's, whether the
// create names it or placement chooses it, and its addresses come from that location's
// pools; the hypervisor is asked in that location (CreateSpec.Location).

// locationOf settles the location of a create, and leaves its tag in s.LocationID: the
// plan's when the create is from a plan (a body naming another is refused), else the
// one the body names (it must be there), else the default one ("").
func (t *Tenants) locationOf(ctx context.Context, s *MachineSpec, plan *plans.Plan) error {
	asked := s.LocationID != ""
	tag := hvloc.Tag(s.LocationID)
	if plan != nil {
		if asked && tag != string(plan.Location) {
			return apierr.Invalid(apierr.Field("location_id", "plan %s is sold in location %s, not %s",
				plan.Name, hvloc.Name(string(plan.Location)), s.LocationID))
		}
		s.LocationID = string(plan.Location)
		return nil
	}
	if err := plans.LocationKnown(ctx, t.sys.locationExists, "location_id", tag); err != nil {
		return err
	}
	s.LocationID = tag
	return nil
}

// nodeOf checks the node a create names, and leaves in s.Node its name in the
// location, which the hypervisor knows it by. The body names it by its id (NodeID:
// "pve1@fra" in a location other than the default one) or by its name in the create's
// location; it must be a node of that location (400 otherwise), and online (409).
func (t *Tenants) nodeOf(ctx context.Context, s *MachineSpec) error {
	id := s.Node
	if !strings.Contains(id, "@") {
		id = capacity.NodeID(s.LocationID, s.Node)
	}
	n, err := t.sys.Nodes.Get(ctx, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return apierr.Invalid(apierr.Field("node", "no node %s in location %s", s.Node, hvloc.Name(s.LocationID)))
	}
	if err != nil {
		return err
	}
	if string(n.Location) != s.LocationID {
		return apierr.Invalid(apierr.Field("node", "node %s is in location %s, not %s", n.ID, hvloc.Name(string(n.Location)), hvloc.Name(s.LocationID)))
	}
	if n.Status != string(hypervisor.NodeOnline) {
		return apierr.New(apierr.ErrInvalidState, "node %s is %s", n.ID, n.Status)
	}
	s.Node = n.HypervisorName()
	return nil
}
