package locations

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

var bg = context.Background()

// twoLocations is a dispatcher over a default simulated cluster and "fra", another.
func twoLocations(t *testing.T) (d *Dispatcher, def, fra *sim.Driver) {
	t.Helper()
	clk := hypervisortest.NewClock(t0)
	def = newSim(clk, sim.Config{})
	fra = newSim(clk, sim.Config{Seed: 7, Nodes: 2})
	d = New(def)
	d.Set("fra", fra)
	return d, def, fra
}

func spec(location, name string) hypervisor.CreateSpec {
	return hypervisor.CreateSpec{Location: location, Name: name, TemplateID: "tpl-debian-12", CPUCores: 1, MemoryMB: 512}
}

// TestSameVMIDInTwoLocations: vmids and node names repeat across clusters; the
// location in a ref tells the two machines apart, and each call reaches its own.
func TestSameVMIDInTwoLocations(t *testing.T) {
	d, def, fra := twoLocations(t)
	a, err := d.Create(bg, spec("", "home"))
	hypervisortest.WantErr(t, "create in the default location", err)
	b, err := d.Create(bg, spec("fra", "away"))
	hypervisortest.WantErr(t, "create in fra", err)
	if a.VMID != b.VMID || a.Location != "" || b.Location != "fra" {
		t.Fatalf("created: got vmid %d in %q and %d in %q; want one vmid, in \"\" and \"fra\"", a.VMID, a.Location, b.VMID, b.Location)
	}
	got, err := d.Machine(bg, hypervisor.Ref{VMID: b.VMID, Location: "fra"})
	hypervisortest.WantErr(t, "machine in fra", err)
	if got.Name != "away" || got.Location != "fra" {
		t.Errorf("Machine(fra): got %q in %q; want away in fra", got.Name, got.Location)
	}
	got, err = d.Machine(bg, hypervisor.Ref{VMID: a.VMID, Location: Default})
	hypervisortest.WantErr(t, "machine in default", err)
	if got.Name != "home" || got.Location != "" {
		t.Errorf("Machine(default): got %q in %q; want home in \"\"", got.Name, got.Location)
	}
	// A power action reaches the machine of its location alone.
	hypervisortest.WantErr(t, "start in fra", d.Power(bg, hypervisor.Ref{VMID: b.VMID, Location: "fra"}, hypervisor.ActionStart))
	if m, _ := fra.Machine(bg, hypervisor.Ref{VMID: b.VMID}); m.State != hypervisor.StateRunning {
		t.Errorf("fra's machine: got %s; want running", m.State)
	}
	if m, _ := def.Machine(bg, hypervisor.Ref{VMID: a.VMID}); m.State != hypervisor.StateStopped {
		t.Errorf("default's machine: got %s; want stopped (the action was fra's)", m.State)
	}
	// The inventory lists both, each tagged with its location.
	inv, err := d.Inventory(bg)
	hypervisortest.WantErr(t, "inventory", err)
	where := map[string]string{}
	for _, m := range inv.Machines {
		where[m.Name] = m.Location
	}
	if len(inv.Machines) != 2 || where["home"] != "" || where["away"] != "fra" {
		t.Errorf("inventory machines: got %v; want home in \"\", away in fra", where)
	}
	nodes := map[string]int{}
	for _, n := range inv.Nodes {
		nodes[n.Location]++
	}
	if nodes[""] != sim.DefaultNodes || nodes["fra"] != 2 {
		t.Errorf("inventory nodes by location: got %v; want %d in \"\", 2 in fra", nodes, sim.DefaultNodes)
	}
	hypervisortest.WantErr(t, "destroy in fra", d.Destroy(bg, hypervisor.Ref{VMID: b.VMID, Location: "fra"}))
	_, err = def.Machine(bg, hypervisor.Ref{VMID: a.VMID})
	hypervisortest.WantErr(t, "default's machine after fra's destroy", err)
}

