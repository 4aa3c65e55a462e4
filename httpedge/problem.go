package httpedge

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
)

// problem is the RFC 9457 body of every error answer.
type problem struct {
	Type      string              `json:"type"`
	Title     string              `json:"title"`
	Status    int                 `json:"status"`
	Code      string              `json:"code"`
	Detail    string              `json:"detail,omitempty"`
	RequestID string              `json:"request_id"`
	Errors    []apierr.FieldError `json:"errors,omitempty"`
	Allowed   []string            `json:"allowed,omitempty"`
	// Challenge is present on a 401 totp_required: what POST /api/auth/login/totp
	// completes with a code of the second factor.
	Challenge string `json:"challenge,omitempty"`
}

// writeError is the one place where an error becomes an HTTP answer.
func (s *Server) writeError(rc *fasthttp.RequestCtx, requestID string, err error) {
	e := apierr.From(err)
	if e.Status >= 500 {
		s.log.Error("request failed", zap.String("request_id", requestID), zap.ByteString("method", rc.Method()),
			zap.ByteString("path", rc.Path()), zap.Int("status", e.Status), zap.Error(err))
	} else if ce := s.log.Check(zap.DebugLevel, "request refused"); ce != nil {
		ce.Write(zap.String("request_id", requestID), zap.ByteString("method", rc.Method()),
			zap.ByteString("path", rc.Path()), zap.Int("status", e.Status), zap.String("code", e.Code), zap.String("detail", e.Detail))
	}
	body := problemBody(e, requestID)
	switch e.Status {
	case fasthttp.StatusUnauthorized:
		rc.Response.Header.Set("WWW-Authenticate", `Bearer realm="vmplane"`)
	case fasthttp.StatusMethodNotAllowed:
		if len(e.Allowed) > 0 {
			rc.Response.Header.Set("Allow", strings.Join(e.Allowed, ", "))
		}
	}
	if e.RetryAfterS > 0 {
		rc.Response.Header.Set("Retry-After", strconv.Itoa(e.RetryAfterS))
	}
	rc.SetStatusCode(e.Status)
	rc.SetContentType("application/problem+json")
	rc.SetBody(body)
}

// problemBody is the problem JSON of e.
func problemBody(e *apierr.Error, requestID string) []byte {
	body, _ := json.Marshal(problem{
		Type: "about:blank", Title: e.Title(), Status: e.Status, Code: e.Code, Detail: e.Detail,
		RequestID: requestID, Errors: e.Fields, Allowed: e.Allowed, Challenge: e.Challenge,
	})
	return body
}

// codeOfStatus is the code of an error answer that was written without one.
func codeOfStatus(status int) string {
	for _, e := range []*apierr.Error{apierr.ErrInvalidRequest, apierr.ErrUnauthorized, apierr.ErrForbidden,
		apierr.ErrNotFound, apierr.ErrMethodNotAllowed, apierr.ErrRequestTimeout, apierr.ErrConflict,
		apierr.ErrPayloadTooLarge, apierr.ErrRateLimited, apierr.ErrHeaderTooLarge, apierr.ErrInternal,
		apierr.ErrUnavailable, apierr.ErrTimeout} {
		if e.Status == status {
			return e.Code
		}
	}
	if status < 500 {
		return apierr.ErrInvalidRequest.Code
	}
	return apierr.ErrInternal.Code
}
