package httpedge

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"
)

// TestIdleConnectionMemory: a keep-alive connection that has been answered and waits
// for its next request holds no write buffer. fasthttp keeps each connection's 16 KB
// write buffer between requests unless ReduceMemoryUsage is set; with it an idle
// connection costs about 5 KB of heap (its reader and state) and its goroutine's stack,
// without it 21 KB. The bound sits between the two.
func TestIdleConnectionMemory(t *testing.T) {
	s := New(Options{Version: "test"})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
		<-served
	})

	const conns = 500
	heapInUse := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse
	}
	before := heapInUse()
	open := make([]net.Conn, 0, conns)
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	buf := make([]byte, 64<<10)
	for range conns {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, c)
		// Any answer goes through the connection's write buffer; an unknown path's 404
		// needs nothing behind the edge.
		fmt.Fprintf(c, "GET /api/no-such-route HTTP/1.1\r\nHost: test\r\n\r\n")
		r := bufio.NewReader(c)
		if _, err := r.Peek(12); err != nil {
			t.Fatal(err)
		}
		_, _ = r.Read(buf)
	}
	after := heapInUse()
	perConn := (int64(after) - int64(before)) / conns
	t.Logf("heap per idle keep-alive connection: %d bytes (both ends)", perConn)
	if perConn > 12<<10 {
		t.Fatalf("an idle keep-alive connection holds %d bytes of heap; want under 12 KB (is the write buffer kept between requests?)", perConn)
	}
}
