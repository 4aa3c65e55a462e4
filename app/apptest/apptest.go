// Package apptest starts real vmplane servers in-process for the tests of packages
// outside app (the Go client, the generated-client check): on an ephemeral loopback
// port, over a Badger store in a directory the caller owns, with a small, fast
// simulated cluster and no rate limits, since a test's requests come quickly from one
// address. app's own tests keep their configuration in package app.
package apptest

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/app"
)

// Credentials of the first operator (admin) of a test server.
const (
	AdminEmail    = "admin@example.test"
	AdminPassword = "correct horse battery staple"
)

// RescueISO is the name of the image a test server's rescue boots (VMPLANE_RESCUE_ISO):
// a test that turns rescue on adds an image of that name first.
const RescueISO = "rescue"

// Config is a test server's configuration over a store in dir.
func Config(dir string) app.Config {
	cfg := app.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = dir
	cfg.AdminEmail = AdminEmail
	cfg.AdminPassword = AdminPassword
	cfg.JWTKey = "0123456789abcdef0123456789abcdef-apptest-signing-key"
	cfg.BcryptCost = 4 // the minimum: hashing speed is not what is tested here
	cfg.RateGlobal, cfg.RateGlobalBurst = 0, 0
	cfg.RateAuth, cfg.RateAuthBurst = 0, 0
	cfg.RateKeyOwner, cfg.RateKeyOwnerBurst = 0, 0
	cfg.RateLogin, cfg.RateLoginBurst = 0, 0
	cfg.RateLoginAddr, cfg.RateLoginAddrBurst = 0, 0
	cfg.SimOpDelay = time.Millisecond
	cfg.SimMachines = 4
	cfg.StoreCacheMB = 8
	// Tenants delete their own machines in the tests written before the setting
	// (TenantDelete); TestTenantDeleteSetting checks its default.
	cfg.TenantDelete = true
	// Tests run schedules every second: the operator's bounds on them are off.
	cfg.ScheduleMinBackupInterval, cfg.ScheduleMinPowerInterval = 0, 0
	cfg.RescueISO = RescueISO
	// Webhooks deliver to receivers the tests run on loopback.
	cfg.WebhookAllowCIDRs = "127.0.0.0/8,::1"
	return cfg
}

// Server is a running test server.
type Server struct {
	// Base is the server's base URL, http://127.0.0.1:port.
	Base string
	app  *app.App
}

// Start starts a test server over a store in dir.
func Start(dir string) (*Server, error) { return StartConfig(Config(dir)) }

// StartConfig starts a test server of cfg (Config, changed as a test needs).
func StartConfig(cfg app.Config) (*Server, error) {
	a, err := app.Start(cfg, zap.NewNop(), nil)
	if err != nil {
		return nil, err
	}
	return &Server{Base: "http://" + a.Addr(), app: a}, nil
}

// Stop shuts the server down gracefully.
func (s *Server) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.app.Shutdown(ctx)
}
