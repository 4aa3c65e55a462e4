package virt

import (
	"context"
	"encoding/base64"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/vmplane/vmplane/actors/consoles"
	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/api"
	"github.com/vmplane/vmplane/hypervisor"
)

// Console serves a machine's console for routes whose path names the machine by the
// parameter Param: the single-use ticket (Ticket) and the websocket it opens (Socket).
// The operator's routes and the client area's share it; Scope is the tenant a caller
// may open consoles of (nil: any machine).
type Console struct {
	Services api.Services
	// PublicURL is the server's external base URL, for the ticket's absolute URL.
	PublicURL string
	Param     string
	Scope     func(c *api.Call) (*string, error)
}

// ConsoleTypeDoc documents the query parameter type of the console's ticket routes.
const ConsoleTypeDoc = "serial (the default): the serial terminal; vnc: the graphical console of a machine with a display " +
	"(display: true), an RFB 3.8 stream offering security None, for noVNC (binary frames, subprotocol binary); a machine without one answers 409"

// ConsoleQueryTypes are the types of the ticket routes' query parameters.
var ConsoleQueryTypes = map[string]api.QueryType{"type": {Enum: []string{consoles.TypeSerial, consoles.TypeVNC}}}

// Ticket answers a single-use ticket and the path of the websocket it opens.
func (k Console) Ticket(c *api.Call) (any, error) {
	scope, err := k.Scope(c)
	if err != nil {
		return nil, err
	}
	p := c.Principal
	t, err := k.Services.Consoles.Issue(c.Context(), c.Param(k.Param), scope, c.Query("type"),
		consoles.ConsoleSession{UserID: p.Subject, SessionID: p.SessionID, Gen: p.Gen})
	if err != nil {
		return nil, err
	}
	// The path keeps the prefix of the route the caller used (/api/virt,
	// /api/<driver> or /api/client) and names the machine by its id, however the
	// caller named it.
	route := c.RoutePath()
	path := strings.Replace(route, "{"+k.Param+"}", url.PathEscape(t.MachineID), 1) + "/ws?ticket=" + url.QueryEscape(t.Ticket)
	// Nothing the request carries (Host, X-Forwarded-*) goes into a URL that carries
	// the ticket: whoever caches or logs the answer would send the ticket there.
	u := path
	if base := websocketBase(k.PublicURL); base != "" {
		u = base + path
	}
	return ConsoleReply{Type: t.Type, URL: u, Path: path, Ticket: t.Ticket, ExpiresAt: t.ExpiresAt}, nil
}

// websocketBase is the ws:// or wss:// form of the configured public URL; "" without
// one.
func websocketBase(publicURL string) string {
	u := strings.TrimSuffix(publicURL, "/")
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		return "wss://" + rest
	}
	if rest, ok := strings.CutPrefix(u, "http://"); ok {
		return "ws://" + rest
	}
	return ""
}

// validWebsocketKey reports a Sec-WebSocket-Key the upgrader accepts (RFC 6455 4.1:
// 16 bytes in base64).
func validWebsocketKey(k []byte) bool {
	n, err := base64.StdEncoding.Decode(make([]byte, base64.StdEncoding.DecodedLen(len(k))), k)
	return err == nil && n == 16
}

var consoleUpgrader = websocket.FastHTTPUpgrader{
	// The single-use ticket is the credential, not cookies, so cross-origin pages gain
	// nothing from a browser's ambient authority here.
	CheckOrigin: func(*fasthttp.RequestCtx) bool { return true },
	// noVNC asks for "binary", and a browser refuses an upgrade that does not
	// answer the subprotocol it asked for; a client that asks none gets none.
	Subprotocols:    []string{"binary"},
	ReadBufferSize:  4096,
	WriteBufferSize: 4096,
}

