package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
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
	cmd  *exec.Cmd      // the child process serving, when it is one
	in   io.WriteCloser // its stdin: closing it ends the child
}

// StartBaseline serves body (with contentType) on a free loopback port, in this process.
func StartBaseline(body []byte, contentType string) (*Baseline, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return serveBaseline(ln, body, contentType), nil
}

func serveBaseline(ln net.Listener, body []byte, contentType string) *Baseline {
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
	return b
}

// StartBaselineProcess serves body as StartBaseline does, but in a child process:
// command (a program and its arguments) is one that runs ServeBaselineProcess, such as
// this binary's hidden `vmplane bench-baseline`. The server under load is a process of
// its own, so a bare server inside the harness's process would be compared with it
// under easier terms: one Go scheduler for both ends, no switch between processes on
// every request and answer. Measured here (2 cores), the same bare server reached
// 65–85 % of its in-process throughput from a child process.
func StartBaselineProcess(command []string, body []byte, contentType string) (*Baseline, error) {
	if len(command) == 0 {
		return nil, errors.New("baseline process: no command")
	}
	f, err := os.CreateTemp("", "vmplane-baseline-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name()) //nolint:errcheck // the child has read it once it answers
	_, err = f.Write(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if contentType == "" {
		contentType = "application/json"
	}
	args := append(append([]string(nil), command[1:]...), f.Name(), contentType)
	cmd := exec.Command(command[0], args...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("baseline process: %w", err)
	}
	b := &Baseline{cmd: cmd, in: in}
	line, err := bufio.NewReader(out).ReadString('\n')
	b.URL = strings.TrimSpace(line)
	if err != nil || !strings.HasPrefix(b.URL, "http://") {
		_ = b.Close()
		return nil, fmt.Errorf("baseline process: it answered %q, want its URL (%v)", line, err)
	}
	return b, nil
}

// ServeBaselineProcess is the child StartBaselineProcess starts: args are the file
// holding the body and its content type. It writes its URL as one line to stdout and
// serves until stdin ends, which is when the harness closes it or exits.
func ServeBaselineProcess(args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) != 2 {
		return errors.New("want the body's file and its content type")
	}
	body, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	b := serveBaseline(ln, body, args[1])
	if _, err := fmt.Fprintln(stdout, b.URL); err != nil {
		_ = b.Close()
		return err
	}
	_, _ = io.Copy(io.Discard, stdin)
	return b.Close()
}

// Close stops the server.
func (b *Baseline) Close() error {
	if b.cmd != nil {
		_ = b.in.Close()
		done := make(chan error, 1)
		go func() { done <- b.cmd.Wait() }()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			_ = b.cmd.Process.Kill()
			return fmt.Errorf("baseline process did not end within 10s of its stdin's end: killed (%v)", <-done)
		}
	}
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
