package httpedge

import "testing"

// TestSettlement: answers below 500 are kept (but 429), refusals that changed nothing
// free the key, and a 500, a 504 or a panic leave it claimed, since the request may
// have taken effect and must not run twice.
func TestSettlement(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		status   int
		panicked bool
		want     int
	}{
		{201, false, keepAnswer}, {202, false, keepAnswer}, {400, false, keepAnswer}, {409, false, keepAnswer},
		{429, false, releaseKey}, {503, false, releaseKey}, {507, false, releaseKey},
		{500, false, keepClaim}, {504, false, keepClaim}, {201, true, keepClaim}, {500, true, keepClaim},
	} {
		if got := settlement(c.status, c.panicked); got != c.want {
			t.Errorf("settlement(%d, panicked %v): got %d; want %d", c.status, c.panicked, got, c.want)
		}
	}
}
