package remotes_test

import (
	"errors"
	"testing"

	"github.com/vmplane/vmplane/cli/cmdline"
	"github.com/vmplane/vmplane/cli/remotes"
)

// TestTarget: a URL takes the login of the remote with that URL (the named one when a
// name is given too), a name its remote, neither the current one; no remote to talk
// to is a usage error.
func TestTarget(t *testing.T) {
	cfg := &remotes.Config{Current: "b", Remotes: []remotes.Remote{
		{Name: "a", URL: "http://one:8080/"}, {Name: "b", URL: "http://two:8080"}, {Name: "c", URL: "http://one:8080"},
	}}
	f := func(url, name string, want remotes.Target) {
		t.Helper()
		got, err := cfg.Target(url, name)
		if err != nil || got != want {
			t.Errorf("Target(%q, %q): got %+v, %v; want %+v", url, name, got, err, want)
		}
	}
	f("http://one:8080/", "", remotes.Target{Name: "a", Base: "http://one:8080"})
	f("http://one:8080", "c", remotes.Target{Name: "c", Base: "http://one:8080"})
	f("http://three:8080", "", remotes.Target{Base: "http://three:8080"})
	f("", "a", remotes.Target{Name: "a", Base: "http://one:8080"})
	f("", "", remotes.Target{Name: "b", Base: "http://two:8080"})
	var ue cmdline.UsageError
	if _, err := cfg.Target("", "nope"); !errors.As(err, &ue) {
		t.Errorf("an unknown remote: got %v; want a usage error", err)
	}
	if _, err := (&remotes.Config{}).Target("", ""); !errors.As(err, &ue) {
		t.Errorf("no remote at all: got %v; want a usage error", err)
	}
}
