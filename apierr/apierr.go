// Package apierr holds the one error type of vmplane: an error that carries its HTTP
// status and a stable machine-readable code. Every layer returns these (or wraps them
// with %w); the HTTP edge maps them to RFC 9457 problem JSON in one place.
//
// Errors are plain data with exported fields so they can travel inside actor messages,
// which are kept JSON-marshalable for a future clustered deployment.
package apierr

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// Error is an API-visible error. Compare kinds with errors.Is against the sentinels
// below: two *Error values match when their codes are equal.
type Error struct {
	Status int          `json:"status"`
	Code   string       `json:"code"`
	Detail string       `json:"detail,omitempty"`
	Fields []FieldError `json:"errors,omitempty"`
	// Allowed lists valid values where that helps the caller (the methods of a 405,
	// the actions of an unknown :action).
	Allowed []string `json:"allowed,omitempty"`
	// RetryAfterS is sent as Retry-After on 429 and 503 answers, and on the 409 of a
	// request whose Idempotency-Key's first request still runs.
	RetryAfterS int `json:"retry_after_s,omitempty"`
	// Challenge is the challenge of a totp_required answer (a login whose password
	// was right, of a user with a second factor), which a code completes.
	Challenge string `json:"challenge,omitempty"`
}

// FieldError names one invalid input field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return e.Code
	}
	return e.Code + ": " + e.Detail
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, apierr.ErrNotFound) holds for every not-found error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Title is the RFC 9457 title: the standard reason phrase of the status.
func (e *Error) Title() string { return http.StatusText(e.Status) }

// Sentinels, one per code of the API contract.
var (
	ErrInvalidJSON         = &Error{Status: 400, Code: "invalid_json"}
	ErrInvalidRequest      = &Error{Status: 400, Code: "invalid_request"}
	ErrUnauthorized        = &Error{Status: 401, Code: "unauthorized"}
	ErrInvalidCredentials  = &Error{Status: 401, Code: "invalid_credentials"}
	ErrInvalidRefreshToken = &Error{Status: 401, Code: "invalid_refresh_token"}
	ErrTOTPRequired        = &Error{Status: 401, Code: "totp_required"}
	ErrForbidden           = &Error{Status: 403, Code: "forbidden"}
	// ErrTOTPEnrolmentRequired: the login may only enrol the second factor its user
	// must have (a tenant's or the operator's requirement).
	ErrTOTPEnrolmentRequired = &Error{Status: 403, Code: "totp_enrolment_required"}
	ErrNotFound              = &Error{Status: 404, Code: "not_found"}
	ErrMethodNotAllowed      = &Error{Status: 405, Code: "method_not_allowed"}
	ErrConflict              = &Error{Status: 409, Code: "conflict"}
	ErrOperationInProgress   = &Error{Status: 409, Code: "operation_in_progress"}
	ErrInvalidState          = &Error{Status: 409, Code: "invalid_state"}
	ErrQuotaExceeded         = &Error{Status: 409, Code: "quota_exceeded"}
	ErrRequestTimeout        = &Error{Status: 408, Code: "request_timeout"}
	ErrPayloadTooLarge       = &Error{Status: 413, Code: "payload_too_large"}
	ErrUnsupportedMedia      = &Error{Status: 415, Code: "unsupported_media_type"}
	ErrHeaderTooLarge        = &Error{Status: 431, Code: "header_too_large"}
	ErrIdempotencyKeyReused  = &Error{Status: 422, Code: "idempotency_key_reused"}
	// ErrChecksumMismatch: an uploaded file does not match the checksum it was
	// announced with (an ISO image's content).
	ErrChecksumMismatch   = &Error{Status: 422, Code: "checksum_mismatch"}
	ErrRateLimited        = &Error{Status: 429, Code: "rate_limited"}
	ErrTooManyConnections = &Error{Status: 429, Code: "too_many_connections"}
	ErrInternal           = &Error{Status: 500, Code: "internal"}
	ErrUnavailable        = &Error{Status: 503, Code: "unavailable"}
	ErrTimeout            = &Error{Status: 504, Code: "timeout"}
	// ErrInsufficientCapacity: no node has room for the machine asked for.
	ErrInsufficientCapacity = &Error{Status: 409, Code: "insufficient_capacity"}
	// ErrPoolExhausted: no pool usable on the machine's node has a free address.
	ErrPoolExhausted = &Error{Status: 409, Code: "pool_exhausted"}
	// ErrAddressTaken: the address asked for is held by another machine (or cooling
	// down after its release).
	ErrAddressTaken = &Error{Status: 409, Code: "address_taken"}
	// ErrAddressUnusable: the address asked for is in no IP pool usable on the
	// machine's node (or is a pool's network, broadcast or gateway address).
	ErrAddressUnusable = &Error{Status: 422, Code: "address_unusable"}
	// ErrDNSZoneMissing: reverse DNS is pushed to a DNS server that has no reverse
	// zone holding the address, so the name cannot be set there.
	ErrDNSZoneMissing = &Error{Status: 409, Code: "dns_zone_missing"}
	// ErrDNSUnavailable: the DNS server reverse names are pushed to did not take the
	// change (unreachable, or it refused); nothing was stored, and a retry may work.
	ErrDNSUnavailable = &Error{Status: 503, Code: "dns_unavailable"}
)

