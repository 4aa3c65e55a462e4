package webhooks

import (
	"testing"

	"github.com/vmplane/vmplane/actors/kit/wiretest"
)

// TestWire checks that the answers registered with kit.Wire cross members whole. The
// webhooks send nothing through a Kind, so there are no sends to check (CheckSent).
func TestWire(t *testing.T) { wiretest.WireRoundTrip(t) }
