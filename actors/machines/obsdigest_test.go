package machines

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/vmplane/vmplane/actors/machines/obsdigest"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/persistence"
)

// adoptedWithDigests makes the digests trusted (the job's build run once) and adopts
// the sim's machines; it answers the inventory's machines and their record ids.
func adoptedWithDigests(t *testing.T, ctx context.Context, s *testSystem) ([]hypervisor.Machine, map[int]string) {
	t.Helper()
	inv, err := s.driver.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Trust first, so that the digests counted below are the adoption's own writes.
	if err := s.Machines.digests.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if all, err := s.Machines.digests.All(ctx); err != nil || all == nil {
		t.Fatalf("digests after the job's check: %v, %v; want them trusted (an empty set)", all, err)
	}
	if _, err := s.Machines.Adopt(ctx, inv.Machines); err != nil {
		t.Fatal(err)
	}
	index, err := s.Machines.VMIDs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	ids := maps.Collect(index.All())
	if n := countKeys(t, s.store, persistence.Prefix("vm-obs")); n != len(inv.Machines) {
		t.Fatalf("%d digests after adopting %d machines", n, len(inv.Machines))
	}
	return inv.Machines, ids
}

// The set a sync reads answers each machine's stored digest, found by its id among
// all of them (a sorted slice searched, where it was a map), and none for an id
// without a record.
func TestDigestSetAnswersEachMachine(t *testing.T) {
	ctx := context.Background()
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 9, Nodes: 2, Machines: 300})
	})
	_, ids := adoptedWithDigests(t, ctx, s)
	set := digests(t, ctx, s)
	if set.Len() != len(ids) {
		t.Fatalf("%d digests in the set; want %d", set.Len(), len(ids))
	}
	for _, id := range ids {
		stored, err := s.store.Get(ctx, obsdigest.Key(id))
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := set.Get(id); !ok || d != string(stored) {
			t.Fatalf("machine %s: Get = %q, %v; want its stored digest", id, d, ok)
		}
		if _, ok := set.Get(id + "x"); ok {
			t.Fatalf("a digest for %sx, which has no record", id)
		}
	}
	if _, ok := (*obsdigest.Set)(nil).Get(slices.Collect(maps.Values(ids))[0]); ok {
		t.Fatal("a nil set answers a digest")
	}
}

// changes are observations that differ from a machine in one compared field each, and
// whether the power state is the one that differs.
func changes(hm hypervisor.Machine) map[string]struct {
	m     hypervisor.Machine
	state bool
} {
	out := map[string]struct {
		m     hypervisor.Machine
		state bool
	}{}
	add := func(name string, state bool, f func(m *hypervisor.Machine)) {
		m := hm
		m.Disks, m.Interfaces = slices.Clone(hm.Disks), slices.Clone(hm.Interfaces)
		f(&m)
		out[name] = struct {
			m     hypervisor.Machine
			state bool
		}{m, state}
	}
	add("state", true, func(m *hypervisor.Machine) {
		m.State = map[bool]hypervisor.State{true: hypervisor.StateStopped, false: hypervisor.StateRunning}[m.State == hypervisor.StateRunning]
	})
	add("node", false, func(m *hypervisor.Machine) { m.Node += "-other" })
	add("cpu", false, func(m *hypervisor.Machine) { m.CPUCores++ })
	add("memory", false, func(m *hypervisor.Machine) { m.MemoryMB += 512 })
	add("name", false, func(m *hypervisor.Machine) { m.Name += "-renamed" })
	add("disk", false, func(m *hypervisor.Machine) {
		m.Disks = append(m.Disks, hypervisor.Disk{ID: "scsi9", Storage: "local", SizeGB: 1})
	})
	add("mac", false, func(m *hypervisor.Machine) {
		m.Interfaces = append(m.Interfaces, hypervisor.Interface{ID: "net9", MAC: "02:00:00:00:00:99", Bridge: "vmbr0"})
	})
	add("media", false, func(m *hypervisor.Machine) { m.Media = "local:iso/other.iso" })
	add("display", false, func(m *hypervisor.Machine) { m.Headless = !m.Headless })
	return out
}

// checkSync checks Unchanged against every machine as found and against each change of
// it: the first is the same, each change is not, and only a state change says so.
func checkSync(t *testing.T, ctx context.Context, s *testSystem, found []hypervisor.Machine, ids map[int]string) {
	t.Helper()
	for _, hm := range found {
		id := ids[hm.VMID]
		if same, differs := s.Machines.Unchanged(ctx, id, hm, digests(t, ctx, s)); !same || differs {
			t.Fatalf("machine %d as found: Unchanged = %v, %v; want true, false", hm.VMID, same, differs)
		}
		for name, c := range changes(hm) {
			if same, differs := s.Machines.Unchanged(ctx, id, c.m, digests(t, ctx, s)); same || differs != c.state {
				t.Fatalf("machine %d, %s changed: Unchanged = %v, %v; want false, %v", hm.VMID, name, same, differs, c.state)
			}
		}
	}
}

