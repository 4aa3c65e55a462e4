package pveconf

import (
	"testing"

	"github.com/vmplane/vmplane/hypervisor"
)

func TestState(t *testing.T) {
	f := func(status, qmp, lock string, want hypervisor.State) {
		t.Helper()
		if got := State(status, qmp, lock); got != want {
			t.Errorf("State(%q, %q, %q): got %s; want %s", status, qmp, lock, got, want)
		}
	}
	f("running", "running", "", hypervisor.StateRunning)
	f("running", "", "", hypervisor.StateRunning)
	f("running", "paused", "", hypervisor.StateSuspended)
	f("paused", "", "", hypervisor.StateSuspended)
	f("stopped", "stopped", "", hypervisor.StateStopped)
	f("stopped", "", "suspended", hypervisor.StateSuspended)
	f("unknown", "", "", hypervisor.StateStopped)
}

func TestParseUPID(t *testing.T) {
	u := ParseUPID("UPID:pve2:0000ABCD:0001F2A3:6734AB12:qmigrate:100:vmplane@pve!driver:")
	if u != (UPID{Node: "pve2", Type: "qmigrate", ID: "100", User: "vmplane@pve!driver"}) {
		t.Errorf("ParseUPID: got %+v", u)
	}
	if u := ParseUPID("garbage"); u != (UPID{}) {
		t.Errorf("ParseUPID(garbage): got %+v; want zero", u)
	}
}

func TestNullFloat(t *testing.T) {
	f1 := func(in string, want *float64) {
		t.Helper()
		var n NullFloat
		if err := n.UnmarshalJSON([]byte(in)); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := n.Ptr()
		switch {
		case want == nil && got != nil:
			t.Errorf("%s: got %v; want nil", in, *got)
		case want != nil && (got == nil || *got != *want):
			t.Errorf("%s: got %v; want %v", in, got, *want)
		}
	}
	f1(`0.25`, new(0.25))
	f1(`"12.5"`, new(12.5))
	f1(`0`, new(0.0))
	f1(`null`, nil)
	f1(`""`, nil)
	f1(`"NaN?"`, nil)
}

// TestUsagePVE8Layout: before PVE 9 Proxmox keeps 70 points per timeframe above the
// hour (day: 30 minutes apart); the resolution comes from the data, not from PVE 9's
// table.
