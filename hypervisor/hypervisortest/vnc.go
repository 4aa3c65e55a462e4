package hypervisortest

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/vmplane/vmplane/hypervisor/rfb"
)

// ServerInit is the server's first message after the handshake.
type ServerInit struct {
	Width, Height uint16
	Format        rfb.PixelFormat
	Name          string
}

// ClientInit sends ClientInit (shared) and reads the ServerInit.
func ClientInit(rw io.ReadWriter) (ServerInit, error) {
	if _, err := rw.Write([]byte{1}); err != nil {
		return ServerInit{}, err
	}
	var b [24]byte
	if _, err := io.ReadFull(rw, b[:]); err != nil {
		return ServerInit{}, err
	}
	l := binary.BigEndian.Uint32(b[20:])
	if l > 4096 {
		return ServerInit{}, fmt.Errorf("rfb: a desktop name of %d bytes", l)
	}
	name := make([]byte, l)
	if _, err := io.ReadFull(rw, name); err != nil {
		return ServerInit{}, err
	}
	return ServerInit{Width: binary.BigEndian.Uint16(b[0:]), Height: binary.BigEndian.Uint16(b[2:]),
		Format: rfb.ParsePixelFormat(b[4:20]), Name: string(name)}, nil
}

// Rect is one rectangle of a framebuffer update, its pixels raw in the connection's
// pixel format.
type Rect struct {
	X, Y, Width, Height uint16
	Encoding            int32
	Pixels              []byte
}

// RequestUpdate sends a FramebufferUpdateRequest for the whole framebuffer.
func RequestUpdate(w io.Writer, incremental bool, width, height uint16) error {
	b := make([]byte, 10)
	b[0] = 3 // FramebufferUpdateRequest
	if incremental {
		b[1] = 1
	}
	binary.BigEndian.PutUint16(b[6:], width)
	binary.BigEndian.PutUint16(b[8:], height)
	_, err := w.Write(b)
	return err
}

// ReadUpdate reads one FramebufferUpdate of raw rectangles in format f.
func ReadUpdate(r io.Reader, f rfb.PixelFormat) ([]Rect, error) {
	var h [4]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	if h[0] != 0 {
		return nil, fmt.Errorf("rfb: message type %d, not a FramebufferUpdate", h[0])
	}
	rects := make([]Rect, binary.BigEndian.Uint16(h[2:]))
	for i := range rects {
		var rh [12]byte
		if _, err := io.ReadFull(r, rh[:]); err != nil {
			return nil, err
		}
		rc := Rect{X: binary.BigEndian.Uint16(rh[0:]), Y: binary.BigEndian.Uint16(rh[2:]), Width: binary.BigEndian.Uint16(rh[4:]),
			Height: binary.BigEndian.Uint16(rh[6:]), Encoding: int32(binary.BigEndian.Uint32(rh[8:]))}
		if rc.Encoding != 0 {
			return nil, fmt.Errorf("rfb: encoding %d, not raw", rc.Encoding)
		}
		rc.Pixels = make([]byte, int(rc.Width)*int(rc.Height)*int(f.BitsPerPixel/8))
		if _, err := io.ReadFull(r, rc.Pixels); err != nil {
			return nil, err
		}
		rects[i] = rc
	}
	return rects, nil
}

// VNCSession runs what noVNC does first on rw, a graphical console: the handshake
// (security None when password is "", VNC authentication otherwise), ClientInit, and
// one full FramebufferUpdateRequest, whose update it returns with the ServerInit.
func VNCSession(rw io.ReadWriter, password string) (ServerInit, []Rect, error) {
	if err := rfb.ClientHandshake(rw, password); err != nil {
		return ServerInit{}, nil, err
	}
	si, err := ClientInit(rw)
	if err != nil {
		return si, nil, err
	}
	if err := RequestUpdate(rw, false, si.Width, si.Height); err != nil {
		return si, nil, err
	}
	rects, err := ReadUpdate(rw, si.Format)
	return si, rects, err
}