// ErrTenantSuspended refuses a write (or a console) of a suspended tenant's user, and
// ErrMachineSuspended one on a machine an operator suspended for billing; the detail
// carries the operator's reason.
var (
	ErrTenantSuspended  = &Error{Status: 403, Code: "tenant_suspended"}
	ErrMachineSuspended = &Error{Status: 403, Code: "machine_suspended"}
)

// OpenID Connect sign-in (single sign-on): ErrOIDCStateInvalid refuses a callback whose
// state is unknown, used or expired (a replay, or a sign-in started too long ago);
// ErrOIDCLoginFailed one whose code the provider would not exchange, or whose ID token
// is not for this server (issuer, audience, nonce, expiry) or lacks a verified e-mail;
// ErrOIDCNotMapped an identity vmplane has no account for and may not create one for
// (the provider maps none of its claims to a tenant or to the operators, or creates no
// users), or one the provider places elsewhere than the account is.
var (
	ErrOIDCStateInvalid = &Error{Status: 400, Code: "oidc_state_invalid"}
	ErrOIDCLoginFailed  = &Error{Status: 401, Code: "oidc_login_failed"}
	ErrOIDCNotMapped    = &Error{Status: 403, Code: "oidc_not_mapped"}
)

// ErrInsufficientStorage says the data directory's disk is (nearly) full, so the store
// refuses writes until there is room again.
var ErrInsufficientStorage = &Error{Status: 507, Code: "insufficient_storage"}

// New returns an error of the sentinel's kind with a formatted detail.
func New(kind *Error, format string, args ...any) *Error {
	return &Error{Status: kind.Status, Code: kind.Code, Detail: fmt.Sprintf(format, args...)}
}

// NotFound is the answer for a missing record, and for another tenant's record.
func NotFound(kind, id string) *Error {
	return New(ErrNotFound, "%s %s not found", kind, id)
}

// Invalid is a 400 invalid_request naming the offending fields.
func Invalid(fields ...FieldError) *Error {
	e := &Error{Status: 400, Code: "invalid_request", Fields: fields}
	if len(fields) > 0 {
		e.Detail = fields[0].Field + ": " + fields[0].Message
	}
	return e
}

// Field is shorthand for one FieldError.
func Field(field, format string, args ...any) FieldError {
	return FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// From turns any error into an *Error: an *Error anywhere in the chain is returned as
// it is (with the outer context prepended to its detail only if it has none), a context
// deadline becomes 504 timeout, and everything else becomes 500 internal whose detail
// never leaks the cause.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Detail == "" && err.Error() != e.Error() {
			c := *e
			c.Detail = err.Error()
			return &c
		}
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return New(ErrTimeout, "the request did not finish in time")
	}
	if errors.Is(err, context.Canceled) {
		return New(ErrUnavailable, "the request was cancelled")
	}
	return New(ErrInternal, "internal error")
}
