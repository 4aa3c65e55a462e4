package httpedge

import (
	"bufio"
	"context"
	"net"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/vmplane/vmplane/actors/events"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
)

// sseHeartbeat keeps idle event streams (and the proxies in front of them) alive.
const sseHeartbeat = 15 * time.Second

func (s *Server) eventRoutes() []api.Route {
	return []api.Route{
		{Method: "GET", Path: "/api/events", Access: api.Authenticated, Handler: s.events, Tag: "events",
			Summary: "Stream task, machine and alert events",
			Description: "Server-sent events of task, machine and alert changes (text/event-stream); a tenant user sees only its tenant's. " +
				"A new stream starts with what happens from now on; each event has an id: reconnect with Last-Event-ID " +
				"(or ?last_event_id=) to get what was missed, or ask for the kept backlog with ?since=0.",
			Query: map[string]string{
				"last_event_id": "resume after this event id (the Last-Event-ID header does the same)",
				"since":         "an event id: send the kept events after it first; 0 sends the whole kept backlog",
			},
			// since is an event id here, not a time as on the alert lists.
			QueryTypes: map[string]api.QueryType{"since": {Type: "integer", Minimum: new(int64)}},
			Headers:    map[string]string{"Last-Event-ID": "resume after this event id, as EventSource sends it on a reconnect"},
			Reply:      api.RawBody{ContentType: "text/event-stream"},
			Status:     fasthttp.StatusOK},
	}
}

// events streams events. The connection is hijacked: an event stream outlives the
// server's write timeout, and it ends when the server stops (the bus closes), the
// client goes away, or the session it was opened with ends (logout, the user changed,
// disabled or deleted: see Users.Authorize), checked before anything is written.
func (s *Server) events(c *api.Call) (any, error) {
	// Without a position, a new subscriber starts at now, as SSE clients expect: the
	// backlog holds old states that a fresh client would take for current ones.
	var (
		last  uint64
		fresh = true
	)
	for _, p := range []struct{ name, value string }{
		{"Last-Event-ID", c.Header("Last-Event-ID")}, {"last_event_id", c.Query("last_event_id")}, {"since", c.Query("since")},
	} {
		if p.value == "" {
			continue
		}
		n, err := strconv.ParseUint(p.value, 10, 64)
		if err != nil {
			return nil, apierr.Invalid(apierr.Field(p.name, "must be an event id"))
		}
		last, fresh = n, false
		break
	}
	if fresh {
		last = s.svc.Events.Latest()
	}
	scope := c.Scope()
	p := c.Principal
	backlog, sub, gone := s.svc.Events.Subscribe(last, scope)
	id := c.RequestID
	rc := c.RequestCtx()
	rc.HijackSetNoResponse(true)
	log := c.Log()
	rc.Hijack(func(conn net.Conn) {
		// fasthttp runs this on a goroutine of its own, outside the edge's recovery.
		defer kit.Recover(log, "event stream", nil)
		defer sub.Close()
		w := bufio.NewWriter(conn)
		w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n" +
			"Connection: close\r\nX-Accel-Buffering: no\r\nX-Request-Id: " + id + "\r\n\r\n")
		// Browsers wait this long before reconnecting.
		w.WriteString("retry: 2000\n\n")
		if gone {
			w.WriteString("event: gap\ndata: {\"detail\":\"some events after Last-Event-ID are no longer kept\"}\n\n")
		}
		for _, ev := range backlog {
			writeEvent(w, ev)
		}
		if !flush(conn, w) {
			return
		}
		beat := time.NewTicker(sseHeartbeat)
		defer beat.Stop()
		// A read that returns means the client hung up; nothing is expected from it.
		// fasthttp recycles the hijacked connection when this handler returns, so the
		// reader is woken and waited for first.
		// The stream's checks of its session end when the client hangs up.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		closed := make(chan struct{})
		go func() {
			defer close(closed)
			defer cancel()
			buf := make([]byte, 1)
			for {
				if _, err := conn.Read(buf); err != nil {
					return
				}
			}
		}()
		defer func() {
			_ = conn.SetReadDeadline(time.Now())
			<-closed
		}()
		for {
			select {
			case ev, ok := <-sub.C:
				if !ok {
					return // fell behind or shutting down: the client resumes with Last-Event-ID
				}
				if s.svc.Users.Authorize(ctx, p.Subject, p.SessionID, p.Gen) != nil {
					endStream(conn, w)
					return
				}
				writeEvent(w, ev)
			case <-beat.C:
				if s.svc.Users.Authorize(ctx, p.Subject, p.SessionID, p.Gen) != nil {
					endStream(conn, w)
					return
				}
				w.WriteString(": heartbeat\n\n")
			case <-closed:
				return
			}
			if !flush(conn, w) {
				return
			}
		}
	})
	return api.Upgraded{}, nil
}

// endStream tells the client its session has ended (it should not reconnect with the
// same token) before the stream closes.
func endStream(conn net.Conn, w *bufio.Writer) {
	w.WriteString("event: end\ndata: {\"detail\":\"the session has ended\"}\n\n")
	flush(conn, w)
}

func writeEvent(w *bufio.Writer, ev events.Event) {
	w.WriteString("id: ")
	w.WriteString(strconv.FormatUint(ev.ID, 10))
	w.WriteString("\nevent: ")
	w.WriteString(ev.Type)
	w.WriteString("\ndata: ")
	w.Write(ev.Data)
	w.WriteString("\n\n")
}

func flush(conn net.Conn, w *bufio.Writer) bool {
	_ = conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return w.Flush() == nil
}
