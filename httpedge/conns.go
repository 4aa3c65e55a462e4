package httpedge

import (
	"io"
	"net"
	"strconv"
	"time"

	"github.com/vmplane/vmplane/apierr"
	"github.com/vmplane/vmplane/httpedge/conncap"
)

// Defaults of the connection settings (Options).
const (
	DefaultIPv6Prefix    = 64
	DefaultHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout   = 60 * time.Second
)

// bucketConnections is the refusal metric's label for connections over the cap.
const bucketConnections = "connections"

// bodyTimeout bounds reading a request's body once its headers are in.
const bodyTimeout = 30 * time.Second

// limitConns is the edge's listener over ln: each client (conncap.ClientKey of the TCP peer, a
// trusted proxy aside) holds at most MaxConnsPerAddr connections.
func (s *Server) limitConns(ln net.Listener) net.Listener {
	return conncap.New(ln, conncap.Options{
		Max: s.opts.MaxConnsPerAddr,
		Key: func(ip net.IP) (string, bool) {
			if conncap.Trusted(s.opts.TrustedProxies, ip) {
				return "", false
			}
			return conncap.ClientKey(ip, s.opts.IPv6Prefix), true
		},
		Refuse: s.refuseConn,
	})
}

// refuseConn answers a connection over the cap with a 429 problem.
func (s *Server) refuseConn(c net.Conn) {
	s.metrics.limited(bucketConnections)
	id := s.newRequestID()
	e := apierr.New(apierr.ErrTooManyConnections, "this address has %d connections open, the most allowed; close one or retry later", s.opts.MaxConnsPerAddr)
	e.RetryAfterS = 1
	body := problemBody(e, id)
	_, _ = io.WriteString(c, "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/problem+json\r\n"+
		"Content-Length: "+strconv.Itoa(len(body))+"\r\nRetry-After: 1\r\nX-Request-Id: "+id+"\r\nConnection: close\r\n\r\n")
	_, _ = c.Write(body)
}
