package httpedge

import (
	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/persistence"
)

func writeJSON(rc *fasthttp.RequestCtx, v any) error {
	rc.SetContentType("application/json")
	if a, ok := v.(persistence.JSONAppender); ok {
		b, err := a.AppendJSON(make([]byte, 0, 512))
		if err != nil {
			return err
		}
		rc.Response.SetBodyRaw(append(b, '\n'))
		return nil
	}
	return api.EncodeJSON(rc.Response.BodyWriter(), v)
}