// TestUnknownLocation: a ref to a location the dispatcher does not hold is
// location_not_found (404), a create body that names one 400; neither is a missing
// machine, which the sync would take for a machine gone.
func TestUnknownLocation(t *testing.T) {
	d, _, _ := twoLocations(t)
	_, err := d.Machine(bg, hypervisor.Ref{VMID: 100, Location: "ams"})
	hypervisortest.WantErr(t, "machine in ams", err, ErrLocationNotFound, apierr.ErrNotFound)
	if errors.Is(err, hypervisor.ErrMachineNotFound) {
		t.Errorf("machine in ams: got %v; want no machine_not_found", err)
	}
	_, err = d.Create(bg, spec("ams", "x"))
	hypervisortest.WantErr(t, "create in ams", err, ErrLocationNotFound, apierr.ErrInvalidRequest)
	if d.Remove(Default) || d.Remove("") {
		t.Errorf("Remove(default): got true; want the default location kept")
	}
	if !d.Remove("fra") || d.Remove("fra") {
		t.Errorf("Remove(fra) twice: want true, then false")
	}
	if got := d.Locations(); len(got) != 1 || got[0] != "" {
		t.Errorf("Locations after removing fra: got %q; want [\"\"]", got)
	}
}

// TestOneLocationDown: a location that does not answer fails the merged inventory and
// Ping naming it, and Inventories still answers the other location's.
func TestOneLocationDown(t *testing.T) {
	d, _, fra := twoLocations(t)
	_, err := d.Create(bg, spec("", "home"))
	hypervisortest.WantErr(t, "create", err)
	fra.SetAvailable(false)
	err = d.Ping(bg)
	hypervisortest.WantErr(t, "ping", err, hypervisor.ErrUnavailable)
	var le *LocationError
	if !errors.As(err, &le) || le.Location != "fra" || !strings.Contains(err.Error(), "location fra") {
		t.Errorf("ping: got %v; want a LocationError naming fra", err)
	}
	if got := d.PingEach(bg); got[""] != nil || got["fra"] == nil {
		t.Errorf("PingEach: got %v; want the default answering and fra not", got)
	}
	_, err = d.Inventory(bg)
	hypervisortest.WantErr(t, "inventory", err, hypervisor.ErrUnavailable)
	all := d.Inventories(bg)
	if len(all) != 2 || all[0].Location != "" || all[1].Location != "fra" {
		t.Fatalf("Inventories: got %+v; want the default then fra", all)
	}
	if all[0].Err != nil || len(all[0].Inventory.Machines) != 1 || all[0].Inventory.Machines[0].Name != "home" {
		t.Errorf("default's inventory: got %+v, %v; want home", all[0].Inventory.Machines, all[0].Err)
	}
	hypervisortest.WantErr(t, "fra's inventory", all[1].Err, hypervisor.ErrUnavailable)
}

// TestInventoriesOfPagedLocations: the sync's read (InventoriesOf) answers the head of
// a location whose driver pages its machines, through the dispatcher (Driver()) as
// for a driver alone, and MachinePages hands the machines over tagged with it; the
// dispatcher's own Inventories still lists every machine.
func TestInventoriesOfPagedLocations(t *testing.T) {
	d, def, _ := twoLocations(t)
	for _, s := range []hypervisor.CreateSpec{spec("", "home"), spec("fra", "away"), spec("fra", "away2")} {
		_, err := d.Create(bg, s)
		hypervisortest.WantErr(t, "create "+s.Name, err)
	}
	heads := InventoriesOf(bg, d.Driver())
	if len(heads) != 2 || heads[1].Location != "fra" {
		t.Fatalf("InventoriesOf: got %+v; want the default then fra", heads)
	}
	for _, li := range heads {
		if li.Err != nil || li.Inventory.Machines != nil || len(li.Inventory.Nodes) == 0 {
			t.Fatalf("location %q: got %d machines, %d nodes, %v; want its head: nodes, no machines",
				li.Location, len(li.Inventory.Machines), len(li.Inventory.Nodes), li.Err)
		}
		var names []string
		err := li.MachinePages(bg, 1, func(ms []hypervisor.Machine) error {
			for _, m := range ms {
				if m.Location != li.Location {
					t.Errorf("location %q: machine %s tagged %q", li.Location, m.Name, m.Location)
				}
				names = append(names, m.Name)
			}
			return nil
		})
		if want := map[string]int{"": 1, "fra": 2}[li.Location]; err != nil || len(names) != want {
			t.Errorf("location %q: pages gave %v, %v; want %d machines", li.Location, names, err, want)
		}
	}
	if alone := InventoriesOf(bg, def); len(alone) != 1 || alone[0].Inventory.Machines != nil || alone[0].pager == nil {
		t.Errorf("InventoriesOf a driver alone: got %+v; want its head and its pages", alone)
	}
	if all := d.Inventories(bg); len(all) != 2 || len(all[1].Inventory.Machines) != 2 {
		t.Errorf("Inventories: got %+v; want fra's two machines listed", all)
	}
}

