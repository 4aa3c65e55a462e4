package app

import (
	"testing"

	"github.com/vmplane/vmplane/internal/leakcheck"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestMain fails the package's tests when a goroutine one of them started outlives it.
// Eight tests run at once (unless -parallel says otherwise): most of their time is
// waiting on servers, an etcd and cluster members of their own, not computing (alone,
// the package took 293 s at go test's default of two on this 2-core machine, using
// three quarters of one core; 148 s at eight, using 1.3 cores).
func TestMain(m *testing.M) {
	testwait.Parallel(8)
	leakcheck.Main(m)
}
