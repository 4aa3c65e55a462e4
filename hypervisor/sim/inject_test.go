package sim

import (
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
)

func TestFailNextIsOneShot(t *testing.T) {
	d, _ := newTest(t, Config{})
	m, _ := d.AddMachine(hypervisor.Machine{State: hypervisor.StateStopped}, time.Time{})
	ref := hypervisor.Ref{VMID: m.VMID}

	d.FailNext(m.VMID, "start", nil)
	wantErr(t, "stop (other op)", d.Power(bg, ref, hypervisor.ActionStop), hypervisor.ErrWrongState)
	wantErr(t, "injected start", d.Power(bg, ref, hypervisor.ActionStart), hypervisor.ErrTaskFailed, apierr.ErrInternal)
	if got := machineOf(t, d, m.VMID).State; got != hypervisor.StateStopped {
		t.Errorf("after a failed start: got %s; want stopped", got)
	}
	wantErr(t, "start after the one shot", d.Power(bg, ref, hypervisor.ActionStart))

	// A caller's own apierr kind comes back as it is; a plain error is wrapped so it maps
	// to a status and still matches.
	custom := apierr.New(apierr.ErrConflict, "clone lock")
	d.InjectFailure(m.VMID, "", custom)
	wantErr(t, "custom apierr", d.Power(bg, ref, hypervisor.ActionReboot), custom, apierr.ErrConflict)
	plain := errors.New("disk on fire")
	d.FailNext(m.VMID, OpMigrate, plain)
	_, err := d.Migrate(bg, ref, "pve2", true)
	wantErr(t, "plain error", err, plain, hypervisor.ErrTaskFailed)
	if got := machineOf(t, d, m.VMID).Node; got != m.Node {
		t.Errorf("after a failed migrate: got node %s; want %s", got, m.Node)
	}
}

func TestFailAlwaysUntilCleared(t *testing.T) {
	d, _ := newTest(t, Config{})
	d.FailAlways(0, OpCreate, nil) // vmid 0: whatever vmid the create picks
	for i := range 2 {
		_, err := d.Create(bg, hypervisor.CreateSpec{TemplateID: "tpl-debian-12"})
		wantErr(t, "create under FailAlways", err, hypervisor.ErrTaskFailed)
		if i == 1 {
			inv, _ := d.Inventory(bg)
			if len(inv.Machines) != 0 {
				t.Errorf("failed creates left %d machines; want 0", len(inv.Machines))
			}
		}
	}
	d.ClearFailures()
	if m := create(t, d, hypervisor.CreateSpec{}); m.VMID != 100 {
		t.Errorf("create after ClearFailures: got vmid %d; want 100 (failed creates free their vmid)", m.VMID)
	}
	d.FailNext(0, OpBackup, nil)
	_, err := d.Backup(bg, hypervisor.Ref{VMID: 100}, "")
	wantErr(t, "injected backup", err, hypervisor.ErrTaskFailed)
}

func TestFailureRate(t *testing.T) {
	failures := func(seed int64, rate float64) []bool {
		d, _ := newTest(t, Config{Seed: seed})
		m, _ := d.AddMachine(hypervisor.Machine{State: hypervisor.StateRunning}, time.Time{})
		d.SetFailureRate(rate)
		var out []bool
		for range 60 {
			err := d.Power(bg, hypervisor.Ref{VMID: m.VMID}, hypervisor.ActionReboot)
			if err != nil && !errors.Is(err, hypervisor.ErrTaskFailed) {
				t.Fatalf("reboot: got %v; want nil or ErrTaskFailed", err)
			}
			out = append(out, err != nil)
		}
		return out
	}
	count := func(bs []bool) (n int) {
		for _, b := range bs {
			if b {
				n++
			}
		}
		return n
	}
	if n := count(failures(1, 0)); n != 0 {
		t.Errorf("rate 0: got %d failures; want 0", n)
	}
	if n := count(failures(1, 1)); n != 60 {
		t.Errorf("rate 1: got %d failures; want 60", n)
	}
	a, b := failures(5, 0.5), failures(5, 0.5)
	if n := count(a); n < 15 || n > 45 {
		t.Errorf("rate 0.5: got %d of 60 failures; want about 30", n)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("rate 0.5, same seed: op %d failed %v then %v; want the same sequence", i, a[i], b[i])
			break
		}
	}
}

