package httpedge

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http/httputil"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/persistence"
)

// backupWriteTimeout bounds each write of a backup to its client: a client that stops
// reading ends the backup instead of holding the store's snapshot open.
const backupWriteTimeout = 30 * time.Second

func (s *Server) adminRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/api/admin/backup", Access: api.AdminOnly, Handler: s.backup, Tag: "system",
			Summary: "A backup of the whole store",
			Description: "Streams a consistent snapshot of every record (one moment of the store; writes go on meanwhile) as application/octet-stream, " +
				"in chunked transfer encoding: a stream that ends without its last chunk failed and must be thrown away. " +
				"`vmplane backup` saves it and `vmplane restore` loads it into an empty data directory. Operators only (users get 403). " +
				"409 invalid_state when the store is backed up with its own cluster's tools instead (etcd: etcdctl snapshot save).",
			Reply:  api.RawBody{ContentType: "application/octet-stream"},
			Errors: []int{fasthttp.StatusConflict}},
	}
}

// backup streams the store's backup. The connection is hijacked: a backup can outlive
// the server's write timeout, and it is written in chunks so that a client tells a
// complete backup (the last chunk came) from one cut short by a failure.
func (s *Server) backup(c *api.Call) (any, error) {
	sn, err := persistence.SnapshotterOf(s.opts.Store)
	if err != nil {
		return nil, err
	}
	id, log := c.RequestID, c.Log()
	user := c.Principal.Subject
	rc := c.RequestCtx()
	rc.HijackSetNoResponse(true)
	rc.Hijack(func(conn net.Conn) {
		// fasthttp runs this on a goroutine of its own, outside the edge's recovery.
		defer kit.Recover(log, "backup stream", nil)
		started := time.Now()
		out := &backupConn{conn: conn, closing: &s.closing}
		bw := bufio.NewWriterSize(out, 64<<10)
		bw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n" +
			"Content-Disposition: attachment; filename=\"vmplane-" + started.UTC().Format("20060102T150405Z") + ".backup\"\r\n" +
			"Cache-Control: no-store\r\nTransfer-Encoding: chunked\r\nConnection: close\r\nX-Request-Id: " + id + "\r\n\r\n")
		cw := httputil.NewChunkedWriter(bw)
		counted := &countingWriter{w: cw}
		if err := sn.Backup(context.Background(), counted); err != nil {
			// No last chunk: the client sees the stream cut short.
			log.Warn("backup failed", zap.String("user", user), zap.Int64("bytes", counted.n), zap.Error(err))
			return
		}
		_ = cw.Close()
		bw.WriteString("\r\n")
		if err := bw.Flush(); err != nil {
			log.Warn("backup failed", zap.String("user", user), zap.Int64("bytes", counted.n), zap.Error(err))
			return
		}
		log.Info("backup taken", zap.String("user", user), zap.Int64("bytes", counted.n),
			zap.Duration("took", time.Since(started)))
	})
	return api.Upgraded{}, nil
}

// backupConn is the hijacked connection as a backup writes it: each write has
// backupWriteTimeout, and none starts once the server shuts down, so a backup never
// holds a shutdown up (the store's Close waits for it).
type backupConn struct {
	conn    net.Conn
	closing *atomic.Bool
}

func (b *backupConn) Write(p []byte) (int, error) {
	if b.closing.Load() {
		return 0, apierr.New(apierr.ErrUnavailable, "the server is shutting down")
	}
	_ = b.conn.SetWriteDeadline(time.Now().Add(backupWriteTimeout))
	return b.conn.Write(p)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
