package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/valyala/fasthttp"
)

// Baseline is a bare fasthttp server that answers every request with the same bytes:
// the ceiling the same load against a vmplane route is compared with (the server's
// middleware, limiter and actors are what the difference costs).
type Baseline struct {
	// URL is where it serves, http://127.0.0.1:port.
	URL  string
	srv  *fasthttp.Server
	done chan error
}

// StartBaseline serves body (with contentType) on a free loopback port.
func StartBaseline(body []byte, contentType string) (*Baseline, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if contentType == "" {
		contentType = "application/json"
	}
	b := &Baseline{URL: "http://" + ln.Addr().String(), done: make(chan error, 1)}
	b.srv = &fasthttp.Server{
		Name:                  "vmplane-baseline",
		NoDefaultContentType:  true,
		NoDefaultDate:         false,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           time.Minute,
		CloseOnShutdown:       true,
		NoDefaultServerHeader: false,
		Handler: func(rc *fasthttp.RequestCtx) {
			rc.Response.Header.SetContentType(contentType)
			rc.Response.SetBodyRaw(body)
		},
	}
	go func() { b.done <- b.srv.Serve(ln) }()
	return b, nil
}

// Close stops the server.
func (b *Baseline) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := b.srv.ShutdownWithContext(ctx)
	if serr := <-b.done; serr != nil && !errors.Is(serr, net.ErrClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// FetchBody GETs url once and returns its body and content type, for a baseline that
// answers exactly what the server answers.
func FetchBody(url string, timeout time.Duration) ([]byte, string, error) {
	req := fasthttp.AcquireRequest()
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(url)
	t, err := newTarget(url)
	if err != nil {
		return nil, "", err
	}
	if err := t.hostClient(1, timeout).DoTimeout(req, resp, timeout); err != nil {
		return nil, "", &unreachableError{Base: t.base, Reason: errClass(err)}
	}
	if resp.StatusCode() != fasthttp.StatusOK {
		return nil, "", fmt.Errorf("GET %s answered %d; want 200", url, resp.StatusCode())
	}
	return append([]byte(nil), resp.Body()...), string(resp.Header.ContentType()), nil
}
