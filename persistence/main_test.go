package persistence

import (
	"testing"

	"github.com/vmplane/vmplane/internal/leakcheck"
	"github.com/vmplane/vmplane/internal/testwait"
)

// TestMain fails the package's tests when a goroutine one of them started outlives it.
// Eight tests run at once (unless -parallel says otherwise): most of their time is
// waiting on an etcd of their own, a TTL or a child process, not computing.
func TestMain(m *testing.M) {
	testwait.Parallel(8)
	leakcheck.Main(m)
}
