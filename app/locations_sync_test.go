package app

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// TestSimLocationsSyncApart: a server of two simulated locations (--sim-locations 2)
// whose clusters have machines of the same vmids and nodes of the same names. One sync
// records both locations' machines and nodes apart; a power action on the second
// location's machine reaches that location's cluster alone. Then that location stops
// answering: the syncs name it and keep its machines' records, /api/health names it,
// and the default location's machines keep working (a power action, a create on an
// explicit node). When it answers again, the next sync heals it; and a restart finds
// its world in the store as it was.
func TestSimLocationsSyncApart(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.SimLocations = 2 })
	admin := s.adminToken()
	var loc locations.Location
	for _, l := range listOf[locations.Location](s, admin, "/api/resources/locations") {
		if l.Name == "sim-2" {
			loc = l
		}
	}
	if loc.ID == "" || loc.Driver != "sim" {
		t.Fatalf("locations: no simulated location sim-2 (%+v)", loc)
	}
	other := s.locationSim(loc.ID)

	if res := s.sync(admin); res.Machines.Added != 2*s.cfg.SimMachines || len(res.Unavailable) != 0 {
		t.Fatalf("first sync: %+v; want both locations' %d machines", res, s.cfg.SimMachines)
	}
	byLoc := map[string]map[int]machines.Machine{}
	for _, m := range s.machines(admin) {
		l := string(m.Location)
		if byLoc[l] == nil {
			byLoc[l] = map[int]machines.Machine{}
		}
		byLoc[l][m.VMID] = m
	}
	if len(byLoc[""]) != s.cfg.SimMachines || len(byLoc[loc.ID]) != s.cfg.SimMachines {
		t.Fatalf("machines by location: %d default, %d %s; want %d each", len(byLoc[""]), len(byLoc[loc.ID]), loc.ID, s.cfg.SimMachines)
	}
	var away, home machines.Machine
	for vmid, m := range byLoc[loc.ID] {
		if h, ok := byLoc[""][vmid]; ok && (away.ID == "" || vmid < away.VMID) {
			away, home = m, h
		}
	}
	if away.ID == "" {
		t.Fatalf("no vmid in both locations: %v", byLoc)
	}
	r := s.do(req{method: "GET", path: "/api/virt/vms/" + away.ID, token: admin})
	expect(t, r, 200, "")
	var shown struct {
		LocationID string `json:"location_id"`
	}
	r.decode(t, &shown)
	if shown.LocationID != loc.ID {
		t.Errorf("machine %s shows location_id %q; want %s", away.ID, shown.LocationID, loc.ID)
	}
	var nodeIDs []string
	for _, n := range listOf[capacity.Node](s, admin, "/api/virt/nodes") {
		nodeIDs = append(nodeIDs, n.ID)
		if string(n.Location) == loc.ID && n.ID != n.Name+"@"+loc.ID {
			t.Errorf("node %+v of %s: want its id name@location", n, loc.ID)
		}
	}
	if !slices.Contains(nodeIDs, "pve1") || !slices.Contains(nodeIDs, "pve1@"+loc.ID) || len(nodeIDs) != 2*s.cfg.SimNodes {
		t.Fatalf("nodes %v; want pve1 of both locations apart, %d in all", nodeIDs, 2*s.cfg.SimNodes)
	}

	// A power action on the second location's machine reaches its cluster alone.
	action, want := "stop", hypervisor.StateStopped
	if away.Status != machines.StatusRunning {
		action, want = "start", hypervisor.StateRunning
	}
	homeBefore := s.simState(s.sim, home.VMID)
	s.run(req{method: "POST", path: "/api/virt/vms/" + away.ID + "/actions/" + action, token: admin})
	if got := s.simState(other, away.VMID); got != want {
		t.Errorf("%s's vmid %d after %s: %s; want %s", loc.Name, away.VMID, action, got, want)
	}
	if got := s.simState(s.sim, home.VMID); got != homeBefore {
		t.Errorf("the default location's vmid %d after %s's %s: %s; want it untouched (%s)", home.VMID, loc.Name, action, got, homeBefore)
	}

	// The second location stops answering.
	other.SetAvailable(false)
	for range 2 {
		if res := s.sync(admin); res.Machines.Removed != 0 || !slices.Equal(res.Unavailable, []string{loc.ID}) {
			t.Fatalf("sync with %s down: %+v; want nothing removed and it named", loc.Name, res)
		}
	}
	if m := s.machine(admin, away.ID); m.Status != string(want) {
		t.Errorf("%s's machine with %s down: %s; want its record as it was (%s)", loc.Name, loc.Name, m.Status, want)
	}
	if hv, locs := s.locationHealth(t); hv != "ok" || locs[loc.ID] != "unavailable" {
		t.Errorf("health: %s, %v; want the default ok and %s unavailable", hv, locs, loc.ID)
	}
	homeAction := "stop"
	if home.Status != machines.StatusRunning {
		homeAction = "start"
	}
	s.run(req{method: "POST", path: "/api/virt/vms/" + home.ID + "/actions/" + homeAction, token: admin})
	ten := s.tenant(admin, "Homebound", nil)
	spec := map[string]any{"name": "made-meanwhile", "template_id": "tpl-debian-12", "cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10, "node": "pve1"}
	made := s.provision(ten.Token, spec)
	if made.Location != "" || made.Node != "pve1" {
		t.Errorf("machine made with %s down: location %q, node %s; want the default location's pve1", loc.Name, made.Location, made.Node)
	}

	// It answers again: a machine it lost meanwhile goes at the next sync, the others stay.
	other.SetAvailable(true)
	var lost machines.Machine
	for vmid, m := range byLoc[loc.ID] {
		if vmid != away.VMID {
			lost = m
			break
		}
	}
	if err := other.Destroy(context.Background(), hypervisor.Ref{VMID: lost.VMID}); err != nil {
		t.Fatal(err)
	}
	if res := s.sync(admin); res.Machines.Removed != 1 || len(res.Unavailable) != 0 {
		t.Fatalf("sync with %s back: %+v; want its lost machine removed", loc.Name, res)
	}
	expect(t, s.do(req{method: "GET", path: "/api/virt/vms/" + lost.ID, token: admin}), http.StatusNotFound, "not_found")
	if m := s.machine(admin, byLoc[""][lost.VMID].ID); m.VMID != lost.VMID || m.Location != "" {
		t.Errorf("the default location's vmid %d: %+v; want it kept", lost.VMID, m)
	}

	// A restart finds the second location's world as it was.
	s.restart()
	admin = s.adminToken()
	other = s.locationSim(loc.ID)
	if got := s.simState(other, away.VMID); got != want {
		t.Errorf("%s's vmid %d after a restart: %s; want %s, as it was left", loc.Name, away.VMID, got, want)
	}
	if _, err := other.Machine(context.Background(), hypervisor.Ref{VMID: lost.VMID}); err == nil {
		t.Errorf("%s's destroyed vmid %d is back after a restart", loc.Name, lost.VMID)
	}
	if res := s.sync(admin); res.Machines.Added != 0 || res.Machines.Removed != 0 {
		t.Errorf("sync after a restart: %+v; want nothing added or removed", res)
	}
}

// locationSim is the simulated cluster of the location id.
func (s *testServer) locationSim(id string) *sim.Driver {
	s.t.Helper()
	drv, err := s.app.sys.Locations.Driver(id)
	if err != nil {
		s.t.Fatal(err)
	}
	d, ok := drv.(*sim.Driver)
	if !ok {
		s.t.Fatalf("location %s: driver %T; want a simulated cluster", id, drv)
	}
	return d
}

// simState is the state of a simulated cluster's machine.
func (s *testServer) simState(d *sim.Driver, vmid int) hypervisor.State {
	s.t.Helper()
	m, err := d.Machine(context.Background(), hypervisor.Ref{VMID: vmid})
	if err != nil {
		s.t.Fatal(err)
	}
	return m.State
}
