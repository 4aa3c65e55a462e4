package httpedge

import (
	"net"

	"testing"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// BenchmarkSmallPOSTBody is what streaming request bodies (the server's
// StreamRequestBody, for the uploads) costs a small POST: one firewall rule's body read
// by a bare fasthttp server over an in-memory listener, streamed and read whole as
// bodyWithin reads it, against the same server reading bodies before the handler as it
// did before streaming.
func BenchmarkSmallPOSTBody(b *testing.B) {
	body := []byte(`{"direction":"in","action":"accept","protocol":"tcp","port":"443","source":"203.0.113.0/24"}`)
	for _, mode := range []struct {
		name   string
		stream bool
	}{{"buffered", false}, {"streamed", true}} {
		b.Run(mode.name, func(b *testing.B) {
			srv := &fasthttp.Server{
				StreamRequestBody:  mode.stream,
				MaxRequestBodySize: MaxBodyBytes,
				Handler: func(rc *fasthttp.RequestCtx) {
					if len(rc.Request.Body()) != len(body) {
						rc.SetStatusCode(fasthttp.StatusBadRequest)
						return
					}
					rc.SetStatusCode(fasthttp.StatusCreated)
				},
			}
			ln := fasthttputil.NewInmemoryListener()
			go func() { _ = srv.Serve(ln) }()
			b.Cleanup(func() { _ = srv.Shutdown() })
			client := &fasthttp.HostClient{Addr: "bench", MaxConns: 64, Dial: func(string) (net.Conn, error) { return ln.Dial() }}
			b.ReportAllocs()
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
				defer fasthttp.ReleaseRequest(req)
				defer fasthttp.ReleaseResponse(res)
				req.Header.SetMethod("POST")
				req.SetRequestURI("http://bench/api/client/firewall/rules")
				req.Header.SetContentType("application/json")
				req.SetBody(body)
				for pb.Next() {
					if err := client.Do(req, res); err != nil || res.StatusCode() != fasthttp.StatusCreated {
						b.Errorf("got %d, %v; want 201", res.StatusCode(), err)
						return
					}
				}
			})
		})
	}
}
