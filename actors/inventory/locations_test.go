package inventory

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// TestSyncReadsEveryLocation: over a dispatcher with another location, whose cluster
// has machines of the same vmids and a node of the same name, the sync records both
// locations' machines and nodes apart. While that location does not answer, the sync
// still reconciles the default one and names the silent one, whose records stay as
// they were; when it answers again, the next sync heals it; with no location
// answering, the sync fails.
func TestSyncReadsEveryLocation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	def := sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 2, Machines: 2})
	other := sim.New(sim.Config{OpDelay: -1, Seed: 1, Nodes: 1, Machines: 3})
	disp := hvloc.New(def)
	disp.Set("fra", other)
	s := newTestSystem(t, disp.Driver())
	res, err := s.Inventory.Sync(ctx)
	if err != nil || res.Nodes != 3 || res.Machines.Added != 5 || len(res.Unavailable) != 0 {
		t.Fatalf("sync: %+v, %v; want 3 nodes and 5 machines of both locations", res, err)
	}
	nodes, _, err := s.Nodes.List(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range nodes {
		ids = append(ids, n.ID)
	}
	if !slices.Contains(ids, "pve1") || !slices.Contains(ids, "pve1@fra") || len(ids) != 3 {
		t.Fatalf("nodes %v; want pve1 of both locations apart (pve1, pve1@fra) and pve2", ids)
	}
	fra, err := s.Machines.VMIDs(ctx, "fra")
	if err != nil || fra.Len() != 3 {
		t.Fatalf("fra's vmids: %v, %v; want 3", fra, err)
	}
	tpls, err := s.Inventory.Templates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var fraTpl int
	for _, tp := range tpls {
		if tp.Location == "fra" {
			fraTpl++
			if !strings.HasSuffix(tp.ID, "@fra") {
				t.Errorf("fra's template %s: want its id id@fra", tp.ID)
			}
		}
	}
	if fraTpl == 0 || fraTpl*2 != len(tpls) {
		t.Fatalf("templates %+v; want each location's, fra's named id@fra", tpls)
	}

	// fra stops answering: the default location syncs, fra's records stay.
	other.SetAvailable(false)
	_, gone := s.machineIn(t, ctx, "")
	if err := def.Destroy(ctx, hypervisor.Ref{VMID: gone}); err != nil {
		t.Fatal(err)
	}
	res, err = s.Inventory.Sync(ctx)
	if err != nil || res.Machines.Removed != 1 || !slices.Equal(res.Unavailable, []string{"fra"}) {
		t.Fatalf("sync with fra down: %+v, %v; want the default's gone machine removed and fra named", res, err)
	}
	if still, err := s.Machines.VMIDs(ctx, "fra"); err != nil || still.Len() != 3 {
		t.Fatalf("fra's machines with fra down: %v, %v; want their 3 records kept", still, err)
	}
	if n, err := s.Nodes.Get(ctx, "pve1@fra"); err != nil || n.Status != string(hypervisor.NodeOnline) {
		t.Fatalf("fra's node with fra down: %+v, %v; want its record as it was", n, err)
	}
	if tpls2, err := s.Inventory.Templates(ctx); err != nil || len(tpls2) != len(tpls) {
		t.Fatalf("templates with fra down: %d, %v; want fra's kept (%d)", len(tpls2), err, len(tpls))
	}

	// Nobody answers: the sync fails.
	def.SetAvailable(false)
	if _, err := s.Inventory.Sync(ctx); err == nil {
		t.Fatal("sync with no location answering: no error")
	}
	def.SetAvailable(true)

	// fra is back: its machine destroyed meanwhile goes at the next sync.
	other.SetAvailable(true)
	lostID, lost := s.machineIn(t, ctx, "fra")
	if err := other.Destroy(ctx, hypervisor.Ref{VMID: lost}); err != nil {
		t.Fatal(err)
	}
	res, err = s.Inventory.Sync(ctx)
	if err != nil || res.Machines.Removed != 1 || len(res.Unavailable) != 0 {
		t.Fatalf("sync with fra back: %+v, %v; want fra's destroyed machine removed", res, err)
	}
	if _, err := s.Machines.Stored(ctx, lostID); err == nil {
		t.Errorf("fra's destroyed machine %s still recorded", lostID)
	}
	if twin, ok := mustVMIDs(t, s, ctx, "")[lost]; ok {
		if _, err := s.Machines.Stored(ctx, twin); err != nil {
			t.Errorf("the default's machine of vmid %d went with fra's: %v", lost, err)
		}
	}
}

// machineIn is the id and vmid of a machine recorded in the location tagged loc.
func (s *testSystem) machineIn(t *testing.T, ctx context.Context, loc string) (string, int) {
	t.Helper()
	for vmid, id := range mustVMIDs(t, s, ctx, loc) {
		return id, vmid
	}
	t.Fatalf("no machine in location %q", loc)
	return "", 0
}

// mustVMIDs is the machines' vmid index of a location.
func mustVMIDs(t *testing.T, s *testSystem, ctx context.Context, loc string) map[int]string {
	t.Helper()
	ids, err := s.Machines.VMIDs(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	return maps.Collect(ids.All())
}
