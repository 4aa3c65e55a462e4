package httpedge

import (
	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/httpedge/token"
)

// audit logs, at info, one line per write an authenticated caller made through the
// API: who changed what (user, method, path) and how it ended (status, or the error's
// code and detail). Reads and the auth routes (which log failed logins themselves) are
// left out, so the log holds what an operator needs and no request noise.
func (s *Server) audit(rc *fasthttp.RequestCtx, requestID string, p *token.Claims, rt *api.Route, status int, err error) {
	if p == nil || rt.Method == "GET" || rt.Method == "HEAD" || rt.Tag == "auth" {
		return
	}
	fields := []zap.Field{zap.String("user", p.Email), zap.String("role", p.Role),
		zap.Stringp("tenant_id", p.TenantID), zap.String("method", rt.Method),
		zap.String("path", string(rc.Path())), zap.String("request_id", requestID)}
	if err != nil {
		e := apierr.From(err)
		s.log.Info("change refused", append(fields, zap.Int("status", e.Status), zap.String("code", e.Code),
			zap.String("reason", e.Detail))...)
		return
	}
	s.log.Info("change", append(fields, zap.Int("status", status))...)
}
