package sim

import (
	"context"
	"testing"
	"time"

	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
)

// t0 is a Wednesday morning, so working-hour and weekend effects are easy to reason about.
var t0 = time.Date(2025, 3, 12, 10, 30, 15, 0, time.UTC)

// newTest returns a fast driver on a pinned clock.
func newTest(t *testing.T, cfg Config) (*Driver, *hypervisortest.Clock) {
	t.Helper()
	clk := hypervisortest.NewClock(t0)
	if cfg.OpDelay == 0 {
		cfg.OpDelay = time.Millisecond
	}
	if cfg.Now == nil {
		cfg.Now = clk.Now
	}
	return New(cfg), clk
}

// create makes a machine from the first default template or fails the test.
func create(t *testing.T, d *Driver, spec hypervisor.CreateSpec) hypervisor.Machine {
	t.Helper()
	if spec.TemplateID == "" {
		spec.TemplateID = "tpl-debian-12"
	}
	if spec.CPUCores == 0 {
		spec.CPUCores = 2
	}
	if spec.MemoryMB == 0 {
		spec.MemoryMB = 2048
	}
	m, err := d.Create(context.Background(), spec)
	if err != nil {
		t.Fatalf("Create(%+v): %v", spec, err)
	}
	return m
}

// machine reads a machine or fails the test.
func machineOf(t *testing.T, d *Driver, vmid int) hypervisor.Machine {
	t.Helper()
	m, err := d.Machine(context.Background(), hypervisor.Ref{VMID: vmid})
	if err != nil {
		t.Fatalf("Machine(%d): %v", vmid, err)
	}
	return m
}

// wantErr is hypervisortest.WantErr.
var wantErr = hypervisortest.WantErr

// bg is the context of calls that are not about cancellation.
var bg = context.Background()
