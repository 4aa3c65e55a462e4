package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// Error is an error answer of the API: an RFC 9457 problem with a stable Code. Compare
// kinds with errors.Is against the sentinels below (two *Error values match when their
// codes are equal), and branch on Status and Code, never on Detail.
type Error struct {
	// Status is the HTTP status of the answer.
	Status int
	// Code is the stable machine-readable code (not_found, quota_exceeded, ...).
	Code string
	// Detail is a human-readable explanation; its wording may change.
	Detail string
	// Fields names each invalid input field of a 400 invalid_request.
	Fields []FieldError
	// Allowed lists valid values where the server gives them (the methods of a 405).
	Allowed []string
	// RequestID is the X-Request-Id of the request: quote it when asking the operator.
	RequestID string
	// Challenge is the challenge of a 401 totp_required (a login whose password was
	// right, of a user with a second factor): LoginTOTP completes it with a code.
	Challenge string
}

// FieldError names one invalid input field.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	s := fmt.Sprintf("vmplane: %d %s", e.Status, e.Code)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, client.ErrNotFound) holds for every not-found answer.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels, one per code of the API contract (docs/api.md, "Errors").
var (
	ErrInvalidJSON    = &Error{Status: 400, Code: "invalid_json"}
	ErrInvalidRequest = &Error{Status: 400, Code: "invalid_request"}
	ErrUnauthorized   = &Error{Status: 401, Code: "unauthorized"}
	// ErrTOTPEnrolmentRequired: the login may only enrol the second factor its user
	// must have (EnrolTOTP, ConfirmTOTP) before anything else.
	ErrTOTPEnrolmentRequired = &Error{Status: 403, Code: "totp_enrolment_required"}
	ErrInvalidCredentials    = &Error{Status: 401, Code: "invalid_credentials"}
	ErrInvalidRefreshToken   = &Error{Status: 401, Code: "invalid_refresh_token"}
	ErrTOTPRequired          = &Error{Status: 401, Code: "totp_required"}
	ErrForbidden             = &Error{Status: 403, Code: "forbidden"}
	ErrNotFound              = &Error{Status: 404, Code: "not_found"}
	ErrMethodNotAllowed      = &Error{Status: 405, Code: "method_not_allowed"}
	ErrRequestTimeout        = &Error{Status: 408, Code: "request_timeout"}
	ErrConflict              = &Error{Status: 409, Code: "conflict"}
	ErrOperationInProgress   = &Error{Status: 409, Code: "operation_in_progress"}
	ErrInvalidState          = &Error{Status: 409, Code: "invalid_state"}
	ErrQuotaExceeded         = &Error{Status: 409, Code: "quota_exceeded"}
	ErrPayloadTooLarge       = &Error{Status: 413, Code: "payload_too_large"}
	ErrUnsupportedMedia      = &Error{Status: 415, Code: "unsupported_media_type"}
	ErrIdempotencyKeyReused  = &Error{Status: 422, Code: "idempotency_key_reused"}
	ErrChecksumMismatch      = &Error{Status: 422, Code: "checksum_mismatch"}
	ErrRateLimited           = &Error{Status: 429, Code: "rate_limited"}
	ErrTooManyConnections    = &Error{Status: 429, Code: "too_many_connections"}
	ErrHeaderTooLarge        = &Error{Status: 431, Code: "header_too_large"}
	ErrInternal              = &Error{Status: 500, Code: "internal"}
	ErrUnavailable           = &Error{Status: 503, Code: "unavailable"}
	ErrTimeout               = &Error{Status: 504, Code: "timeout"}
	ErrInsufficientStorage   = &Error{Status: 507, Code: "insufficient_storage"}
	ErrInsufficientCapacity  = &Error{Status: 409, Code: "insufficient_capacity"}
	ErrPoolExhausted         = &Error{Status: 409, Code: "pool_exhausted"}
	ErrAddressTaken          = &Error{Status: 409, Code: "address_taken"}
	ErrAddressUnusable       = &Error{Status: 422, Code: "address_unusable"}
	ErrDNSZoneMissing        = &Error{Status: 409, Code: "dns_zone_missing"}
	ErrDNSUnavailable        = &Error{Status: 503, Code: "dns_unavailable"}
	ErrTenantSuspended       = &Error{Status: 403, Code: "tenant_suspended"}
	ErrMachineSuspended      = &Error{Status: 403, Code: "machine_suspended"}
	// The answers of an OpenID Connect sign-in's callback (CompleteOIDC).
	ErrOIDCStateInvalid = &Error{Status: 400, Code: "oidc_state_invalid"}
	ErrOIDCLoginFailed  = &Error{Status: 401, Code: "oidc_login_failed"}
	ErrOIDCNotMapped    = &Error{Status: 403, Code: "oidc_not_mapped"}
)

// ErrTaskFailed matches the error WaitTask returns for a task that ended failed.
var ErrTaskFailed = errors.New("vmplane: task failed")

// TaskError is what WaitTask returns when the task ended failed: the task, with the
// server's explanation in Task.Error. errors.Is(err, ErrTaskFailed) holds for it.
type TaskError struct{ Task *Task }

func (e *TaskError) Error() string {
	msg := "vmplane: task " + e.Task.ID + " (" + e.Task.Type + ") failed"
	if e.Task.Error != nil && *e.Task.Error != "" {
		msg += ": " + *e.Task.Error
	}
	return msg
}

// Is makes errors.Is(err, ErrTaskFailed) hold.
func (e *TaskError) Is(target error) bool { return target == ErrTaskFailed }

// problem is the wire form of an error answer.
type problem struct {
	Type      string       `json:"type"`  // about:blank
	Title     string       `json:"title"` // the status's text
	Status    int          `json:"status"`
	Code      string       `json:"code"`
	Detail    string       `json:"detail"`
	Errors    []FieldError `json:"errors"`
	Allowed   []string     `json:"allowed"`
	RequestID string       `json:"request_id"`
	Challenge string       `json:"challenge"`
}

// codeOfStatus is the code of an error answer that is not problem JSON (a proxy's page,
// say): the API's usual code for that status, so errors.Is still works on its kind.
var codeOfStatus = map[int]string{
	400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
	405: "method_not_allowed", 408: "request_timeout", 409: "conflict", 413: "payload_too_large",
	415: "unsupported_media_type", 422: "idempotency_key_reused", 429: "rate_limited",
	431: "header_too_large", 500: "internal", 502: "unavailable", 503: "unavailable", 504: "timeout",
	507: "insufficient_storage",
}

// errorFrom builds the *Error of an answer with status >= 400.
func errorFrom(res *http.Response, body []byte) *Error {
	e := &Error{Status: res.StatusCode, RequestID: res.Header.Get("X-Request-Id")}
	var p problem
	if json.Unmarshal(body, &p) == nil && p.Code != "" {
		e.Code, e.Detail, e.Fields, e.Allowed, e.Challenge = p.Code, p.Detail, p.Errors, p.Allowed, p.Challenge
		if p.RequestID != "" {
			e.RequestID = p.RequestID
		}
		return e
	}
	e.Code = codeOfStatus[res.StatusCode]
	if e.Code == "" {
		e.Code = fmt.Sprintf("http_%d", res.StatusCode)
	}
	e.Detail = http.StatusText(res.StatusCode)
	return e
}
