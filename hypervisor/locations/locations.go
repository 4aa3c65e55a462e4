// Package locations holds the dispatching hypervisor.Driver of a vmplane that runs
// machines in more than one hypervisor cluster (one Proxmox cluster per data centre:
// corosync does not stretch across a WAN). A Dispatcher holds one Driver per location
// and routes each call by the location its Ref, CreateSpec or UsageQuery names; the
// calls that list (Inventory, Ping, the ISO library's) go to every location, and what
// a location answers is tagged with its id.
//
// The default location is the driver the settings configure (--proxmox-url, or the
// simulated cluster). It is always there, and it is named "" in refs and results (the
// API spells it Default), so records written before locations existed, which name no
// location, keep meaning what they meant.
package locations

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

// Default is the id of the default location as the API names it. Refs and results
// name it "" (Tag).
const Default = "default"

// ErrLocationNotFound is the error of a ref, spec or query that names a location the
// dispatcher does not hold (404; a create names it in its body: 400).
var ErrLocationNotFound = &hypervisor.Error{Kind: apierr.ErrNotFound, Reason: "location_not_found"}

// Tag is the id a location has in refs and results: "" for the default location
// (whether named "" or Default), the id itself for any other.
func Tag(id string) string {
	if id == Default {
		return ""
	}
	return id
}

// Name is the id of a location as the API shows it: Default for the default one.
func Name(tag string) string {
	if tag == "" {
		return Default
	}
	return tag
}

// ID is a location as a record or an answer holds it: its tag in memory ("" for the
// default location, as refs carry it), its API name in JSON (Default for the default
// one). A record written before locations existed lacks the field and reads as the
// default location, and answers always name the location.
type ID string

// MarshalText writes the location's API name (encoding/json quotes it).
func (l ID) MarshalText() ([]byte, error) { return []byte(Name(string(l))), nil }

// UnmarshalText reads an API name (or a tag) into the tag.
func (l *ID) UnmarshalText(b []byte) error {
	*l = ID(Tag(string(b)))
	return nil
}

// Dispatcher is a hypervisor.Driver over several locations' drivers. Locations are
// added and removed while it runs (Set, Remove): a call routed to a location looks its
// driver up at that moment. All methods are safe for concurrent use.
type Dispatcher struct {
	mu      sync.RWMutex
	drivers map[string]hypervisor.Driver // by tag; "" is the default location
}

// Interface guards: the dispatcher is a full Driver and forwards the optional
// interfaces to the locations that have them.
var (
	_ hypervisor.Driver       = (*Dispatcher)(nil)
	_ hypervisor.Prober       = (*Dispatcher)(nil)
	_ hypervisor.TaskFollower = (*Dispatcher)(nil)
	_ hypervisor.Readdresser  = (*Dispatcher)(nil)
)

// New returns a dispatcher whose default location is def.
func New(def hypervisor.Driver) *Dispatcher {
	return &Dispatcher{drivers: map[string]hypervisor.Driver{"": def}}
}

// Driver is the dispatcher as the rest of vmplane should hold it: the dispatcher
// itself, or, when its default location's driver takes the ISO files vmplane fetched
// (hypervisor.ISOFromFile: the simulated cluster), the dispatcher with that marker, so
// that the ISO library keeps fetching images itself exactly when it did before.
// ImportISO hands the file to the locations that take one and the URL to the others.
func (d *Dispatcher) Driver() hypervisor.Driver {
	if _, ok := d.Default().(hypervisor.ISOFromFile); ok {
		return fileDispatcher{d}
	}
	return d
}

// fileDispatcher is a Dispatcher whose default location takes ISO files.
type fileDispatcher struct{ *Dispatcher }

// ISOFromFile marks the dispatcher as a driver that takes the file vmplane fetched.
func (fileDispatcher) ISOFromFile() {}

// Default is the default location's driver.
func (d *Dispatcher) Default() hypervisor.Driver {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.drivers[""]
}