// TestISOsInEveryLocation: the ISO library's images are imported into every location
// (a machine of any may mount them) and deleted from every one.
func TestISOsInEveryLocation(t *testing.T) {
	d, _, fra := twoLocations(t)
	drv := d.Driver()
	if _, ok := drv.(hypervisor.ISOFromFile); !ok {
		t.Fatalf("Driver() over a simulated default: got no ISOFromFile; want it, so vmplane fetches the file")
	}
	body := []byte("an image")
	sum := sha256.Sum256(body)
	file := filepath.Join(t.TempDir(), "img.iso")
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := drv.ImportISO(bg, hypervisor.ISOSpec{Name: "img.iso", Checksum: "sha256:" + hex.EncodeToString(sum[:]), File: file})
	hypervisortest.WantErr(t, "import", err)
	m, err := d.Create(bg, spec("fra", "away"))
	hypervisortest.WantErr(t, "create in fra", err)
	m, err = d.MountISO(bg, hypervisor.Ref{VMID: m.VMID, Location: "fra"}, "img.iso")
	hypervisortest.WantErr(t, "mount in fra", err)
	if m.Media != "img.iso" || m.Location != "fra" {
		t.Errorf("mounted: got %q in %q; want img.iso in fra", m.Media, m.Location)
	}
	hypervisortest.WantErr(t, "delete", d.DeleteISO(bg, "img.iso"))
	_, err = fra.MountISO(bg, hypervisor.Ref{VMID: m.VMID}, "img.iso")
	hypervisortest.WantErr(t, "mount in fra after the delete", err, hypervisor.ErrISONotFound)
}

// TestLocationOfAndInventoriesOf: whatever view of a dispatcher a caller holds,
// LocationOf finds a location's driver and InventoriesOf reads every location's
// inventory, each tagged; a plain driver is the default location alone.
func TestLocationOfAndInventoriesOf(t *testing.T) {
	d, def, fra := twoLocations(t)
	for _, view := range []hypervisor.Driver{d, d.Driver()} {
		if got, err := LocationOf(view, "fra"); err != nil || got != hypervisor.Driver(fra) {
			t.Errorf("LocationOf(%T, fra): %v, %v; want fra's sim", view, got, err)
		}
		if got, err := LocationOf(view, Default); err != nil || got != hypervisor.Driver(def) {
			t.Errorf("LocationOf(%T, default): %v, %v; want the default sim", view, got, err)
		}
		all := InventoriesOf(bg, view)
		if len(all) != 2 || all[0].Location != "" || all[1].Location != "fra" || all[1].Err != nil ||
			len(all[1].Inventory.Nodes) != 2 || all[1].Inventory.Nodes[0].Location != "fra" {
			t.Errorf("InventoriesOf(%T): %+v; want the default's, then fra's tagged", view, all)
		}
	}
	if got, err := LocationOf(def, ""); err != nil || got != hypervisor.Driver(def) {
		t.Errorf("LocationOf(a sim, default): %v, %v; want itself", got, err)
	}
	_, err := LocationOf(def, "fra")
	hypervisortest.WantErr(t, "LocationOf(a sim, fra)", err, ErrLocationNotFound)
	if all := InventoriesOf(bg, def); len(all) != 1 || all[0].Location != "" || all[0].Err != nil {
		t.Errorf("InventoriesOf(a sim): %+v; want its own as the default's", all)
	}
}

