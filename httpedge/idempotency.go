package httpedge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/auth"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/token"
)

// MaxIdempotencyKey is the longest Idempotency-Key accepted.
const MaxIdempotencyKey = 255

// idempotent runs an authenticated POST that carries an Idempotency-Key at most once
// per user and key: a retry gets the first answer (same status and body), the same key
// with another request 422, and a retry while the first still runs 409. Answers below
// 500 (but 429) are kept for 24 h. A 429, 503 or 507 changed nothing and releases the
// key, so the request can be retried; after a 500, a 504 or a panic the request may
// have taken effect, so the claim stays and a retry answers 409, as after a crash.
// It reports whether it answered (a replay or an error), in which case the route's
// handler must not run; otherwise it returns the context the handler runs under (the
// request's, with the key's stamp when the route is Stamped) and the function that
// settles the key, which the caller runs after writing the answer (panicked: the
// handler panicked) and before returning to fasthttp.
func (s *Server) idempotent(ctx context.Context, rc *fasthttp.RequestCtx, requestID string, p *token.Claims, rt *api.Route) (_ context.Context, answered bool, settle func(panicked bool)) {
	raw := rc.Request.Header.Peek("Idempotency-Key")
	if len(raw) == 0 || p == nil || !rc.IsPost() {
		return ctx, false, nil
	}
	if len(raw) > MaxIdempotencyKey {
		s.writeError(rc, requestID, apierr.Invalid(apierr.Field("Idempotency-Key", "must be at most %d characters", MaxIdempotencyKey)))
		return ctx, true, nil
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
	user := p.UserID()

	claim, err := s.svc.Idempotency.Claim(ctx, user, key, reqHash, rt.Stamped)
	if err != nil {
		s.writeError(rc, requestID, err)
		return ctx, true, nil
	}
	if replay := claim.Replay; replay != nil {
		rc.SetStatusCode(replay.Status)
		if replay.ContentType != "" {
			rc.SetContentType(replay.ContentType)
		}
		if replay.Location != "" {
			rc.Response.Header.Set("Location", replay.Location)
		}
		rc.Response.Header.Set("Idempotent-Replayed", "true")
		rc.SetBody(replay.Body)
		return ctx, true, nil
	}
	if claim.Stamp != nil {
		ctx = kit.WithStamp(ctx, claim.Stamp)
		if claim.Stamp.Reply != nil {
			// The first request applied and was never answered: its recorded reply
			// is answered now.
			rc.Response.Header.Set("Idempotent-Replayed", "true")
		}
	}
	return ctx, false, func(panicked bool) {
		status := rc.Response.StatusCode()
		var a *auth.Answer
		how := settlement(status, panicked)
		if how == keepAnswer {
			a = &auth.Answer{RequestHash: reqHash, Status: status, ContentType: string(rc.Response.Header.ContentType()),
				Location: string(rc.Response.Header.Peek("Location")), Body: append([]byte(nil), rc.Response.Body()...)}
		}
		keep := how == keepClaim
		// Not the request's context: its deadline may be what ended the request, and
		// a key left claimed in memory would answer "still in progress" for good.
		sctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
		defer cancel()
		if err := s.svc.Idempotency.Complete(sctx, user, key, claim.Token, a, keep); err != nil && !panicked {
			// The answer could not be kept: say so rather than acknowledge a write whose
			// retry would run it again.
			s.log.Error("idempotency answer not stored", zap.String("request_id", requestID), zap.Error(err))
			rc.Response.Reset()
			rc.Response.Header.Set("X-Request-Id", requestID)
			s.writeError(rc, requestID, err)
		}
	}
}

// How an idempotent request's key is settled.
const (
	keepAnswer = iota // stored: a retry gets this answer
	releaseKey        // dropped: nothing changed, a retry runs again
	keepClaim         // left claimed without an answer: a retry is 409
)

// settlement decides how a key is settled by its request's answer status.
func settlement(status int, panicked bool) int {
	switch {
	case panicked:
		return keepClaim
	case status < 500 && status != fasthttp.StatusTooManyRequests:
		return keepAnswer
	case status == fasthttp.StatusTooManyRequests || status == fasthttp.StatusServiceUnavailable ||
		status == fasthttp.StatusInsufficientStorage:
		// Refused before anything changed: the key is free for a retry.
		return releaseKey
	}
	// A 500 or a 504: the request may still take effect (an actor whose answer timed
	// out goes on), so it must not run again under this key.
	return keepClaim
}

// settleTimeout bounds storing an idempotent request's answer (one group commit).
const settleTimeout = 5 * time.Second