// Set makes drv the driver of the location id (added, or replacing the one it had);
// the default location's is replaced too (id "" or Default).
func (d *Dispatcher) Set(id string, drv hypervisor.Driver) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.drivers[Tag(id)] = drv
}

// Remove forgets the location id; the default location stays (false: it was asked
// for, or no such location was held).
func (d *Dispatcher) Remove(id string) bool {
	tag := Tag(id)
	if tag == "" {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.drivers[tag]
	delete(d.drivers, tag)
	return ok
}

// Locations lists the tags of the locations held: "" (the default) first, then the
// others in id order.
func (d *Dispatcher) Locations() []string {
	d.mu.RLock()
	defer d.mu.RUnlock()
	out := make([]string, 0, len(d.drivers))
	for tag := range d.drivers {
		out = append(out, tag)
	}
	sort.Strings(out) // "" sorts first
	return out
}

// LocationOf is the driver of the location tagged tag of d when d is a dispatcher
// (whatever view of it Driver gave), else d itself for the default location and
// ErrLocationNotFound for any other: for a caller that must read one location's
// inventory (a restore's settling reads the machine's own location's).
func LocationOf(d hypervisor.Driver, tag string) (hypervisor.Driver, error) {
	if l, ok := d.(interface {
		Location(string) (hypervisor.Driver, error)
	}); ok {
		return l.Location(tag)
	}
	if Tag(tag) == "" {
		return d, nil
	}
	return nil, hypervisor.NewError(ErrLocationNotFound, "no location %q", tag)
}

// InventoriesOf reads every location's inventory of d (Dispatcher.Inventories) when d
// is a dispatcher, else d's own as the default location's: the sync's read, which goes
// on with the locations that answer.
//
// A location whose driver hands its machines over in pages (hypervisor.MachinePager)
// answers its inventory's head, without machines: the caller reads them with
// LocationInventory.MachinePages, one page at a time.
func InventoriesOf(ctx context.Context, d hypervisor.Driver) []LocationInventory {
	if l, ok := d.(interface {
		inventories(context.Context, bool) []LocationInventory
	}); ok {
		return l.inventories(ctx, true)
	}
	return []LocationInventory{inventoryOf(ctx, "", d, true)}
}

// Location is the driver of the location id ("" or Default: the default one), or
// ErrLocationNotFound.
func (d *Dispatcher) Location(id string) (hypervisor.Driver, error) {
	d.mu.RLock()
	drv, ok := d.drivers[Tag(id)]
	d.mu.RUnlock()
	if !ok {
		return nil, hypervisor.NewError(ErrLocationNotFound, "no location %q", id)
	}
	return drv, nil
}

// alone is the default location's driver when it is the only location: the calls
// that go to every location then go to it directly, answering exactly what it
// answers (no location named in an error, no goroutine per call), as before there
// were locations.
func (d *Dispatcher) alone() (hypervisor.Driver, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.drivers[""], len(d.drivers) == 1
}

// each runs fn on every location at once and waits for them all.
func (d *Dispatcher) each(fn func(tag string, drv hypervisor.Driver)) {
	d.mu.RLock()
	all := make(map[string]hypervisor.Driver, len(d.drivers))
	for tag, drv := range d.drivers {
		all[tag] = drv
	}
	d.mu.RUnlock()
	var wg sync.WaitGroup
	for tag, drv := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(tag, drv)
		}()
	}
	wg.Wait()
}

// Name is the default location's driver's name: the route segment of the operator's
// driver-named alias (/api/sim/..., /api/proxmox/...), which stays what it was.
func (d *Dispatcher) Name() string { return d.Default().Name() }

// Ping pings every location at once; nil when all answer, else an error that names
// each location that does not (the first failure's kind decides the status).
func (d *Dispatcher) Ping(ctx context.Context) error {
	if drv, ok := d.alone(); ok {
		return drv.Ping(ctx)
	}
	return joinFailures(d.PingEach(ctx))
}