// Socket upgrades to the websocket of a ticket's console.
func (k Console) Socket(c *api.Call) (any, error) {
	// The whole handshake is checked before the ticket is spent: a malformed upgrade
	// must not burn a single-use ticket.
	rc := c.RequestCtx()
	hdr := &rc.Request.Header
	if !websocket.FastHTTPIsWebSocketUpgrade(rc) || string(hdr.Peek("Sec-WebSocket-Version")) != "13" ||
		!validWebsocketKey(hdr.Peek("Sec-WebSocket-Key")) {
		return nil, apierr.New(apierr.ErrInvalidRequest, "this route needs a websocket upgrade (version 13, with a key of 16 bytes in base64)")
	}
	con, who, err := k.Services.Consoles.Redeem(c.Context(), c.Param(k.Param), c.Query("ticket"))
	if err != nil {
		return nil, err
	}
	log := c.Log()
	// The session outlives its request (and the request's context): each check is
	// bounded by Authorize's own timeout.
	live := func() bool {
		return k.Services.Users.Authorize(context.Background(), who.UserID, who.SessionID, who.Gen) == nil
	}
	err = consoleUpgrader.Upgrade(rc, func(ws *websocket.Conn) {
		// fasthttp runs this on a goroutine of its own, outside the edge's recovery.
		defer kit.Recover(log, "console session", nil)
		bridgeConsole(log, ws, con, live, consoleSessionCheck)
		log.Debug("console session ended")
	})
	if err != nil {
		con.Close()
		return nil, apierr.New(apierr.ErrInvalidRequest, "websocket upgrade failed")
	}
	return api.Upgraded{}, nil
}

// consoleSessionCheck is how often an open console asks whether the login that opened
// it still stands: a logout, or a deleted, disabled or changed user, ends the console
// within this time. A check is a map lookup.
const consoleSessionCheck = time.Second

// bridgeConsole copies between a websocket and a console until either ends, or until
// live, asked every check, says the login that opened it has ended. It returns only
// when every goroutine has stopped: fasthttp reuses the hijacked connection once the
// hijack handler returns, so no goroutine may touch the socket after that.
func bridgeConsole(log *zap.Logger, ws *websocket.Conn, con hypervisor.Console, live func() bool, check time.Duration) {
	var wg sync.WaitGroup
	wg.Add(2)
	stop := make(chan struct{})
	// Deferred, so that a panic in the driver's console still ends both directions.
	defer func() {
		close(stop)
		con.Close() // unblocks the console reader
		wg.Wait()
		ws.Close()
	}()
	go func() { // the login's watch; WriteControl may run beside the writer below
		defer wg.Done()
		defer kit.Recover(log, "console session watch", nil)
		t := time.NewTicker(check)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if live() {
					continue
				}
				log.Info("console closed: its login ended")
				_ = ws.WriteControl(websocket.CloseMessage,
					websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "session ended"), time.Now().Add(time.Second))
				con.Close()
				_ = ws.SetReadDeadline(time.Now())
				return
			}
		}
	}()
	go func() { // console → websocket; the only writer of ws
		defer wg.Done()
		// Wake the websocket reader below, however this direction ends.
		defer func() { _ = ws.SetReadDeadline(time.Now()) }()
		defer kit.Recover(log, "console session", nil)
		buf := make([]byte, 4096)
		for {
			n, err := con.Read(buf)
			if n > 0 {
				// A serial console's text goes as text frames; RFB is binary
				// (noVNC's subprotocol "binary"), whatever its bytes look like.
				kind := websocket.BinaryMessage
				if con.Type() != consoles.TypeVNC && utf8.Valid(buf[:n]) {
					kind = websocket.TextMessage
				}
				if werr := ws.WriteMessage(kind, buf[:n]); werr != nil {
					break
				}
			}
			if err != nil {
				_ = ws.WriteControl(websocket.CloseMessage,
					websocket.FormatCloseMessage(websocket.CloseNormalClosure, "console closed"), time.Now().Add(time.Second))
				break
			}
		}
	}()
	for { // websocket → console
		_, data, err := ws.ReadMessage()
		if err != nil {
			break
		}
		if _, err := con.Write(data); err != nil {
			break
		}
	}
}