// A machine that changed in any field the sync compares is seen as changed while its
// digest exists; one that did not is seen as the same from its digest alone.
func TestUnchangedByDigest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 3, Nodes: 2, Machines: 12})
	})
	found, ids := adoptedWithDigests(t, ctx, s)
	checkSync(t, ctx, s, found, ids)

	// The digest answers alone: with the record's value made unreadable, an unchanged
	// machine is still the same (the record would say "ask the actor").
	hm := found[0]
	id := ids[hm.VMID]
	if err := s.store.Commit(ctx, new(persistence.Batch).Put(machineKey(id), []byte("not a record"))); err != nil {
		t.Fatal(err)
	}
	if same, _ := s.Machines.Unchanged(ctx, id, hm, digests(t, ctx, s)); !same {
		t.Fatal("an unchanged machine with a digest was not the same without reading its record")
	}
	if same, _ := s.Machines.Unchanged(ctx, id, changes(hm)["cpu"].m, digests(t, ctx, s)); same {
		t.Fatal("a changed machine was the same by its digest")
	}
}

// An observation the entity records writes the record's new digest in its batch: the
// next sync sees the machine as the same from the digest, and the previous
// observation as a change.
func TestObserveWritesDigest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 4, Nodes: 2, Machines: 3})
	})
	found, ids := adoptedWithDigests(t, ctx, s)
	hm := found[0]
	id := ids[hm.VMID]
	next := changes(hm)["memory"].m
	if changed, err := s.Machines.Observe(ctx, id, next, time.Time{}); err != nil || !changed {
		t.Fatalf("Observe = %v, %v; want a change", changed, err)
	}
	if d, _ := digests(t, ctx, s).Get(id); !digestShows(d, next) {
		t.Fatalf("the digest after Observe does not show the observation (%q)", d)
	}
	if same, _ := s.Machines.Unchanged(ctx, id, hm, digests(t, ctx, s)); same {
		t.Fatal("the observation before the change is the same as the record")
	}
}

// Without digests (a store a release before them wrote, or digests dropped by the
// job) and with a wrong one while they are not trusted, the records answer: changes
// are still changes and the rest is the same.
func TestUnchangedWithoutDigest(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := newTestSystem(t, func(o *testOptions) {
		o.Driver = sim.New(sim.Config{OpDelay: -1, Seed: 5, Nodes: 2, Machines: 8})
	})
	found, ids := adoptedWithDigests(t, ctx, s)

	// Missing digests: as a store from before them.
	b := new(persistence.Batch)
	for _, id := range ids {
		b.Del(obsdigest.Key(id))
	}
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	checkSync(t, ctx, s, found, ids)

	// A digest of the changed machine, as a member that does not keep them would
	// leave behind its record's write, is not trusted once the marker is gone, and the
	// job's build writes every record's digest again, that one's and the missing ones.
	hm := found[1]
	id := ids[hm.VMID]
	cpu := changes(hm)["cpu"].m
	var want record
	applyObserved(&want.Machine, cpu)
	b = new(persistence.Batch).Put(obsdigest.Key(id), observedDigest(&want)).Del(persistence.Key(persistence.KindMeta, "machine-observed-digest"))
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if d := digests(t, ctx, s); d != nil {
		t.Fatalf("digests answered while not trusted: %d", d.Len())
	}
	if same, _ := s.Machines.Unchanged(ctx, id, cpu, digests(t, ctx, s)); same {
		t.Fatal("an untrusted digest made a changed machine the same")
	}
	if err := s.Machines.digests.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, s.store, persistence.Prefix("vm-obs")); n != len(ids) {
		t.Fatalf("%d digests after the build; want one for each of the %d records", n, len(ids))
	}
	d := digests(t, ctx, s)
	for _, hm := range found {
		if got, _ := d.Get(ids[hm.VMID]); !digestShows(got, hm) {
			t.Fatalf("machine %d: the built digest does not show its record", hm.VMID)
		}
	}
	checkSync(t, ctx, s, found, ids)

	// A digest whose record is gone is dropped by the build.
	stray := obsdigest.Key("no-such-machine")
	b = new(persistence.Batch).Put(stray, []byte("1x")).Del(persistence.Key(persistence.KindMeta, "machine-observed-digest"))
	if err := s.store.Commit(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Machines.digests.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.store.Get(ctx, stray); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("the digest of a machine without a record after the build: %v; want it gone", err)
	}
	if n := countKeys(t, s.store, persistence.Prefix("vm-obs")); n != len(ids) {
		t.Fatalf("%d digests after the second build; want %d", n, len(ids))
	}
}

// digests reads the digests as a sync does.
func digests(t *testing.T, ctx context.Context, s *testSystem) *obsdigest.Set {
	t.Helper()
	d, err := s.Machines.ObservedDigests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// applyObserved settles at once: applied again to what it made of an empty record
// with the same observation, it changes no compared field. digestShows relies on it
// (a record whose compared fields are those hm makes is left as it is by hm).
func TestApplyObservedSettles(t *testing.T) {
	ctx := context.Background()
	d := sim.New(sim.Config{OpDelay: -1, Seed: 6, Nodes: 2, Machines: 30})
	inv, err := d.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, hm := range inv.Machines {
		all := changes(hm)
		noName := hm
		noName.Name, noName.TemplateID = "", ""
		all["no name or template"] = struct {
			m     hypervisor.Machine
			state bool
		}{m: noName}
		for name, c := range all {
			var once record
			applyObserved(&once.Machine, c.m)
			twice := once
			applyObserved(&twice.Machine, c.m)
			if string(observedDigest(&once)) != string(observedDigest(&twice)) {
				t.Fatalf("machine %d, %s: applying the observation again changed a compared field", hm.VMID, name)
			}
		}
	}
}