// PingEach pings every location at once and answers each one's error (nil: it
// answers), by tag.
func (d *Dispatcher) PingEach(ctx context.Context) map[string]error {
	var mu sync.Mutex
	out := map[string]error{}
	d.each(func(tag string, drv hypervisor.Driver) {
		err := drv.Ping(ctx)
		mu.Lock()
		out[tag] = err
		mu.Unlock()
	})
	return out
}

// LocationError is a location's failure in a call that went to every location.
type LocationError struct {
	// Location is the location's tag ("": the default).
	Location string
	Err      error
}

// Error names the location, as an operator calls it.
func (e *LocationError) Error() string { return "location " + Name(e.Location) + ": " + e.Err.Error() }

// Unwrap is the location's error, so its kind still maps to a status.
func (e *LocationError) Unwrap() error { return e.Err }

// joinFailures is nil when every location succeeded, else the failures in tag order,
// each a *LocationError.
func joinFailures(errs map[string]error) error {
	tags := make([]string, 0, len(errs))
	for tag, err := range errs {
		if err != nil {
			tags = append(tags, tag)
		}
	}
	if len(tags) == 0 {
		return nil
	}
	sort.Strings(tags)
	if len(tags) == 1 {
		return &LocationError{Location: tags[0], Err: errs[tags[0]]}
	}
	joined := make([]error, 0, len(tags))
	for _, tag := range tags {
		joined = append(joined, &LocationError{Location: tag, Err: errs[tag]})
	}
	return errors.Join(joined...)
}

// LocationInventory is one location's inventory, or why it could not be read.
type LocationInventory struct {
	// Location is the location's tag ("": the default).
	Location  string
	Inventory hypervisor.Inventory
	Err       error
	// pager is the location's driver when Inventory is only its head
	// (InventoriesOf): MachinePages reads the machines from it.
	pager hypervisor.MachinePager
}

// MachinePages hands page the location's machines, each tagged with the location:
// from a driver that pages them, at most n at a time (hypervisor.MachinePager), else
// the inventory's own machines as one page.
func (li *LocationInventory) MachinePages(ctx context.Context, n int, page func([]hypervisor.Machine) error) error {
	if li.pager == nil {
		if len(li.Inventory.Machines) == 0 {
			return nil
		}
		return page(li.Inventory.Machines)
	}
	return li.pager.MachinePages(ctx, n, func(ms []hypervisor.Machine) error {
		for i := range ms {
			ms[i].Location = li.Location
		}
		return page(ms)
	})
}

// inventoryOf reads drv's inventory as the location tag's; with heads, only its head
// when drv pages its machines.
func inventoryOf(ctx context.Context, tag string, drv hypervisor.Driver, heads bool) LocationInventory {
	li := LocationInventory{Location: tag}
	if p, ok := drv.(hypervisor.MachinePager); ok && heads {
		li.Inventory, li.Err = p.InventoryHead(ctx)
		li.pager = p
	} else {
		li.Inventory, li.Err = drv.Inventory(ctx)
	}
	if li.Err == nil {
		tagInventory(&li.Inventory, tag)
	}
	return li
}

// Inventories reads every location's inventory at once, each tagged with its
// location, in tag order. A location that does not answer is there with its error, so
// a caller can go on with the others (the sync: a location that is down marks none of
// its machines gone).
func (d *Dispatcher) Inventories(ctx context.Context) []LocationInventory {
	return d.inventories(ctx, false)
}

// inventories is Inventories; with heads, a location whose driver pages its machines
// answers its head (InventoriesOf).
func (d *Dispatcher) inventories(ctx context.Context, heads bool) []LocationInventory {
	var mu sync.Mutex
	var out []LocationInventory
	d.each(func(tag string, drv hypervisor.Driver) {
		li := inventoryOf(ctx, tag, drv, heads)
		mu.Lock()
		out = append(out, li)
		mu.Unlock()
	})
	slices.SortFunc(out, func(a, b LocationInventory) int { return strings.Compare(a.Location, b.Location) })
	return out
}

