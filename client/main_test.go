package client_test

import (
	"testing"

	"github.com/vmplane/vmplane/internal/leakcheck"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestMain fails the package's tests when a goroutine one of them started outlives
// it. The tests run in parallel, each against servers of its own, four at a time
// (unless -parallel says otherwise): most of their time is spent waiting on those
// servers, not computing.
func TestMain(m *testing.M) {
	testwait.Parallel(4)
	leakcheck.Main(m)
}
