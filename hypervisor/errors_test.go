package hypervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/vmplane/vmplane/apierr"
)

func TestErrorIsReasonAndKind(t *testing.T) {
	f := func(err error, sentinel *Error, kind *apierr.Error, status int) {
		t.Helper()
		if !errors.Is(err, sentinel) {
			t.Errorf("errors.Is(%v, %s) = false; want true", err, sentinel.Reason)
		}
		if !errors.Is(err, kind) {
			t.Errorf("errors.Is(%v, apierr %s) = false; want true", err, kind.Code)
		}
		got := apierr.From(err)
		if got.Status != status || got.Code != kind.Code {
			t.Errorf("apierr.From(%v) = %d %s; want %d %s", err, got.Status, got.Code, status, kind.Code)
		}
		if got.Detail == "" {
			t.Errorf("apierr.From(%v).Detail is empty; want the driver's detail", err)
		}
	}
	f(NewError(ErrNodeOffline, "node %s is offline", "pve2"), ErrNodeOffline, apierr.ErrInvalidState, 409)
	f(NewError(ErrWrongState, "cannot start"), ErrWrongState, apierr.ErrInvalidState, 409)
	f(NewError(ErrMachineNotFound, "machine 100 not found"), ErrMachineNotFound, apierr.ErrNotFound, 404)
	f(NewError(ErrLocked, "locked"), ErrLocked, apierr.ErrConflict, 409)
	f(NewError(ErrUnavailable, "down"), ErrUnavailable, apierr.ErrUnavailable, 503)
	f(NewError(ErrDiskShrink, "no"), ErrDiskShrink, apierr.ErrInvalidRequest, 400)
	// Wrapped by a caller, both identities survive.
	f(fmt.Errorf("migrate vm 7: %w", NewError(ErrNodeOffline, "x")), ErrNodeOffline, apierr.ErrInvalidState, 409)
	// WithKind changes the status, not the reason.
	f(NewError(ErrNodeNotFound, "node %q does not exist", "pve9").WithKind(apierr.ErrInvalidRequest), ErrNodeNotFound, apierr.ErrInvalidRequest, 400)
}

func TestErrorReasonsAreDistinct(t *testing.T) {
	err := NewError(ErrNodeOffline, "node pve2 is offline")
	if errors.Is(err, ErrWrongState) {
		t.Errorf("errors.Is(node offline, ErrWrongState) = true; want false (same kind, other reason)")
	}
	if errors.Is(apierr.New(apierr.ErrInvalidState, "plain"), ErrNodeOffline) {
		t.Errorf("errors.Is(plain invalid_state, ErrNodeOffline) = true; want false")
	}
	if got, want := err.Error(), "node_offline: node pve2 is offline"; got != want {
		t.Errorf("Error() = %q; want %q", got, want)
	}
	if got, want := ErrNodeOffline.Error(), "node_offline"; got != want {
		t.Errorf("sentinel Error() = %q; want %q", got, want)
	}
}

func TestErrorJSONRoundTrip(t *testing.T) {
	in := NewError(ErrLocked, "machine 100 is locked")
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	var out Error
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if !errors.Is(&out, ErrLocked) || !errors.Is(&out, apierr.ErrConflict) {
		t.Errorf("decoded %s lost its identity; want locked and conflict", b)
	}
}

func TestContextError(t *testing.T) {
	f := func(in error, kind *apierr.Error) {
		t.Helper()
		err := ContextError(in)
		if !errors.Is(err, in) {
			t.Errorf("errors.Is(ContextError(%v), %v) = false; want true", in, in)
		}
		if !errors.Is(err, kind) {
			t.Errorf("ContextError(%v) kind: got %v; want %s", in, apierr.From(err).Code, kind.Code)
		}
	}
	f(context.Canceled, apierr.ErrUnavailable)
	f(context.DeadlineExceeded, apierr.ErrTimeout)
	if got := ContextError(nil); got != nil {
		t.Errorf("ContextError(nil) = %v; want nil", got)
	}
}
