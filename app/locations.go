package app

import (
	"errors"
	"hash/fnv"
	"strings"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/actors/locations"
	"github.com/vmplane/vmplane/hypervisor"
	hvloc "github.com/vmplane/vmplane/hypervisor/locations"
	"github.com/vmplane/vmplane/hypervisor/proxmox"
	"github.com/vmplane/vmplane/hypervisor/sim"
)

// locationOptions are the actors' locations: the dispatcher over the configured
// driver (the default location), the key that seals the token secrets, and the
// builder of each location's driver from its record and the server's settings.
func locationOptions(cfg Config, log *zap.Logger, disp *hvloc.Dispatcher) (actors.LocationOptions, error) {
	opts := actors.LocationOptions{Dispatcher: disp, Build: locationDriver(cfg, log)}
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
// machines, its world in memory only), or a Proxmox cluster with the location's URL,
// token and fingerprint and the server's other proxmox settings (timeouts, storages,
// bridge), but no console user: that one is the default cluster's.
func locationDriver(cfg Config, log *zap.Logger) func(locations.Settings) (hypervisor.Driver, error) {
	return func(s locations.Settings) (hypervisor.Driver, error) {
		l := s.Location
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
