package proxmox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvefake"
)

// bg is the context of calls that are not about cancellation.
var bg = context.Background()

// newTest starts a fake Proxmox and a driver that trusts its certificate through
// CAFile, polls tasks every 2 ms and backs off retries by a few milliseconds. mods
// adjust the driver config before New.
func newTest(t *testing.T, fc pvefake.Config, mods ...func(*Config)) (*Driver, *pvefake.Server) {
	t.Helper()
	f := pvefake.New(fc)
	t.Cleanup(f.Close)
	return newDriver(t, f, mods...), f
}

// newDriver is newTest's driver for a fake already running: another client of the same
// Proxmox (another member of a vmplane cluster).
func newDriver(t *testing.T, f *pvefake.Server, mods ...func(*Config)) *Driver {
	t.Helper()
	user, pass := f.ConsoleUser()
	cfg := Config{
		URL:              f.URL(),
		TokenID:          f.TokenID(),
		TokenSecret:      f.TokenSecret(),
		CAFile:           writeCA(t, f),
		RequestTimeout:   10 * time.Second, // generous: a loaded test machine is slow; the timeout tests set their own
		TaskPollInterval: 2 * time.Millisecond,
		ConsoleUser:      user,
		ConsolePassword:  pass,
	}
	for _, m := range mods {
		m(&cfg)
	}
	d, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	d.tr.Backoff, d.tr.MaxBackoff = 2*time.Millisecond, 10*time.Millisecond
	t.Cleanup(func() { d.Close() })
	return d
}

// writeCA writes the fake's certificate to a PEM file for Config.CAFile.
func writeCA(t *testing.T, f *pvefake.Server) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pve-root-ca.pem")
	if err := os.WriteFile(p, f.CertPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// create makes a machine from the debian template or fails the test.
func create(t *testing.T, d *Driver, spec hypervisor.CreateSpec) hypervisor.Machine {
	t.Helper()
	if spec.TemplateID == "" {
		spec.TemplateID = "tpl-9000"
	}
	if spec.CPUCores == 0 {
		spec.CPUCores = 2
	}
	if spec.MemoryMB == 0 {
		spec.MemoryMB = 2048
	}
	m, err := d.Create(bg, spec)
	if err != nil {
		t.Fatalf("Create(%+v): %v", spec, err)
	}
	return m
}

// addVM adds a VM to the fake behind the driver's back or fails the test.
func addVM(t *testing.T, f *pvefake.Server, spec pvefake.VMSpec) int {
	t.Helper()
	id, err := f.AddVM(spec)
	if err != nil {
		t.Fatalf("AddVM(%+v): %v", spec, err)
	}
	return id
}

// machineOf reads a machine or fails the test.
func machineOf(t *testing.T, d *Driver, vmid int) hypervisor.Machine {
	t.Helper()
	m, err := d.Machine(bg, hypervisor.Ref{VMID: vmid})
	if err != nil {
		t.Fatalf("Machine(%d): %v", vmid, err)
	}
	return m
}

// fakeStatus reads a VM's power status at the fake.
func fakeStatus(t *testing.T, f *pvefake.Server, vmid int) string {
	t.Helper()
	_, status, _, ok := f.VM(vmid)
	if !ok {
		t.Fatalf("fake has no vm %d", vmid)
	}
	return status
}

// fakeConfig reads a VM's raw config at the fake.
func fakeConfig(t *testing.T, f *pvefake.Server, vmid int) map[string]string {
	t.Helper()
	_, _, cfg, ok := f.VM(vmid)
	if !ok {
		t.Fatalf("fake has no vm %d", vmid)
	}
	return cfg
}

// wantErr is hypervisortest.WantErr.
var wantErr = hypervisortest.WantErr

// wantContains checks that an error's text contains every fragment.
func wantContains(t *testing.T, what string, err error, frags ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: got no error; want one containing %q", what, frags)
		return
	}
	for _, f := range frags {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%s: got %q; want it to contain %q", what, err, f)
		}
	}
}
