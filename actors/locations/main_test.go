package locations

import (
	"testing"

	"github.com/vmplane/vmplane/actors/kit/kittest"
)

// TestMain fails the tests if they leave a goroutine running.
func TestMain(m *testing.M) { kittest.Main(m) }
