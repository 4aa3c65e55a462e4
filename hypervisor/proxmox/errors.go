package proxmox

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/hypervisor"
	"github.com/vmplane/vmplane/hypervisor/proxmox/pvehttp"
)

// secretsKey carries per-call secrets (a cloud-init password) that errors and logs of
// that call must not show.
type secretsKey struct{}

// withSecrets returns a context whose calls scrub the given values from errors and logs.
func withSecrets(ctx context.Context, secrets ...string) context.Context {
	var keep []string
	if prev, ok := ctx.Value(secretsKey{}).([]string); ok {
		keep = append(keep, prev...)
	}
	for _, s := range secrets {
		if s != "" {
			keep = append(keep, s)
		}
	}
	return context.WithValue(ctx, secretsKey{}, keep)
}

// scrub replaces every known secret in s. Proxmox does not echo secrets in its
// messages today; this makes sure a future one, or a proxy in between, cannot leak
// them through vmplane's errors or logs.
func (d *Driver) scrub(ctx context.Context, s string) string {
	all := d.secrets
	if extra, ok := ctx.Value(secretsKey{}).([]string); ok {
		all = append(append([]string(nil), all...), extra...)
	}
	for _, sec := range all {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// Patterns of Proxmox messages that name a condition the driver has a sentinel for.
// Proxmox answers most refusals with a 500 and a message, so there is no other way to
// tell them apart; the matching lives here and nowhere else.
var (
	// "Configuration file 'nodes/pve1/qemu-server/100.conf' does not exist", and the
	// "VM 100 does not exist"/"no such VM" variants of older versions.
	notFoundMessage = regexp.MustCompile(`(?i)(qemu-server/\d+\.conf' does not exist|\bVM \d+ does not exist|no such VM)`)
	// "VM 100 is locked (clone)", "VM is locked (backup)".
	lockedMessage = regexp.MustCompile(`(?i)\bis locked\b(?: \(([a-z-]+)\))?`)
	// "storage 'fastnvme' is not available on node 'pve2'".
	unavailableHereMessage = regexp.MustCompile(`(?i)is not available on node`)
	// "VM 100 not running", "VM 100 already running", "VM 100 is running - destroy failed".
	wrongStateMessage = regexp.MustCompile(`(?i)\bVM \d+ (not running|already running|is not paused|is running)`)
	// qemu-server's snapshot tasks: "snapshot name 'x' already used", "snapshot 'x'
	// does not exist".
	snapshotUsedMessage    = regexp.MustCompile(`snapshot name '[^']*' already used`)
	snapshotMissingMessage = regexp.MustCompile(`snapshot '[^']*' does not exist`)
	// download-url's task: "checksum mismatch: got '...' != expect '...'"; a volume
	// missing: "volume 'local:iso/x.iso' does not exist".
	checksumMessage      = regexp.MustCompile(`checksum mismatch`)
	volumeMissingMessage = regexp.MustCompile(`volume '[^']*' does not exist`)
)

// snapshotTaskError maps the failure of a snapshot task whose cause the driver checked
// before and someone else brought about meanwhile (another client took the name,
// deleted the snapshot, locked the machine) to its sentinel; other errors pass.
func snapshotTaskError(err error, vmid int, name string) error {
	if !errors.Is(err, hypervisor.ErrTaskFailed) {
		return err
	}
	msg := err.Error()
	switch {
	case snapshotUsedMessage.MatchString(msg):
		return hypervisor.NewError(hypervisor.ErrSnapshotExists, "machine %d has a snapshot %q already", vmid, name)
	case snapshotMissingMessage.MatchString(msg):
		return hypervisor.NewError(hypervisor.ErrSnapshotNotFound, "machine %d has no snapshot %q", vmid, name)
	case lockedMessage.MatchString(msg):
		return hypervisor.NewError(hypervisor.ErrLocked, "%s", msg)
	}
	return err
}

// apiError turns the error of a Proxmox call into a driver error: the caller's own
// cancellation into ContextError, refusals into their sentinels, and everything that
// means "Proxmox cannot serve us" (unreachable, timeouts, 5xx, and 401/403, which are
// our token's fault and must never reach a tenant as 403) into ErrUnavailable.
func (d *Driver) apiError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var he *hypervisor.Error
	var ae *apierr.Error
	if errors.As(err, &he) || errors.As(err, &ae) {
		return err
	}
	// The caller's own deadline or cancellation wins over what it interrupted.
	if ctxErr := ctx.Err(); ctxErr != nil {
		return hypervisor.ContextError(ctxErr)
	}
	var se *pvehttp.StatusError
	if errors.As(err, &se) {
		return d.statusErr(se)
	}
	var te *pvehttp.TimeoutError
	if errors.As(err, &te) {
		return hypervisor.NewError(hypervisor.ErrUnavailable, "Proxmox did not answer %s %s within %s", te.Method, te.Path, te.After)
	}
	var ne *pvehttp.NetError
	if errors.As(err, &ne) {
		hint := ""
		if pvehttp.TLSFailure(err) {
			hint = " (TLS: set CAFile to the cluster's CA, or Fingerprint to the node certificate's SHA-256 fingerprint)"
		}
		return hypervisor.NewError(hypervisor.ErrUnavailable, "Proxmox at %s is unreachable (%s %s): %s%s",
			d.base.Host, ne.Method, ne.Path, d.scrub(ctx, ne.Err.Error()), hint)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return hypervisor.ContextError(err)
	}
	// Anything else is an answer we could not read (go-proxmox decoding it).
	return hypervisor.NewError(hypervisor.ErrUnavailable, "unexpected answer from Proxmox: %s", d.scrub(ctx, err.Error()))
}

// statusErr maps one non-2xx answer. Its message was scrubbed by the transport.
func (d *Driver) statusErr(se *pvehttp.StatusError) error {
	msg := se.Message
	switch {
	case se.Code == 401:
		return hypervisor.NewError(hypervisor.ErrUnavailable,
			"Proxmox refused the API token %s (401 %s on %s %s): check the token id and secret and that the token has not expired",
			d.cfg.TokenID, msg, se.Method, se.Path)
	case se.Code == 403:
		return hypervisor.NewError(hypervisor.ErrUnavailable,
			"the Proxmox API token %s lacks a privilege for %s %s: %s; grant it to the token's user and, with privilege separation, to the token too",
			d.cfg.TokenID, se.Method, se.Path, msg)
	case se.Code == 595:
		// pveproxy could not reach the node the call is for: that node is down even
		// if /cluster/resources does not say so yet.
		return &unreachableError{hypervisor.NewError(hypervisor.ErrUnavailable,
			"Proxmox could not reach the node of %s %s (595 %s)", se.Method, se.Path, msg)}
	case modifiedMessage(msg):
		// The digest we sent is stale: someone changed the config since we read it.
		// Read-modify-writes start over on it (updateConfig, convergeRules).
		return hypervisor.NewError(errModified, "the machine's configuration changed on Proxmox meanwhile (%s)", msg)
	case lockedMessage.MatchString(msg):
		return hypervisor.NewError(hypervisor.ErrLocked, "Proxmox: %s", msg)
	case se.Code == 404 || notFoundMessage.MatchString(msg):
		return hypervisor.NewError(hypervisor.ErrMachineNotFound, "Proxmox: %s", msg)
	case wrongStateMessage.MatchString(msg):
		return hypervisor.NewError(hypervisor.ErrWrongState, "Proxmox: %s", msg)
	case unavailableHereMessage.MatchString(msg):
		// The caller picked a node that lacks what the machine needs.
		return apierr.New(apierr.ErrInvalidRequest, "Proxmox: %s", msg)
	case se.Code == 400:
		detail := fmt.Sprintf("Proxmox rejected %s %s: %s", se.Method, se.Path, msg)
		if len(se.Params) > 0 {
			keys := make([]string, 0, len(se.Params))
			for k := range se.Params {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var parts []string
			for _, k := range keys {
				parts = append(parts, k+": "+se.Params[k])
			}
			detail += " (" + strings.Join(parts, "; ") + ")"
		}
		return apierr.New(apierr.ErrInvalidRequest, "%s", detail)
	}
	return hypervisor.NewError(hypervisor.ErrUnavailable, "Proxmox answered %d to %s %s: %s", se.Code, se.Method, se.Path, msg)
}

// errModified is Proxmox's "detected modified configuration - file changed by other
// user? Try again." (PVE::Tools::assert_if_modified): the digest a write carried no
// longer matches. Synchronous calls answer it as a 500, asynchronous ones (POST
// config, resize) as their task's exit status. It is 409 conflict once the driver
// gives up starting over.
var errModified = &hypervisor.Error{Kind: apierr.ErrConflict, Reason: "modified_concurrently"}

// unreachableError is Proxmox's 595: the API answered, but the node that owns the
// call did not. It is ErrUnavailable to callers; Inventory tells it apart to leave
// that node out instead of failing.
type unreachableError struct{ err *hypervisor.Error }

func (e *unreachableError) Error() string { return e.err.Error() }
func (e *unreachableError) Unwrap() error { return e.err }

// modifiedText is Proxmox's message for a stale digest.
const modifiedText = "detected modified configuration - file changed by other user? Try again."

// modifiedMessage reports whether a Proxmox message is the digest mismatch.
func modifiedMessage(msg string) bool {
	return strings.Contains(msg, "detected modified configuration") || strings.Contains(msg, "checksum missmatch")
}

// statusOf returns the Proxmox answer behind err, if there is one.
func statusOf(err error) (*pvehttp.StatusError, bool) {
	var se *pvehttp.StatusError
	ok := errors.As(err, &se)
	return se, ok
}

// invalid is a 400 naming one input field, as the sim answers bad input.
func invalid(field, format string, args ...any) error {
	return apierr.Invalid(apierr.Field(field, format, args...))
}

// machineNotFound is the sentinel for a vmid Proxmox does not have (or that is a template).
func machineNotFound(vmid int) error {
	return hypervisor.NewError(hypervisor.ErrMachineNotFound, "machine %d not found", vmid)
}
