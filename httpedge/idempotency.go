package httpedge

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors"
	"github.com/vmplane/vmplane/apierr"
)

// MaxIdempotencyKey is the longest Idempotency-Key accepted.
const MaxIdempotencyKey = 255

// idempotent runs an authenticated POST that carries an Idempotency-Key at most once
// per user and key: a retry gets the first answer (same status and body), the same key
// with another request 422, and a retry while the first still runs 409. Answers of 2xx
// and 4xx are kept for 24 h; 429 and 5xx are not, so such a request can be retried.
// It reports whether it answered (a replay or an error), in which case the route's
// handler must not run; otherwise it returns the function that stores the answer,
// which the caller runs after writing it and before returning to fasthttp.
func (s *Server) idempotent(c *Call) (answered bool, store func()) {
	rc := c.rc
	raw := rc.Request.Header.Peek("Idempotency-Key")
	if len(raw) == 0 || c.Principal == nil || !rc.IsPost() {
		return false, nil
	}
	if len(raw) > MaxIdempotencyKey {
		s.writeError(rc, c.RequestID, apierr.Invalid(apierr.Field("Idempotency-Key", "must be at most %d characters", MaxIdempotencyKey)))
		return true, nil
	}
	keyHash := sha256.Sum256(raw)
	key := hex.EncodeToString(keyHash[:])
	h := sha256.New()
	h.Write(rc.Method())
	h.Write([]byte{0})
	h.Write(rc.RequestURI())
	h.Write([]byte{0})
	h.Write(rc.PostBody())
	reqHash := hex.EncodeToString(h.Sum(nil))
	user := c.Principal.UserID()

	replay, err := s.sys.Idempotency.Claim(c.Context(), user, key, reqHash)
	if err != nil {
		s.writeError(rc, c.RequestID, err)
		return true, nil
	}
	if replay != nil {
		rc.SetStatusCode(replay.Status)
		if replay.ContentType != "" {
			rc.SetContentType(replay.ContentType)
		}
		if replay.Location != "" {
			rc.Response.Header.Set("Location", replay.Location)
		}
		rc.Response.Header.Set("Idempotent-Replayed", "true")
		rc.SetBody(replay.Body)
		return true, nil
	}
	return false, func() {
		status := rc.Response.StatusCode()
		var a *actors.Answer
		if status < 500 && status != fasthttp.StatusTooManyRequests {
			a = &actors.Answer{RequestHash: reqHash, Status: status, ContentType: string(rc.Response.Header.ContentType()),
				Location: string(rc.Response.Header.Peek("Location")), Body: append([]byte(nil), rc.Response.Body()...)}
		}
		if err := s.sys.Idempotency.Complete(c.Context(), user, key, a); err != nil {
			// The answer could not be kept: say so rather than acknowledge a write whose
			// retry would run it again.
			s.log.Error("idempotency answer not stored", zap.String("request_id", c.RequestID), zap.Error(err))
			rc.Response.Reset()
			rc.Response.Header.Set("X-Request-Id", c.RequestID)
			s.writeError(rc, c.RequestID, err)
		}
	}
}
