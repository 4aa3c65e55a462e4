package app

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/hypervisor/proxmox"
	"github.com/vmplane/vmplane/hypervisor/sim"
	"github.com/vmplane/vmplane/hypervisor/sim/world"
	"github.com/vmplane/vmplane/persistence"
)

// locationOptions are the actors' locations: the dispatcher over the configured
// driver (the default location), the key that seals the token secrets, the builder
// of each location's driver from its record and the server's settings, and the
// removal of a deleted simulated location's world.
func locationOptions(cfg Config, log *zap.Logger, disp *hvloc.Dispatcher, store persistence.Store) (actors.LocationOptions, error) {
	opts := actors.LocationOptions{Dispatcher: disp, Build: locationDriver(cfg, log, store)}
	if store != nil {
		opts.Forget = func(ctx context.Context, id string) error { return forgetSimWorld(ctx, store, id) }
	}
	if cfg.LocationSecretKeyFile != "" {
		key, err := locations.ReadKey(cfg.LocationSecretKeyFile)
		if err != nil {
			return opts, &ConfigError{Flag: "location-secret-key-file", Env: "VMPLANE_LOCATION_SECRET_KEY_FILE", Value: cfg.LocationSecretKeyFile, Allowed: err.Error()}
		}
		opts.Key = key
	}
	return opts, nil
}

// locationDriver builds a location's driver: a simulated cluster of its own, whose
// world lives in the store (simWorld), or a Proxmox cluster with the location's URL,
// token and fingerprint and the server's other proxmox settings (timeouts, storages,
// bridge), but no console user: that one is the default cluster's. A driver built
// only to check a location's settings (Settings.Check) writes nothing: its record
// is not stored yet.
func locationDriver(cfg Config, log *zap.Logger, store persistence.Store) func(locations.Settings) (hypervisor.Driver, error) {
	return func(s locations.Settings) (hypervisor.Driver, error) {
		l := s.Location
		if l.Driver == locations.DriverSim {
			sc := simLocationConfig(cfg, l)
			if s.Check || store == nil {
				sc.SeedOnAttach = false
				sc.Machines = 0
				return sim.New(sc), nil
			}
			return simWorld(sc, store, l.ID)
		}
		pc := ProxmoxDriverConfig(cfg, log.Named("location").With(zap.String("location", l.ID)))
		pc.URL, pc.TokenID, pc.TokenSecret, pc.Fingerprint = l.Proxmox.URL, l.Proxmox.TokenID, s.TokenSecret, l.Proxmox.TLSFingerprint
		pc.CAFile, pc.InsecureSkipVerify, pc.ConsoleUser, pc.ConsolePassword = "", false, "", ""
		d, err := proxmox.New(pc)
		if err != nil {
			// The field the error names is the location's (proxmox.url, ...).
			return nil, errors.New(strings.TrimPrefix(err.Error(), "proxmox: "))
		}
		return d, nil
	}
}

// simLocationConfig is what a simulated location's world is made from the first
// time: the server's --sim-nodes and --sim-op-delay; for the i-th location
// --sim-locations made, also --sim-machines demo machines, seeded --sim-seed + i - 1
// (other machines, the same vmids); for one added through the API, no machines,
// seeded by its id. A world the store holds already is restored instead, whatever
// these say (a renamed sim-2 keeps its machines).
func simLocationConfig(cfg Config, l locations.Location) sim.Config {
	sc := sim.Config{Nodes: cfg.SimNodes, OpDelay: cfg.SimOpDelay, SeedOnAttach: true}
	if i := simLocationIndex(cfg, l); i > 0 {
		sc.Seed, sc.Machines = cfg.SimSeed+int64(i-1), cfg.SimMachines
		return sc
	}
	h := fnv.New64a()
	h.Write([]byte(l.ID))
	sc.Seed = int64(h.Sum64() >> 1)
	return sc
}

// maxSimLocations bounds --sim-locations.
const maxSimLocations = 16

// simLocationName is the name of the i-th simulated location (i >= 2) that
// --sim-locations makes: sim-2, sim-3, ...
func simLocationName(i int) string { return "sim-" + strconv.Itoa(i) }

// simLocationIndex is i for a simulated location named simLocationName(i) that
// --sim-locations makes (2 <= i <= SimLocations, on the sim driver), else 0.
func simLocationIndex(cfg Config, l locations.Location) int {
	if l.Driver != locations.DriverSim || (cfg.Driver != "sim" && cfg.Driver != "") {
		return 0
	}
	n, ok := strings.CutPrefix(l.Name, "sim-")
	i, err := strconv.Atoi(n)
	if !ok || err != nil || i < 2 || i > cfg.SimLocations || simLocationName(i) != l.Name {
		return 0
	}
	return i
}

