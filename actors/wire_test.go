package actors

import (
	"flag"
	"testing"

	"github.com/vmplane/vmplane/actors/kit/wiretest"
)

var update = flag.Bool("update", false, "rewrite testdata/wire.golden with the current wire catalogue")

// TestWireCatalogue holds every message and answer that crosses members (this package
// imports every domain package, so all are registered) to testdata/wire.golden: a
// name@version must not disappear nor change its fields incompatibly, since members of
// the previous version still send and read it; see README "Messages that cross
// members".
func TestWireCatalogue(t *testing.T) { wiretest.CheckCatalogue(t, "testdata/wire.golden", *update) }