// Inventory is every location's inventory in one, each node, machine, template and
// backup tagged with its location; it fails when any location does not answer (a
// caller that can go on without one reads Inventories). Traffic is keyed by vmid,
// which repeats across locations, so it holds the default location's counters alone:
// a caller that counts every location's reads Inventories.
func (d *Dispatcher) Inventory(ctx context.Context) (hypervisor.Inventory, error) {
	if drv, ok := d.alone(); ok {
		return drv.Inventory(ctx)
	}
	var all hypervisor.Inventory
	all.BackupsListed = true
	errs := map[string]error{}
	for _, li := range d.Inventories(ctx) {
		if li.Err != nil {
			errs[li.Location] = li.Err
			continue
		}
		inv := li.Inventory
		all.Nodes = append(all.Nodes, inv.Nodes...)
		all.Machines = append(all.Machines, inv.Machines...)
		all.Templates = append(all.Templates, inv.Templates...)
		all.Backups = append(all.Backups, inv.Backups...)
		all.BackupsListed = all.BackupsListed && inv.BackupsListed
		if !inv.AsOf.IsZero() && (all.AsOf.IsZero() || inv.AsOf.Before(all.AsOf)) {
			all.AsOf = inv.AsOf
		}
		if li.Location == "" {
			all.Traffic = inv.Traffic
		}
	}
	if err := joinFailures(errs); err != nil {
		return hypervisor.Inventory{}, err
	}
	if !all.BackupsListed {
		all.Backups = nil
	}
	hypervisor.SortBackups(all.Backups)
	return all, nil
}

// tagInventory names the location in everything an inventory lists.
func tagInventory(inv *hypervisor.Inventory, tag string) {
	for i := range inv.Nodes {
		inv.Nodes[i].Location = tag
	}
	for i := range inv.Machines {
		inv.Machines[i].Location = tag
	}
	for i := range inv.Templates {
		inv.Templates[i].Location = tag
	}
	for i := range inv.Backups {
		inv.Backups[i].Location = tag
	}
}

// localTemplate is a template id as the location tagged tag knows it: vmplane names
// another location's templates id@location (their ids repeat across clusters), and
// the location's driver knows the id alone.
func localTemplate(id, tag string) string {
	if tag == "" {
		return id
	}
	return strings.TrimSuffix(id, "@"+tag)
}

// route is the driver of a ref's location and the tag its results carry.
func (d *Dispatcher) route(location string) (hypervisor.Driver, string, error) {
	drv, err := d.Location(location)
	return drv, Tag(location), err
}

// machine tags a machine a location's driver answered.
func machine(m hypervisor.Machine, tag string, err error) (hypervisor.Machine, error) {
	if err != nil {
		return m, err
	}
	m.Location = tag
	return m, nil
}

// local is a ref as its location's driver sees it: a driver knows nothing of
// locations, and a ref it is handed names none.
func local(ref hypervisor.Ref) hypervisor.Ref {
	ref.Location = ""
	return ref
}

// Machine reads one machine from its location.
func (d *Dispatcher) Machine(ctx context.Context, ref hypervisor.Ref) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.Machine(ctx, local(ref))
	return machine(m, tag, err)
}

// Create makes a machine in the spec's location.
func (d *Dispatcher) Create(ctx context.Context, spec hypervisor.CreateSpec) (hypervisor.Machine, error) {
	drv, tag, err := d.route(spec.Location)
	if err != nil {
		// The location is the caller's input here, not the resource addressed.
		return hypervisor.Machine{}, hypervisor.NewError(ErrLocationNotFound, "no location %q", spec.Location).WithKind(apierr.ErrInvalidRequest)
	}
	spec.Location = ""
	spec.TemplateID = localTemplate(spec.TemplateID, tag)
	m, err := drv.Create(ctx, spec)
	return machine(m, tag, err)
}

