package hypervisortest

import (
	"errors"
	"testing"

	"github.com/vmplane/vmplane/apierr"
)

// WantErr checks that err matches every target with errors.Is (no targets: no error),
// and that every driver error maps to an API status (carries an *apierr.Error).
func WantErr(t testing.TB, what string, err error, targets ...error) {
	t.Helper()
	if len(targets) == 0 {
		if err != nil {
			t.Errorf("%s: got error %v; want none", what, err)
		}
		return
	}
	if err == nil {
		t.Errorf("%s: got no error; want %v", what, targets)
		return
	}
	for _, target := range targets {
		if !errors.Is(err, target) {
			t.Errorf("%s: got %v; want it to match %v", what, err, target)
		}
	}
	var ae *apierr.Error
	if !errors.As(err, &ae) {
		t.Errorf("%s: got %v, which carries no *apierr.Error; want every driver error to map to a status", what, err)
	}
}
