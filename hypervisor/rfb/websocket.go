package rfb

import (
	"io"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
)

// Stream is a websocket as a byte stream, as RFB over a websocket is (noVNC's and
// Proxmox's vncwebsocket, subprotocol "binary"): each Write is one binary message, Read
// returns the bytes of the messages in order.
type Stream struct {
	conn    *websocket.Conn
	rmu     sync.Mutex
	wmu     sync.Mutex
	pending []byte
	once    sync.Once
}

// NewStream wraps conn.
func NewStream(conn *websocket.Conn) *Stream { return &Stream{conn: conn} }

// Read returns the bytes of the next messages; io.EOF once the socket is closed.
func (s *Stream) Read(p []byte) (int, error) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	for len(s.pending) == 0 {
		_, msg, err := s.conn.ReadMessage()
		if err != nil {
			return 0, io.EOF
		}
		s.pending = msg
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// Write sends p as one binary message.
func (s *Stream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.conn.WriteMessage(websocket.BinaryMessage, p); err != nil {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

// Close says goodbye and closes the socket; it may be called more than once.
func (s *Stream) Close() error {
	s.once.Do(func() {
		_ = s.conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		s.conn.Close()
	})
	return nil
}
