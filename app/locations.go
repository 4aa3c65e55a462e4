package app

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
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
	"github.com/vmplane/vmplane/persistence"
)

// locationOptions are the actors' locations: the dispatcher over the configured
// driver (the default location), the key that seals the token secrets, and the
// builder of each location's driver from its record and the server's settings.
func locationOptions(cfg Config, log *zap.Logger, disp *hvloc.Dispatcher, store persistence.Store) (actors.LocationOptions, error) {
	opts := actors.LocationOptions{Dispatcher: disp, Build: locationDriver(cfg, log, store)}
	if cfg.LocationSecretKeyFile != "" {
		key, err := locations.ReadKey(cfg.LocationSecretKeyFile)
		if err != nil {
			return opts, &ConfigError{Flag: "location-secret-key-file", Env: "VMPLANE_LOCATION_SECRET_KEY_FILE", Value: cfg.LocationSecretKeyFile, Allowed: err.Error()}
		}
		opts.Key = key
	}
	return opts, nil
}

// locationDriver builds a location's driver: a simulated cluster of its own (the
// server's --sim-nodes and --sim-op-delay, seeded by the location's id, no demo
// machines, its world in memory only; a location --sim-locations made has demo
// machines and keeps its world in the store, simWorld), or a Proxmox cluster with the
// location's URL, token and fingerprint and the server's other proxmox settings
// (timeouts, storages, bridge), but no console user: that one is the default
// cluster's.
func locationDriver(cfg Config, log *zap.Logger, store persistence.Store) func(locations.Settings) (hypervisor.Driver, error) {
	return func(s locations.Settings) (hypervisor.Driver, error) {
		l := s.Location
		if i := simLocationIndex(cfg, l); i > 0 && store != nil {
			return simWorld(cfg, store, l.ID, i)
		}
		if l.Driver == locations.DriverSim {
			h := fnv.New64a()
			h.Write([]byte(l.ID))
			return sim.New(sim.Config{Seed: int64(h.Sum64() >> 1), Nodes: cfg.SimNodes, OpDelay: cfg.SimOpDelay}), nil
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

// simWorld is the driver of the i-th simulated location, whose world lives in the
// store under sim-at/<location id>/ as the default one's lives under sim/: restored
// when the store holds it, else made from the server's --sim-nodes and
// --sim-machines (seeded --sim-seed + i - 1: other machines, the same vmids) and
// written there.
func simWorld(cfg Config, store persistence.Store, id string, i int) (hypervisor.Driver, error) {
	d := sim.New(sim.Config{Seed: cfg.SimSeed + int64(i-1), Nodes: cfg.SimNodes, Machines: cfg.SimMachines,
		SeedOnAttach: true, OpDelay: cfg.SimOpDelay})
	ctx, cancel := context.WithTimeout(context.Background(), worldAttachTimeout)
	defer cancel()
	if _, err := d.Attach(ctx, persistence.Within(store, persistence.Prefix("sim-at", id))); err != nil {
		return nil, fmt.Errorf("simulated world: %w", err)
	}
	return d, nil
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
