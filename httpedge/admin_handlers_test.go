package httpedge

import (
	"strings"
	"testing"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
)

// TestBackupWithoutSnapshots: a store that takes no backups of its own (a replicated
// one; here none at all) answers 409 invalid_state naming the cluster's tool, before
// the connection is taken over.
func TestBackupWithoutSnapshots(t *testing.T) {
	s := New(Options{Version: "test"})
	_, err := s.backup(&api.Call{})
	e := apierr.From(err)
	if e.Status != 409 || e.Code != "invalid_state" || !strings.Contains(e.Detail, "etcdctl snapshot save") {
		t.Fatalf("backup without a snapshotting store: %+v", e)
	}
}