// TestTemplateOfALocation: a create or a reinstall in a location may name its template
// as vmplane lists it (id@location) or as the cluster knows it.
func TestTemplateOfALocation(t *testing.T) {
	d, _, _ := twoLocations(t)
	s := spec("fra", "tagged")
	s.TemplateID += "@fra"
	m, err := d.Create(bg, s)
	hypervisortest.WantErr(t, "create from tpl-debian-12@fra", err)
	_, err = d.Reinstall(bg, hypervisor.Ref{VMID: m.VMID, Location: "fra"}, hypervisor.ReinstallSpec{TemplateID: "tpl-debian-12@fra"})
	hypervisortest.WantErr(t, "reinstall from tpl-debian-12@fra", err)
	_, err = d.Reinstall(bg, hypervisor.Ref{VMID: m.VMID, Location: "fra"}, hypervisor.ReinstallSpec{TemplateID: "tpl-debian-12"})
	hypervisortest.WantErr(t, "reinstall from tpl-debian-12", err)
	s = spec("", "home")
	s.TemplateID += "@fra"
	_, err = d.Create(bg, s)
	hypervisortest.WantErr(t, "create in the default location from fra's template", err, hypervisor.ErrTemplateNotFound)
}

// TestIDJSON: a record's location reads as the default one when the field is absent
// or names Default, and is written as the API names it.
func TestIDJSON(t *testing.T) {
	var rec struct {
		Location ID `json:"location_id"`
	}
	for in, want := range map[string]ID{`{}`: "", `{"location_id":"default"}`: "", `{"location_id":"fra"}`: "fra"} {
		rec.Location = "stale"
		if in == `{}` {
			rec.Location = ""
		}
		if err := json.Unmarshal([]byte(in), &rec); err != nil || rec.Location != want {
			t.Errorf("%s: read %q, %v; want %q", in, rec.Location, err, want)
		}
	}
	for l, want := range map[ID]string{"": `{"location_id":"default"}`, "fra": `{"location_id":"fra"}`} {
		rec.Location = l
		if b, err := json.Marshal(rec); err != nil || string(b) != want {
			t.Errorf("%q: wrote %s, %v; want %s", l, b, err, want)
		}
	}
	if err := json.Unmarshal([]byte(`{"location_id":1}`), &rec); err == nil {
		t.Error("a number read as a location")
	}
}

// TestSetAddressesRoutedByLocation: a machine's addresses change in its own location
// only, and a location whose driver keeps none is nothing to change.
func TestSetAddressesRoutedByLocation(t *testing.T) {
	d, def, fra := twoLocations(t)
	a, err := d.Create(bg, spec("", "home"))
	hypervisortest.WantErr(t, "create in the default location", err)
	b, err := d.Create(bg, spec("fra", "away"))
	hypervisortest.WantErr(t, "create in fra", err)
	addrs := []hypervisor.Address{{Address: "198.51.100.10", Prefix: 24, Version: 4}, {Address: "2001:db8:5::", Prefix: 64, Version: 6}}
	hypervisortest.WantErr(t, "set addresses in fra", d.SetAddresses(bg, hypervisor.Ref{VMID: b.VMID, Location: "fra"}, addrs))
	if m, _ := fra.Machine(bg, hypervisor.Ref{VMID: b.VMID}); strings.Join(m.Interfaces[0].IPAddresses, " ") != "198.51.100.10 2001:db8:5::1" {
		t.Errorf("fra's machine's net0: got %v; want the addresses set", m.Interfaces[0].IPAddresses)
	}
	if m, _ := def.Machine(bg, hypervisor.Ref{VMID: a.VMID}); strings.Contains(strings.Join(m.Interfaces[0].IPAddresses, " "), "198.51.100.10") {
		t.Errorf("default's machine of the same vmid: got %v; want it untouched", m.Interfaces[0].IPAddresses)
	}
	err = d.SetAddresses(bg, hypervisor.Ref{VMID: b.VMID, Location: "ams"}, addrs)
	hypervisortest.WantErr(t, "set addresses in ams", err, ErrLocationNotFound)
	d.Set("plain", plainDriver{fra})
	hypervisortest.WantErr(t, "set addresses where the driver keeps none", d.SetAddresses(bg, hypervisor.Ref{VMID: b.VMID, Location: "plain"}, addrs))
}

// plainDriver is a driver without the optional interfaces.
type plainDriver struct{ hypervisor.Driver }