func TestNodeOffline(t *testing.T) {
	d, _ := newTest(t, Config{})
	m, _ := d.AddMachine(hypervisor.Machine{Node: "pve2", State: hypervisor.StateRunning}, time.Time{})
	ref := hypervisor.Ref{VMID: m.VMID}
	if err := d.SetNodeStatus("pve2", hypervisor.NodeOffline); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "power on offline node", d.Power(bg, ref, hypervisor.ActionStop), hypervisor.ErrNodeOffline, apierr.ErrInvalidState)
	_, err := d.Configure(bg, ref, hypervisor.ConfigChange{CPUCores: new(2)})
	wantErr(t, "configure on offline node", err, hypervisor.ErrNodeOffline)
	_, err = d.Console(bg, ref)
	wantErr(t, "console on offline node", err, hypervisor.ErrNodeOffline)
	// Reads still answer with the last known state.
	if got := machineOf(t, d, m.VMID).State; got != hypervisor.StateRunning {
		t.Errorf("machine on offline node: got %s; want running (last known)", got)
	}
	if err := d.SetNodeStatus("pve2", hypervisor.NodeOnline); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "power after node is back", d.Power(bg, ref, hypervisor.ActionStop))
	wantErr(t, "unknown node", d.SetNodeStatus("pve7", hypervisor.NodeOffline), hypervisor.ErrNodeNotFound)
	wantErr(t, "bad status", d.SetNodeStatus("pve1", "melting"), apierr.ErrInvalidRequest)
}

func TestUnavailable(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true})
	ref := hypervisor.Ref{VMID: m.VMID}
	d.SetAvailable(false)
	calls := map[string]func() error{
		"Ping":      func() error { return d.Ping(bg) },
		"Inventory": func() error { _, err := d.Inventory(bg); return err },
		"Machine":   func() error { _, err := d.Machine(bg, ref); return err },
		"Create":    func() error { _, err := d.Create(bg, hypervisor.CreateSpec{TemplateID: "tpl-debian-12"}); return err },
		"Destroy":   func() error { return d.Destroy(bg, ref) },
		"Power":     func() error { return d.Power(bg, ref, hypervisor.ActionStop) },
		"Migrate":   func() error { _, err := d.Migrate(bg, ref, "pve2", true); return err },
		"Console":   func() error { _, err := d.Console(bg, ref); return err },
		"Usage": func() error {
			_, err := d.Usage(bg, hypervisor.UsageQuery{Ref: ref, Timeframe: hypervisor.TimeframeHour})
			return err
		},
		"SetFirewall":   func() error { return d.SetFirewall(bg, ref, nil) },
		"Backup":        func() error { _, err := d.Backup(bg, ref, ""); return err },
		"Backups":       func() error { _, err := d.Backups(bg, ref); return err },
		"DeleteBackup":  func() error { return d.DeleteBackup(bg, ref, "x") },
		"RestoreBackup": func() error { _, err := d.RestoreBackup(bg, ref, "x"); return err },
	}
	for name, call := range calls {
		wantErr(t, name+" while unavailable", call(), hypervisor.ErrUnavailable, apierr.ErrUnavailable)
	}
	if got := apierr.From(d.Ping(bg)).Status; got != 503 {
		t.Errorf("Ping status while unavailable: got %d; want 503", got)
	}
	d.SetAvailable(true)
	wantErr(t, "Ping when back", d.Ping(bg))
	if got := machineOf(t, d, m.VMID).State; got != hypervisor.StateRunning {
		t.Errorf("after the outage: got %s; want running (nothing happened)", got)
	}
}

