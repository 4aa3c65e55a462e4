package app

import (
	"testing"

	"github.com/vmplane/vmplane/internal/leakcheck"
)

// TestMain fails the package's tests when a goroutine one of them started outlives it.
func TestMain(m *testing.M) { leakcheck.Main(m) }
