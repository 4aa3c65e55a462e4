package httpedge

import (
	"testing"

	"github.com/vmplane/vmplane/httpedge/api"
)

// TestPostRoutesStamped fails when an authenticated POST route neither carries the
// claim of its Idempotency-Key in its write (Stamped) nor says why it need not
// (Exempt): its retry after a crash or a failover would be answered 409 for good.
func TestPostRoutesStamped(t *testing.T) {
	t.Parallel()
	for _, rt := range New(Options{}).Routes() {
		if rt.Method != "POST" || rt.Access == api.Public {
			continue
		}
		switch {
		case rt.Stamped && rt.Exempt != "":
			t.Errorf("POST %s: both stamped and exempt (%q); want one", rt.Path, rt.Exempt)
		case !rt.Stamped && rt.Exempt == "":
			t.Errorf("POST %s: neither stamped nor exempt; want its write to carry the Idempotency-Key's claim, or the reason it need not", rt.Path)
		}
	}
}
