package client_test

import (
	"os"
	"testing"

	"github.com/vmplane/vmplane/app/apptest"
)

// Credentials of the first operator of a test server.
const (
	adminEmail    = apptest.AdminEmail
	adminPassword = apptest.AdminPassword
)

// startServer starts a real vmplane server in-process on a loopback port, over Badger
// in a temporary directory, with a small fast simulated cluster and no rate limits,
// and stops it when the test ends. It returns the base URL.
func startServer(t testing.TB) string {
	t.Helper()
	srv, err := apptest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return srv.Base
}

// startExampleServer is startServer for examples, which have no testing.T.
func startExampleServer() (base string, stop func()) {
	dir, err := os.MkdirTemp("", "vmplane-example-")
	if err != nil {
		panic(err)
	}
	srv, err := apptest.Start(dir)
	if err != nil {
		panic(err)
	}
	return srv.Base, func() {
		srv.Stop()
		os.RemoveAll(dir)
	}
}
