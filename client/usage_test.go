package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/vmplane/vmplane/client"
)

// testUsage: the usage for invoices reads as an operator, as the tenant, and per
// machine; another tenant's machine is not found, and a range not on whole hours is
// refused.
func testUsage(t *testing.T, ctx context.Context, w *world) {
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 1, 0)
	if r, err := w.admin.TenantUsage(ctx, w.tenA.ID, from, to); err != nil || r.Lines == nil || !r.From.Equal(from) {
		t.Fatalf("tenant usage: %+v %v", r, err)
	}
	if _, err := w.admin.MachineInvoiceUsage(ctx, w.m.ID, from, to); err != nil {
		t.Fatalf("machine usage: %v", err)
	}
	if r, err := w.a.MyUsage(ctx, from, to); err != nil || r.Gaps < 0 {
		t.Fatalf("my usage: %+v %v", r, err)
	}
	if _, err := w.a.MyMachineUsage(ctx, w.m.ID, from, to); err != nil {
		t.Fatalf("my machine usage: %v", err)
	}
	if _, err := w.b.MyMachineUsage(ctx, w.m.ID, from, to); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("tenant B reading A's machine: %v; want ErrNotFound", err)
	}
	if _, err := w.a.MyUsage(ctx, from.Add(time.Minute), to); !errors.Is(err, client.ErrInvalidRequest) {
		t.Fatalf("a range off the hour: %v; want ErrInvalidRequest", err)
	}
	// This month's traffic: the machine has no plan, so it is unmetered.
	if tr, err := w.admin.MachineTraffic(ctx, w.m.ID); err != nil || tr.MachineID != w.m.ID || tr.AllowanceBytes != nil || tr.Month == "" {
		t.Fatalf("machine traffic: %+v %v", tr, err)
	}
	if _, err := w.a.MyMachineTraffic(ctx, w.m.ID); err != nil {
		t.Fatalf("my machine traffic: %v", err)
	}
	if _, err := w.b.MyMachineTraffic(ctx, w.m.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("tenant B reading A's machine's traffic: %v; want ErrNotFound", err)
	}
}