// simWorldPrefix is where the world of the simulated location id lives in the store:
// sim-at/<id>/, laid out as the default world's sim/ keys.
func simWorldPrefix(id string) []byte { return persistence.Prefix("sim-at", id) }

// simWorld is the driver of a simulated location, whose world lives in the store
// under simWorldPrefix as the default one's lives under sim/: restored when the store
// holds it (a restart, another member that made it, a rebuild after the location's
// record changed), else made from sc and written there. Every member of a cluster
// attaches to the same world.
func simWorld(sc sim.Config, store persistence.Store, id string) (hypervisor.Driver, error) {
	d := sim.New(sc)
	ctx, cancel := context.WithTimeout(context.Background(), worldAttachTimeout)
	defer cancel()
	if _, err := d.Attach(ctx, persistence.Within(store, simWorldPrefix(id))); err != nil {
		return nil, fmt.Errorf("simulated world: %w", err)
	}
	return d, nil
}

// forgetBatch bounds the deletes of one commit (etcd takes 128 operations a
// transaction by default).
const forgetBatch = 100

// forgetSimWorld deletes the world of the simulated location id, which is deleted:
// its world record first, so that what a crash leaves of the rest is no world (a
// world is read only through that record; the rest would be stale records that
// attaching a new world there deletes), then every other key under sim-at/<id>/, a
// batch at a time. It runs only after the location's delete is durable (see
// locations.Deps.Forget): deleting first, a restart in between would find the
// location with half a world and serve that as its machines. Nothing there (a
// Proxmox location) is nothing to do.
func forgetSimWorld(ctx context.Context, store persistence.Store, id string) error {
	prefix := simWorldPrefix(id)
	wk := append(slices.Clone(prefix), world.WorldKey()...)
	if err := store.Commit(ctx, new(persistence.Batch).Del(wk)); err != nil {
		return err
	}
	for {
		var keys [][]byte
		err := store.Scan(ctx, prefix, nil, forgetBatch, func(k, _ []byte) error {
			keys = append(keys, slices.Clone(k))
			return nil
		})
		if err != nil || len(keys) == 0 {
			return err
		}
		b := new(persistence.Batch)
		for _, k := range keys {
			b.Del(k)
		}
		if err := store.Commit(ctx, b); err != nil {
			return err
		}
	}
}

// sweepSimWorlds deletes the worlds under sim-at/ whose location has no record: what
// a location's delete left when the server stopped before forgetSimWorld finished.
// The worlds are listed before the records are read: a location's record is durable
// before its world is first written (the driver is built from the stored record), so
// a world seen there whose record is not found is one whose location was deleted,
// never one being made.
func (a *App) sweepSimWorlds(ctx context.Context) error {
	var ids []string
	root := persistence.Prefix("sim-at")
	var after []byte
	for {
		var next string
		err := a.store.Scan(ctx, root, after, 1, func(k, _ []byte) error {
			id, _, _ := strings.Cut(string(k[len(root):]), "/")
			next = id
			return nil
		})
		if err != nil {
			return err
		}
		if next == "" {
			break
		}
		ids = append(ids, next)
		// Past every key of this world: its keys are text, below 0xff.
		after = append(simWorldPrefix(next), 0xff)
	}
	for _, id := range ids {
		switch err := a.sys.Locations.Exists(ctx, id); {
		case err == nil:
			continue
		case !errors.Is(err, apierr.ErrNotFound):
			return err
		}
		a.log.Info("deleting the simulated world of a deleted location", zap.String("location", id))
		if err := forgetSimWorld(ctx, a.store, id); err != nil {
			return err
		}
	}
	return nil
}

// ensureSimLocations makes the simulated locations --sim-locations asks for that are
// not recorded yet (sim-2, sim-3, ...): location records, as an operator's, which the
// API lists and may rename or delete (a later start makes a deleted one again). Two
// members that make one at once: the second finds the name taken, and is content.
func (a *App) ensureSimLocations(cfg Config) error {
	if cfg.SimLocations < 2 || (cfg.Driver != "sim" && cfg.Driver != "") {
		return nil
	}
	ctx, cancel := context.WithTimeout(a.bg, worldAttachTimeout)
	defer cancel()
	list, _, err := a.sys.Locations.List(ctx, "", 0)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, l := range list {
		have[l.Name] = true
	}
	for i := 2; i <= cfg.SimLocations; i++ {
		name := simLocationName(i)
		if have[name] {
			continue
		}
		_, err := a.sys.Locations.Create(ctx, locations.LocationSpec{Name: name, Driver: locations.DriverSim})
		if err != nil && !errors.Is(err, apierr.ErrConflict) {
			return fmt.Errorf("simulated location %s: %w", name, err)
		}
	}
	return nil
}