// Destroy deletes a machine in its location.
func (d *Dispatcher) Destroy(ctx context.Context, ref hypervisor.Ref) error {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return err
	}
	return drv.Destroy(ctx, local(ref))
}

// Power runs a power action in the machine's location.
func (d *Dispatcher) Power(ctx context.Context, ref hypervisor.Ref, action hypervisor.PowerAction) error {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return err
	}
	return drv.Power(ctx, local(ref), action)
}

// Migrate moves a machine to another node of its own location: a machine does not
// leave its cluster.
func (d *Dispatcher) Migrate(ctx context.Context, ref hypervisor.Ref, targetNode string, online bool) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.Migrate(ctx, local(ref), targetNode, online)
	return machine(m, tag, err)
}

// Configure changes a machine in its location.
func (d *Dispatcher) Configure(ctx context.Context, ref hypervisor.Ref, change hypervisor.ConfigChange) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.Configure(ctx, local(ref), change)
	return machine(m, tag, err)
}

// SetNetwork changes a machine's interfaces in its location.
func (d *Dispatcher) SetNetwork(ctx context.Context, ref hypervisor.Ref, changes []hypervisor.InterfaceChange) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.SetNetwork(ctx, local(ref), changes)
	return machine(m, tag, err)
}

// AddDisk adds a disk to a machine in its location.
func (d *Dispatcher) AddDisk(ctx context.Context, ref hypervisor.Ref, sizeGB int, storage string) (hypervisor.Disk, error) {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Disk{}, err
	}
	return drv.AddDisk(ctx, local(ref), sizeGB, storage)
}

// ResizeDisk grows a disk of a machine in its location.
func (d *Dispatcher) ResizeDisk(ctx context.Context, ref hypervisor.Ref, diskID string, sizeGB int) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.ResizeDisk(ctx, local(ref), diskID, sizeGB)
	return machine(m, tag, err)
}

// Reinstall rebuilds a machine in its location (from a template of that location).
func (d *Dispatcher) Reinstall(ctx context.Context, ref hypervisor.Ref, spec hypervisor.ReinstallSpec) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	spec.TemplateID = localTemplate(spec.TemplateID, tag)
	m, err := drv.Reinstall(ctx, local(ref), spec)
	return machine(m, tag, err)
}

// Console opens a machine's console in its location.
func (d *Dispatcher) Console(ctx context.Context, ref hypervisor.Ref) (hypervisor.Console, error) {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return nil, err
	}
	return drv.Console(ctx, local(ref))
}

// Display opens a machine's graphical console in its location.
func (d *Dispatcher) Display(ctx context.Context, ref hypervisor.Ref) (hypervisor.Console, error) {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return nil, err
	}
	return drv.Display(ctx, local(ref))
}

// Usage reads a machine's or a node's graph in the query ref's location.
func (d *Dispatcher) Usage(ctx context.Context, q hypervisor.UsageQuery) (hypervisor.UsageGraph, error) {
	drv, _, err := d.route(q.Ref.Location)
	if err != nil {
		return hypervisor.UsageGraph{}, err
	}
	q.Ref = local(q.Ref)
	return drv.Usage(ctx, q)
}

// SetFirewall pushes a machine's rules in its location.
func (d *Dispatcher) SetFirewall(ctx context.Context, ref hypervisor.Ref, rules []hypervisor.FirewallRule) error {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return err
	}
	return drv.SetFirewall(ctx, local(ref), rules)
}

// SetAddresses changes a machine's addresses in its location; a location whose
// driver keeps no addresses of its own (no hypervisor.Readdresser) has nothing to
// change, as a single such driver would not be asked.
func (d *Dispatcher) SetAddresses(ctx context.Context, ref hypervisor.Ref, addrs []hypervisor.Address) error {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return err
	}
	if r, ok := drv.(hypervisor.Readdresser); ok {
		return r.SetAddresses(ctx, local(ref), addrs)
	}
	return nil
}

