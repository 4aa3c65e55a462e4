package packaging

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/vmplane/vmplane/app"
)

func noEnv(string) string { return "" }

// TestPackagedConfigChoosesNothing: the configuration the package ships does not start a
// server until the operator chooses the hypervisor driver: loaded as shipped, it is a
// one-line configuration error (vmplane serve exits 2, which the unit does not restart)
// naming the driver setting, the file and both choices. A package enabled without edits
// must not serve a simulated cluster with demo machines to the network.
func TestPackagedConfigChoosesNothing(t *testing.T) {
	_, err := app.Load([]string{"--config", "vmplane.toml"}, noEnv)
	var ce *app.ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("loading the packaged configuration as shipped: %v; want a configuration error naming the driver", err)
	}
	msg := ce.Error()
	if ce.Flag != "driver" || ce.File != "vmplane.toml" || strings.Contains(msg, "\n") ||
		!strings.Contains(msg, `"proxmox"`) || !strings.Contains(msg, `"sim"`) {
		t.Errorf("got %q; want one line naming driver, the file and both drivers", msg)
	}
}

// TestPackagedConfigDecides: once a driver is chosen, the packaged configuration file is
// the one place that sets the data directory (the unit sets no VMPLANE_* variable that
// would silently beat it, and `vmplane config check` reports it as coming from the file),
// and it is the directory systemd creates for the service; /metrics is served on a
// loopback address of its own, not on the API's.
func TestPackagedConfigDecides(t *testing.T) {
	l, err := app.Load([]string{"--config", "vmplane.toml", "--driver", "sim"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range settings(t)["Environment"] {
		if strings.HasPrefix(e, "VMPLANE_") {
			t.Errorf("%s sets Environment=%s: the configuration file is the one place for settings", unitFile, e)
		}
	}
	var dataDir app.EffectiveSetting
	for _, e := range l.Effective() {
		if e.Name == "data-dir" {
			dataDir = e
		}
	}
	if dataDir.Source != app.SourceFile {
		t.Errorf("data-dir comes from %q; want the file", dataDir.Source)
	}
	state := settings(t)["StateDirectory"]
	if len(state) == 0 || l.Config.DataDir != "/var/lib/"+state[len(state)-1] {
		t.Errorf("data-dir %q; the unit's StateDirectory is %q (/var/lib/...)", l.Config.DataDir, state)
	}
	host, _, err := net.SplitHostPort(l.Config.MetricsAddr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		t.Errorf("metrics-addr %q; want a loopback address of its own", l.Config.MetricsAddr)
	}
}
