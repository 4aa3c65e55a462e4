package hypervisor

import (
	"context"
	"errors"
	"fmt"

	"github.com/vmplane/vmplane/apierr"
)

// Error is a driver error. It carries two identities at once, because callers need both:
//
//   - Kind is the apierr kind that decides the HTTP status and code. Unwrap returns it,
//     so errors.Is(err, apierr.ErrInvalidState) and apierr.From(err) work unchanged.
//   - Reason names what went wrong in driver terms ("node_offline"). Is compares
//     reasons, so errors.Is(err, hypervisor.ErrNodeOffline) tells an offline node apart
//     from a forbidden power action although both are 409 invalid_state.
//
// Compare with errors.Is against the sentinels below; build values with NewError. The
// fields are exported data so an Error can travel inside actor messages as JSON.
type Error struct {
	// Kind is the API error this maps to. NewError gives it the detail too, so
	// apierr.From(err) yields a problem body with a useful detail.
	Kind *apierr.Error `json:"kind"`
	// Reason is the stable driver-level code the sentinels are compared by.
	Reason string `json:"reason"`
	// Detail is the human-readable message ("node pve2 is offline").
	Detail string `json:"detail,omitempty"`
}

// Error returns "reason: detail", or the reason alone for a bare sentinel.
func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Reason
	}
	return e.Reason + ": " + e.Detail
}

// Unwrap exposes the apierr kind, so the HTTP edge maps driver errors without knowing them.
func (e *Error) Unwrap() error { return e.Kind }

// Is reports whether target is a driver Error with the same reason. The kind is not
// compared: a missing node is a 404 when it is looked up and a 400 when a request body
// names it, and both are ErrNodeNotFound.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason
}

// WithKind returns a copy of e that maps to another apierr kind but keeps its reason and
// detail. Drivers use it where context changes the status: an unknown node named as a
// migration target is the caller's bad input (400), not a missing resource (404).
func (e *Error) WithKind(kind *apierr.Error) *Error {
	return &Error{Kind: apierr.New(kind, "%s", e.Detail), Reason: e.Reason, Detail: e.Detail}
}

// NewError returns an error of the sentinel's reason and kind with a formatted detail.
func NewError(sentinel *Error, format string, args ...any) *Error {
	detail := fmt.Sprintf(format, args...)
	return &Error{Kind: apierr.New(sentinel.Kind, "%s", detail), Reason: sentinel.Reason, Detail: detail}
}

// Driver error sentinels. The kind in parentheses is what the HTTP edge answers.
var (
	// ErrMachineNotFound: no machine with that vmid on the hypervisor (404).
	ErrMachineNotFound = &Error{Kind: apierr.ErrNotFound, Reason: "machine_not_found"}
	// ErrNodeNotFound: no node of that name (404; 400 via WithKind where a body names it).
	ErrNodeNotFound = &Error{Kind: apierr.ErrNotFound, Reason: "node_not_found"}
	// ErrNodeOffline: the node is down, so nothing on it or towards it can run (409).
	ErrNodeOffline = &Error{Kind: apierr.ErrInvalidState, Reason: "node_offline"}
	// ErrTemplateNotFound: the template named in a create or reinstall does not exist.
	// It is 400 because the template id is the caller's input, not the addressed resource.
	ErrTemplateNotFound = &Error{Kind: apierr.ErrInvalidRequest, Reason: "template_not_found"}
	// ErrBackupNotFound: the machine has no backup of that id (404).
	ErrBackupNotFound = &Error{Kind: apierr.ErrNotFound, Reason: "backup_not_found"}
	// ErrSnapshotNotFound: the machine has no snapshot of that name (404).
	ErrSnapshotNotFound = &Error{Kind: apierr.ErrNotFound, Reason: "snapshot_not_found"}
	// ErrSnapshotExists: the machine has a snapshot of that name already (409).
	ErrSnapshotExists = &Error{Kind: apierr.ErrConflict, Reason: "snapshot_exists"}
	// ErrMemoryNotRunning: a snapshot with memory of a machine that is not running:
	// there is no memory to save (400). Proxmox would quietly take the disks alone.
	ErrMemoryNotRunning = &Error{Kind: apierr.ErrInvalidRequest, Reason: "memory_snapshot_not_running"}
	// ErrInterfaceNotFound: a network change names an interface the machine lacks (400).
	ErrInterfaceNotFound = &Error{Kind: apierr.ErrInvalidRequest, Reason: "interface_not_found"}
	// ErrDiskNotFound: a disk change names a disk the machine lacks (400).
	ErrDiskNotFound = &Error{Kind: apierr.ErrInvalidRequest, Reason: "disk_not_found"}
	// ErrInvalidRule: a firewall rule is not one pve-firewall would take (400); the
	// apierr kind names the faulty fields (FirewallRule.Validate).
	ErrInvalidRule = &Error{Kind: apierr.ErrInvalidRequest, Reason: "invalid_firewall_rule"}
	// ErrDiskShrink: disks only grow; Proxmox cannot shrink a volume (400).
	ErrDiskShrink = &Error{Kind: apierr.ErrInvalidRequest, Reason: "disk_shrink"}
	// ErrSameNode: a migration to the node the machine is already on (400).
	ErrSameNode = &Error{Kind: apierr.ErrInvalidRequest, Reason: "same_node"}
	// ErrWrongState: the machine's power state forbids the action (409), e.g. start
	// on a running machine or a console on a stopped one.
	ErrWrongState = &Error{Kind: apierr.ErrInvalidState, Reason: "wrong_state"}
	// ErrLocked: another operation holds the machine's lock on the hypervisor (409).
	// Proxmox answers "VM is locked"; actors normally prevent this by serialising.
	ErrLocked = &Error{Kind: apierr.ErrConflict, Reason: "locked"}
	// ErrVMIDInUse: a create asked for a vmid that already exists (409).
	ErrVMIDInUse = &Error{Kind: apierr.ErrConflict, Reason: "vmid_in_use"}
	// ErrUnavailable: the hypervisor does not answer (503).
	ErrUnavailable = &Error{Kind: apierr.ErrUnavailable, Reason: "hypervisor_unavailable"}
	// ErrTaskFailed: the hypervisor accepted the operation but its task ended in an
	// error (a Proxmox UPID with an exitstatus other than OK). It maps to 500 because
	// nothing the caller sent was wrong; the detail carries the hypervisor's message.
	ErrTaskFailed = &Error{Kind: apierr.ErrInternal, Reason: "task_failed"}
)

// ContextError turns a context error into a driver error that still satisfies
// errors.Is(err, context.Canceled / context.DeadlineExceeded), and also carries an apierr
// kind (504 timeout for a deadline, 503 unavailable for a cancellation, as apierr.From
// would choose), so that every error a driver returns maps to a status. Other errors are
// returned unchanged.
func ContextError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrTimeout, "the hypervisor call did not finish in time"), err)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%w: %w", apierr.New(apierr.ErrUnavailable, "the hypervisor call was cancelled"), err)
	}
	return err
}