// backup tags a backup a location's driver answered.
func backup(b hypervisor.Backup, tag string) hypervisor.Backup {
	b.Location = tag
	return b
}

// Backup takes a backup of a machine in its location.
func (d *Dispatcher) Backup(ctx context.Context, ref hypervisor.Ref, mode hypervisor.BackupMode) (hypervisor.Backup, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Backup{}, err
	}
	b, err := drv.Backup(ctx, local(ref), mode)
	if err != nil {
		return b, err
	}
	return backup(b, tag), nil
}

// Backups lists a machine's backups in its location.
func (d *Dispatcher) Backups(ctx context.Context, ref hypervisor.Ref) ([]hypervisor.Backup, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return nil, err
	}
	list, err := drv.Backups(ctx, local(ref))
	for i := range list {
		list[i] = backup(list[i], tag)
	}
	return list, err
}

// DeleteBackup deletes a backup in the machine's location.
func (d *Dispatcher) DeleteBackup(ctx context.Context, ref hypervisor.Ref, backupID string) error {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return err
	}
	return drv.DeleteBackup(ctx, local(ref), backupID)
}

// RestoreBackup restores a machine in its location.
func (d *Dispatcher) RestoreBackup(ctx context.Context, ref hypervisor.Ref, backupID string) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.RestoreBackup(ctx, local(ref), backupID)
	return machine(m, tag, err)
}

// RestoreNew restores a backup into a new machine of the backup's location: the
// archive is on that cluster's storage.
func (d *Dispatcher) RestoreNew(ctx context.Context, from hypervisor.Ref, backupID string, spec hypervisor.RestoreSpec) (hypervisor.Machine, error) {
	drv, tag, err := d.route(from.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.RestoreNew(ctx, local(from), backupID, spec)
	return machine(m, tag, err)
}

// Snapshots lists a machine's snapshots in its location.
func (d *Dispatcher) Snapshots(ctx context.Context, ref hypervisor.Ref) ([]hypervisor.Snapshot, error) {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return nil, err
	}
	return drv.Snapshots(ctx, local(ref))
}

// CreateSnapshot takes a snapshot of a machine in its location.
func (d *Dispatcher) CreateSnapshot(ctx context.Context, ref hypervisor.Ref, spec hypervisor.SnapshotSpec) (hypervisor.Snapshot, error) {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Snapshot{}, err
	}
	return drv.CreateSnapshot(ctx, local(ref), spec)
}

// RollbackSnapshot rolls a machine back in its location.
func (d *Dispatcher) RollbackSnapshot(ctx context.Context, ref hypervisor.Ref, name string) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.RollbackSnapshot(ctx, local(ref), name)
	return machine(m, tag, err)
}

// DeleteSnapshot deletes a snapshot in the machine's location.
func (d *Dispatcher) DeleteSnapshot(ctx context.Context, ref hypervisor.Ref, name string) error {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return err
	}
	return drv.DeleteSnapshot(ctx, local(ref), name)
}

