package app

import (
	"context"
	"slices"
	"testing"

	"github.com/vmplane/vmplane/actors/inventory"
	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/actors/machines"
	"github.com/vmplane/vmplane/actors/machines/capacity"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
	"github.com/vmplane/vmplane/persistence"
)

// worldKeys lists the keys of the store under sim-at/<id>/.
func worldKeys(t *testing.T, st persistence.Store, id string) []string {
	t.Helper()
	var keys []string
	err := st.Scan(context.Background(), simWorldPrefix(id), nil, 0, func(k, _ []byte) error {
		keys = append(keys, string(k))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestAPISimLocationWorldPersists: a simulated location added through the API keeps
// its world in the store (sim-at/<id>/), so a machine made there is still there after
// a restart on the same data directory, served by the location's restored cluster
// (the sync removes nothing, a power action reaches it). Once the machine and the
// location are deleted, nothing is left under sim-at/<id>/.
func TestAPISimLocationWorldPersists(t *testing.T) {
	t.Parallel()
	s, admin := synced(t)
	r := s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{"name": "Lisbon", "driver": "sim"}})
	expect(t, r, 201, "")
	var loc locations.Location
	r.decode(t, &loc)
	if keys := worldKeys(t, s.app.store, loc.ID); !slices.Contains(keys, string(simWorldPrefix(loc.ID))+string(world.WorldKey())) {
		t.Fatalf("keys under sim-at/%s/ after the location's create: %v; want its world", loc.ID, keys)
	}
	if res := s.sync(admin); len(res.Unavailable) != 0 {
		t.Fatalf("sync: %+v", res)
	}
	a := s.tenant(admin, "Abroad", nil)
	spec := map[string]any{"name": "lis-1", "template_id": inventory.TemplateID(loc.ID, "tpl-debian-12"),
		"cpu_cores": 1, "memory_mb": 1024, "disk_gb": 10, "location_id": loc.ID}
	m := s.provision(a.Token, spec)
	if string(m.Location) != loc.ID || m.Status != machines.StatusRunning {
		t.Fatalf("machine made in %s: %+v", loc.ID, m)
	}

	// A new process on the same data directory: every driver built anew.
	s.stop()
	s.sim = nil
	s.cfg.Addr = "127.0.0.1:0"
	s.start()
	admin = s.adminToken()
	a.Token = s.login("abroad@example.test", "tenant-password").Token
	if res := s.sync(admin); res.Machines.Removed != 0 || len(res.Unavailable) != 0 {
		t.Fatalf("sync after the restart: %+v; want nothing removed", res)
	}
	after := s.resourceMachine(a.Token, m.ID)
	if string(after.Location) != loc.ID || after.VMID != m.VMID || after.Status != machines.StatusRunning {
		t.Fatalf("machine after the restart: %+v; want it as it was (%+v)", after, m)
	}
	drv, err := s.app.sys.Locations.Driver(loc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if hm, err := drv.Machine(context.Background(), hypervisor.Ref{VMID: m.VMID}); err != nil || hm.Name != "lis-1" || hm.State != hypervisor.StateRunning {
		t.Fatalf("the location's cluster after the restart: %+v, %v; want lis-1 running", hm, err)
	}
	s.run(req{method: "POST", path: "/api/virt/vms/" + m.ID + "/actions/stop", token: admin})
	if hm, err := drv.Machine(context.Background(), hypervisor.Ref{VMID: m.VMID}); err != nil || hm.State != hypervisor.StateStopped {
		t.Fatalf("after a stop: %+v, %v; want it stopped in the location's cluster", hm, err)
	}

	// The machine goes, then the location: its nodes and templates, recorded by the
	// sync, do not hold it (they are the location's cluster's, not the operator's to
	// move), and the next sync drops them, as no sync reaches the location again.
	s.run(req{method: "DELETE", path: "/api/resources/machines/" + m.ID, token: a.Token})
	ctx := context.Background()
	locationRecords := func() (n int) {
		for _, p := range [][]byte{persistence.Prefix("node"), persistence.Prefix("template")} {
			err := s.app.store.Scan(ctx, p, nil, 0, func(k, v []byte) error {
				var rec struct {
					Location string `json:"location"`
					LocID    string `json:"location_id"`
				}
				if _, err := persistence.Decode(v, &rec); err != nil {
					return err
				}
				if rec.Location == loc.ID || rec.LocID == loc.ID {
					n++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	if locationRecords() == 0 {
		t.Fatal("no node or template record of the location before its delete")
	}
	expect(t, s.do(req{method: "DELETE", path: "/api/resources/locations/" + loc.ID, token: admin}), 204, "")
	if res := s.sync(admin); len(res.Unavailable) != 0 {
		t.Fatalf("sync after the delete: %+v", res)
	}
	if n := locationRecords(); n != 0 {
		t.Errorf("%d node and template records of the deleted location after a sync; want none", n)
	}
	for _, nd := range listOf[capacity.Node](s, admin, "/api/virt/nodes") {
		if string(nd.Location) == loc.ID {
			t.Errorf("GET /api/virt/nodes after the delete and a sync lists %s of the deleted location", nd.ID)
		}
	}
	dir := s.cfg.DataDir
	s.stop()
	st, err := persistence.Open(persistence.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if keys := worldKeys(t, st, loc.ID); len(keys) != 0 {
		t.Errorf("keys under sim-at/%s/ after the location's delete: %v; want none", loc.ID, keys)
	}
}

// TestSweepSimWorldsAtStart: a start deletes what is under sim-at/ for a location
// that has no record (a delete the server stopped in before it removed the world,
// written here by hand, with its world record gone first as forgetSimWorld leaves
// it), and keeps the worlds of the locations there are: --sim-locations' sim-2 and
// one added through the API.
func TestSweepSimWorldsAtStart(t *testing.T) {
	t.Parallel()
	s := startServer(t, func(c *Config) { c.SimLocations = 2 })
	admin := s.adminToken()
	r := s.do(req{method: "POST", path: "/api/resources/locations", token: admin, body: map[string]any{"name": "Porto", "driver": "sim"}})
	expect(t, r, 201, "")
	var porto locations.Location
	r.decode(t, &porto)
	var sim2 string
	for _, l := range listOf[locations.Location](s, admin, "/api/resources/locations") {
		if l.Name == "sim-2" {
			sim2 = l.ID
		}
	}
	const gone = "01GONE0000000000000000000Z"
	b := new(persistence.Batch)
	for _, k := range []string{"sim/vm/0000000100", "sim/backup/0000000100/b1"} {
		b.Put(append(simWorldPrefix(gone), k...), []byte("{}"))
	}
	if err := s.app.store.Commit(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	before := map[string][]string{}
	for _, id := range []string{sim2, porto.ID} {
		if before[id] = worldKeys(t, s.app.store, id); len(before[id]) == 0 {
			t.Fatalf("no world under sim-at/%s/", id)
		}
	}

	s.stop()
	s.cfg.Addr = "127.0.0.1:0"
	s.start()
	if keys := worldKeys(t, s.app.store, gone); len(keys) != 0 {
		t.Errorf("keys of a location without a record after a start: %v; want none", keys)
	}
	for _, id := range []string{sim2, porto.ID} {
		if got := worldKeys(t, s.app.store, id); !slices.Equal(got, before[id]) {
			t.Errorf("world of %s after a start: %v; want %v kept", id, got, before[id])
		}
	}
}