func TestUnavailableMidOperation(t *testing.T) {
	d, _ := newTest(t, Config{OpDelay: 200 * time.Millisecond})
	m, _ := d.AddMachine(hypervisor.Machine{State: hypervisor.StateStopped}, time.Time{})
	errc := make(chan error, 1)
	go func() { errc <- d.Power(bg, hypervisor.Ref{VMID: m.VMID}, hypervisor.ActionStart) }()
	waitLocked(t, d, m.VMID)
	d.SetAvailable(false)
	wantErr(t, "start interrupted by an outage", <-errc, hypervisor.ErrUnavailable)
	d.SetAvailable(true)
	if got := machineOf(t, d, m.VMID).State; got != hypervisor.StateStopped {
		t.Errorf("after an interrupted start: got %s; want stopped", got)
	}
}

func TestBehindOurBack(t *testing.T) {
	d, _ := newTest(t, Config{})
	m := create(t, d, hypervisor.CreateSpec{Start: true})

	wantErr(t, "crash", d.CrashMachine(m.VMID))
	if got := machineOf(t, d, m.VMID).State; got != hypervisor.StateStopped {
		t.Errorf("after a crash: got %s; want stopped", got)
	}
	wantErr(t, "crash a stopped machine", d.CrashMachine(m.VMID), hypervisor.ErrWrongState)
	wantErr(t, "crash an unknown machine", d.CrashMachine(999), hypervisor.ErrMachineNotFound)

	added, err := d.AddMachine(hypervisor.Machine{VMID: 300, Name: "rogue", Node: "pve3", State: hypervisor.StateRunning}, time.Time{})
	wantErr(t, "add", err)
	if added.VMID != 300 || added.Node != "pve3" || added.CPUCores != 1 || len(added.Disks) != 1 || len(added.Interfaces) != 1 {
		t.Errorf("added machine: got %+v; want vmid 300 on pve3 with default resources", added)
	}
	_, err = d.AddMachine(hypervisor.Machine{VMID: 300}, time.Time{})
	wantErr(t, "add a duplicate", err, hypervisor.ErrVMIDInUse)
	_, err = d.AddMachine(hypervisor.Machine{Node: "pve8"}, time.Time{})
	wantErr(t, "add on an unknown node", err, hypervisor.ErrNodeNotFound)

	wantErr(t, "remove", d.RemoveMachine(m.VMID))
	wantErr(t, "remove again", d.RemoveMachine(m.VMID), hypervisor.ErrMachineNotFound)
	inv, _ := d.Inventory(bg)
	if len(inv.Machines) != 1 || inv.Machines[0].VMID != 300 {
		t.Errorf("inventory after remove and add: got %+v; want only vmid 300", inv.Machines)
	}
}

func TestCrashDuringOperation(t *testing.T) {
	// A crash while a reboot is in flight: the reboot finds the machine stopped and
	// fails with the state it found, instead of reviving it.
	d, _ := newTest(t, Config{OpDelay: 200 * time.Millisecond})
	m, _ := d.AddMachine(hypervisor.Machine{State: hypervisor.StateRunning}, time.Time{})
	errc := make(chan error, 1)
	go func() { errc <- d.Power(bg, hypervisor.Ref{VMID: m.VMID}, hypervisor.ActionReboot) }()
	waitLocked(t, d, m.VMID)
	if err := d.CrashMachine(m.VMID); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "reboot of a crashed machine", <-errc, hypervisor.ErrWrongState)
	if got := machineOf(t, d, m.VMID).State; got != hypervisor.StateStopped {
		t.Errorf("after crash during reboot: got %s; want stopped", got)
	}
}

// TestPingDoesNotWaitForTheLock: the health check's ping answers while a long call
// (an Inventory of a million machines) holds the driver's lock, and still reports
// SetAvailable(false).
func TestPingDoesNotWaitForTheLock(t *testing.T) {
	d, _ := newTest(t, Config{})
	d.mu.Lock()
	err := d.Ping(bg)
	d.mu.Unlock()
	if err != nil {
		t.Fatalf("ping while the lock is held: %v", err)
	}
	d.SetAvailable(false)
	d.mu.Lock()
	err = d.Ping(bg)
	d.mu.Unlock()
	wantErr(t, "ping of an unavailable hypervisor", err, hypervisor.ErrUnavailable)
}