// ImportISO imports an image into every location, so that the library's images are
// mountable wherever a machine is: a location whose driver takes files
// (hypervisor.ISOFromFile) gets spec.File, when there is one, and the others fetch
// spec.URL. It fails when any location fails, naming it; the image stays where it
// was imported (a retry imports it again, which the drivers take).
func (d *Dispatcher) ImportISO(ctx context.Context, spec hypervisor.ISOSpec) (hypervisor.ISO, error) {
	if drv, ok := d.alone(); ok {
		return drv.ImportISO(ctx, spec)
	}
	var mu sync.Mutex
	errs := map[string]error{}
	var got hypervisor.ISO
	d.each(func(tag string, drv hypervisor.Driver) {
		s := spec
		if _, file := drv.(hypervisor.ISOFromFile); !file {
			s.File = ""
		} else if s.File == "" {
			mu.Lock()
			errs[tag] = apierr.Invalid(apierr.Field("file", "the location's simulated cluster fetches no URL: its default location must be simulated too"))
			mu.Unlock()
			return
		}
		iso, err := drv.ImportISO(ctx, s)
		mu.Lock()
		defer mu.Unlock()
		errs[tag] = err
		if err == nil && (tag == "" || got.Name == "") {
			got = iso
		}
	})
	if err := joinFailures(errs); err != nil {
		return hypervisor.ISO{}, err
	}
	return got, nil
}

// DeleteISO removes an image from every location.
func (d *Dispatcher) DeleteISO(ctx context.Context, name string) error {
	if drv, ok := d.alone(); ok {
		return drv.DeleteISO(ctx, name)
	}
	var mu sync.Mutex
	errs := map[string]error{}
	d.each(func(tag string, drv hypervisor.Driver) {
		err := drv.DeleteISO(ctx, name)
		mu.Lock()
		errs[tag] = err
		mu.Unlock()
	})
	return joinFailures(errs)
}

// MountISO mounts an image on a machine in its location.
func (d *Dispatcher) MountISO(ctx context.Context, ref hypervisor.Ref, name string) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.MountISO(ctx, local(ref), name)
	return machine(m, tag, err)
}

// EjectISO empties a machine's CD-ROM drive in its location.
func (d *Dispatcher) EjectISO(ctx context.Context, ref hypervisor.Ref) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.EjectISO(ctx, local(ref))
	return machine(m, tag, err)
}

// SetBootOrder sets a machine's boot order in its location.
func (d *Dispatcher) SetBootOrder(ctx context.Context, ref hypervisor.Ref, order []string) (hypervisor.Machine, error) {
	drv, tag, err := d.route(ref.Location)
	if err != nil {
		return hypervisor.Machine{}, err
	}
	m, err := drv.SetBootOrder(ctx, local(ref), order)
	return machine(m, tag, err)
}

// WaitIdle waits for the hypervisor of the machine's location to be done with it; a
// location whose driver follows no task (the sim) is idle at once.
func (d *Dispatcher) WaitIdle(ctx context.Context, ref hypervisor.Ref) error {
	drv, _, err := d.route(ref.Location)
	if err != nil {
		return err
	}
	if f, ok := drv.(hypervisor.TaskFollower); ok {
		return f.WaitIdle(ctx, local(ref))
	}
	return nil
}

// ProbeTCP asks each location that answers probes itself (hypervisor.Prober), default
// first; the first that owns the address answers.
func (d *Dispatcher) ProbeTCP(ctx context.Context, addr string) (bool, error) {
	for _, tag := range d.Locations() {
		drv, err := d.Location(tag)
		if err != nil {
			continue // removed meanwhile
		}
		if p, ok := drv.(hypervisor.Prober); ok {
			if owned, err := p.ProbeTCP(ctx, addr); owned {
				return true, err
			}
		}
	}
	return false, nil
}

// ProbeHTTP is ProbeTCP's HTTP counterpart.
func (d *Dispatcher) ProbeHTTP(ctx context.Context, url string) (int, bool, error) {
	for _, tag := range d.Locations() {
		drv, err := d.Location(tag)
		if err != nil {
			continue
		}
		if p, ok := drv.(hypervisor.Prober); ok {
			if status, owned, err := p.ProbeHTTP(ctx, url); owned {
				return status, true, err
			}
		}
	}
	return 0, false, nil
}

// String names the locations, for logs.
func (d *Dispatcher) String() string {
	names := []string{}
	for _, tag := range d.Locations() {
		names = append(names, Name(tag))
	}
	return fmt.Sprintf("locations(%s)", strings.Join(names, ", "))
}
