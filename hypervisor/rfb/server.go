package rfb

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"io"
)

// Server is a tiny RFB server of a fixed framebuffer: enough for noVNC to connect and
// draw. It answers a full FramebufferUpdateRequest with one raw rectangle, leaves
// incremental ones unanswered (nothing changes), and reads past key, pointer and
// clipboard events.
type Server struct {
	Width, Height uint16
	Name          string
	// Password, when set, is what VNC authentication checks; "" offers None.
	Password string
	// Pixel is the colour of one pixel.
	Pixel func(x, y int) (r, g, b uint8)
}

// Serve runs one session on rw until the client goes or breaks the protocol.
func (s Server) Serve(rw io.ReadWriter) error {
	if _, err := io.WriteString(rw, Version); err != nil {
		return err
	}
	var ver [12]byte
	if _, err := io.ReadFull(rw, ver[:]); err != nil {
		return err
	}
	if string(ver[:]) != Version {
		return fmt.Errorf("rfb: the client speaks %q", ver[:])
	}
	sec := byte(SecNone)
	if s.Password != "" {
		sec = SecVNCAuth
	}
	if _, err := rw.Write([]byte{1, sec}); err != nil {
		return err
	}
	var choice [1]byte
	if _, err := io.ReadFull(rw, choice[:]); err != nil {
		return err
	}
	if choice[0] != sec {
		return failSecurity(rw, "unsupported security type")
	}
	if sec == SecVNCAuth {
		challenge := make([]byte, 16)
		_, _ = rand.Read(challenge)
		if _, err := rw.Write(challenge); err != nil {
			return err
		}
		var resp [16]byte
		if _, err := io.ReadFull(rw, resp[:]); err != nil {
			return err
		}
		want, err := VNCAuthResponse(s.Password, challenge)
		if err != nil {
			return err
		}
		if subtle.ConstantTimeCompare(want, resp[:]) != 1 {
			return failSecurity(rw, "authentication failed")
		}
	}
	if _, err := rw.Write([]byte{0, 0, 0, 0}); err != nil {
		return err
	}
	var shared [1]byte
	if _, err := io.ReadFull(rw, shared[:]); err != nil {
		return err
	}
	init := make([]byte, 24, 24+len(s.Name))
	binary.BigEndian.PutUint16(init[0:], s.Width)
	binary.BigEndian.PutUint16(init[2:], s.Height)
	copy(init[4:], DefaultPixelFormat.Bytes())
	binary.BigEndian.PutUint32(init[20:], uint32(len(s.Name)))
	if _, err := rw.Write(append(init, s.Name...)); err != nil {
		return err
	}
	return s.messages(rw)
}

// failSecurity sends a failed SecurityResult with its reason.
func failSecurity(w io.Writer, reason string) error {
	b := []byte{0, 0, 0, 1, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[4:], uint32(len(reason)))
	_, _ = w.Write(append(b, reason...))
	return fmt.Errorf("%w: %s", ErrAuth, reason)
}

// messages reads the client's messages and answers update requests.
func (s Server) messages(rw io.ReadWriter) error {
	f := DefaultPixelFormat
	var t [1]byte
	for {
		if _, err := io.ReadFull(rw, t[:]); err != nil {
			return err
		}
		switch t[0] {
		case msgSetPixelFormat:
			var b [19]byte
			if _, err := io.ReadFull(rw, b[:]); err != nil {
				return err
			}
			nf := ParsePixelFormat(b[3:])
			if !nf.TrueColour || (nf.BitsPerPixel != 8 && nf.BitsPerPixel != 16 && nf.BitsPerPixel != 32) {
				return fmt.Errorf("rfb: pixel format %+v is not served", nf)
			}
			f = nf
		case msgSetEncodings:
			var b [3]byte
			if _, err := io.ReadFull(rw, b[:]); err != nil {
				return err
			}
			if _, err := io.CopyN(io.Discard, rw, 4*int64(binary.BigEndian.Uint16(b[1:]))); err != nil {
				return err
			}
		case msgFramebufferUpdateRequest:
			var b [9]byte
			if _, err := io.ReadFull(rw, b[:]); err != nil {
				return err
			}
			if b[0] != 0 {
				continue // incremental: the framebuffer never changes
			}
			if _, err := rw.Write(s.update(f)); err != nil {
				return err
			}
		case msgKeyEvent:
			if _, err := io.CopyN(io.Discard, rw, 7); err != nil {
				return err
			}
		case msgPointerEvent:
			if _, err := io.CopyN(io.Discard, rw, 5); err != nil {
				return err
			}
		case msgClientCutText:
			var b [7]byte
			if _, err := io.ReadFull(rw, b[:]); err != nil {
				return err
			}
			n := binary.BigEndian.Uint32(b[3:])
			if n > maxCutText {
				return fmt.Errorf("rfb: a clipboard of %d bytes", n)
			}
			if _, err := io.CopyN(io.Discard, rw, int64(n)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("rfb: unknown client message %d", t[0])
		}
	}
}

// update is a FramebufferUpdate of the whole framebuffer as one raw rectangle.
func (s Server) update(f PixelFormat) []byte {
	bpp := int(f.BitsPerPixel / 8)
	w, h := int(s.Width), int(s.Height)
	b := make([]byte, 16, 16+w*h*bpp)
	b[0] = 0
	binary.BigEndian.PutUint16(b[2:], 1)
	binary.BigEndian.PutUint16(b[8:], s.Width)
	binary.BigEndian.PutUint16(b[10:], s.Height)
	// encoding 0: raw (b[12:16] stays zero)
	px := make([]byte, 4)
	for y := range h {
		for x := range w {
			r, g, bl := s.Pixel(x, y)
			v := uint32(r)*uint32(f.RedMax)/255<<f.RedShift |
				uint32(g)*uint32(f.GreenMax)/255<<f.GreenShift |
				uint32(bl)*uint32(f.BlueMax)/255<<f.BlueShift
			switch {
			case bpp == 1:
				px[0] = byte(v)
			case bpp == 2 && f.BigEndian:
				binary.BigEndian.PutUint16(px, uint16(v))
			case bpp == 2:
				binary.LittleEndian.PutUint16(px, uint16(v))
			case f.BigEndian:
				binary.BigEndian.PutUint32(px, v)
			default:
				binary.LittleEndian.PutUint32(px, v)
			}
			b = append(b, px[:bpp]...)
		}
	}
	return b
}
