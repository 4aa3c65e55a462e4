package client_test

import (
	"context"
	"os"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/vmplane/vmplane/app"
)

// Credentials of the first operator of a test server.
const (
	adminEmail    = "admin@example.test"
	adminPassword = "correct horse battery staple"
)

// startServer starts a real vmplane server in-process on a loopback port, over Badger
// in a temporary directory, with a small fast simulated cluster and no rate limits,
// and stops it when the test ends. It returns the base URL.
func startServer(t testing.TB) string {
	t.Helper()
	a, err := app.Start(testConfig(t.TempDir()), zap.NewNop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := a.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return "http://" + a.Addr()
}

// startExampleServer is startServer for examples, which have no testing.T.
func startExampleServer() (base string, stop func()) {
	dir, err := os.MkdirTemp("", "vmplane-example-")
	if err != nil {
		panic(err)
	}
	a, err := app.Start(testConfig(dir), zap.NewNop(), nil)
	if err != nil {
		panic(err)
	}
	return "http://" + a.Addr(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		a.Shutdown(ctx)
		os.RemoveAll(dir)
	}
}

func testConfig(dir string) app.Config {
	cfg := app.Defaults()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = dir
	cfg.AdminEmail = adminEmail
	cfg.AdminPassword = adminPassword
	cfg.JWTKey = "0123456789abcdef0123456789abcdef-goclient-test-key"
	cfg.BcryptCost = 4 // the minimum: hashing speed is not what is tested here
	cfg.RateGlobal, cfg.RateGlobalBurst = 0, 0
	cfg.RateAuth, cfg.RateAuthBurst = 0, 0
	cfg.RateLogin, cfg.RateLoginBurst = 0, 0
	cfg.RateLoginAddr, cfg.RateLoginAddrBurst = 0, 0
	cfg.SimOpDelay = time.Millisecond
	cfg.SimMachines = 4
	cfg.StoreCacheMB = 8
	return cfg
}
