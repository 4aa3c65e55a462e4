// Package rfb holds the little of the RFB protocol (RFC 6143, version 3.8) that
// vmplane's graphical consoles need: the handshake on both sides (VNC authentication
// with its DES challenge, and security None), a tiny server that shows a fixed
// framebuffer (the sim's display, the fake Proxmox's), and the front a driver puts
// before a hypervisor's VNC server so that the browser is offered None and never sees
// the hypervisor's password.
package rfb

import (
	"crypto/des"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol version both sides speak.
const Version = "RFB 003.008\n"

// Security types (RFC 6143 7.1.2).
const (
	SecNone    = 1
	SecVNCAuth = 2
)

// Client-to-server message types (RFC 6143 7.5).
const (
	msgSetPixelFormat           = 0
	msgSetEncodings             = 2
	msgFramebufferUpdateRequest = 3
	msgKeyEvent                 = 4
	msgPointerEvent             = 5
	msgClientCutText            = 6
)

// maxCutText bounds a ClientCutText the server reads past.
const maxCutText = 1 << 20

// VNCAuthResponse answers a VNC authentication challenge (16 bytes) with password:
// the challenge encrypted with DES in ECB mode, keyed by the password's first 8 bytes
// (zero padded) with the bits of each byte reversed, as every VNC implementation does.
func VNCAuthResponse(password string, challenge []byte) ([]byte, error) {
	if len(challenge) != 16 {
		return nil, fmt.Errorf("rfb: a VNC challenge has 16 bytes, not %d", len(challenge))
	}
	var key [8]byte
	copy(key[:], password)
	for i, b := range key {
		var r byte
		for j := range 8 {
			if b&(1<<j) != 0 {
				r |= 0x80 >> j
			}
		}
		key[i] = r
	}
	block, err := des.NewCipher(key[:])
	if err != nil {
		return nil, err
	}
	out := make([]byte, 16)
	block.Encrypt(out[:8], challenge[:8])
	block.Encrypt(out[8:], challenge[8:])
	return out, nil
}

// ErrAuth is the server's refusal of the client's authentication.
var ErrAuth = errors.New("rfb: authentication failed")

// ClientHandshake runs the client's side of the handshake up to the SecurityResult:
// version 3.8, then VNC authentication with password, or None when password is "" and
// the server offers it. ClientInit is left to the caller.
func ClientHandshake(rw io.ReadWriter, password string) error {
	var ver [12]byte
	if _, err := io.ReadFull(rw, ver[:]); err != nil {
		return err
	}
	if string(ver[:4]) != "RFB " {
		return fmt.Errorf("rfb: not an RFB server (%q)", ver[:])
	}
	if _, err := io.WriteString(rw, Version); err != nil {
		return err
	}
	var n [1]byte
	if _, err := io.ReadFull(rw, n[:]); err != nil {
		return err
	}
	if n[0] == 0 {
		return fmt.Errorf("rfb: the server refused the connection: %s", readReason(rw))
	}
	types := make([]byte, n[0])
	if _, err := io.ReadFull(rw, types); err != nil {
		return err
	}
	want := byte(SecVNCAuth)
	if password == "" {
		want = SecNone
	}
	found := false
	for _, t := range types {
		found = found || t == want
	}
	if !found {
		return fmt.Errorf("rfb: the server offers security types %v, not %d", types, want)
	}
	if _, err := rw.Write([]byte{want}); err != nil {
		return err
	}
	if want == SecVNCAuth {
		var challenge [16]byte
		if _, err := io.ReadFull(rw, challenge[:]); err != nil {
			return err
		}
		resp, err := VNCAuthResponse(password, challenge[:])
		if err != nil {
			return err
		}
		if _, err := rw.Write(resp); err != nil {
			return err
		}
	}
	var result [4]byte
	if _, err := io.ReadFull(rw, result[:]); err != nil {
		return err
	}
	if binary.BigEndian.Uint32(result[:]) != 0 {
		return fmt.Errorf("%w: %s", ErrAuth, readReason(rw))
	}
	return nil
}

// readReason reads a failure reason (a length, then text), or answers "" on error.
func readReason(r io.Reader) string {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return ""
	}
	l := min(binary.BigEndian.Uint32(n[:]), 1024)
	b := make([]byte, l)
	if _, err := io.ReadFull(r, b); err != nil {
		return ""
	}
	return string(b)
}

// PixelFormat is the format of the pixels of a framebuffer update (RFC 6143 7.4).
type PixelFormat struct {
	BitsPerPixel, Depth             uint8
	BigEndian, TrueColour           bool
	RedMax, GreenMax, BlueMax       uint16
	RedShift, GreenShift, BlueShift uint8
}

// DefaultPixelFormat is 32 bits per pixel, depth 24, little endian, true colour: what
// QEMU and noVNC use.
var DefaultPixelFormat = PixelFormat{BitsPerPixel: 32, Depth: 24, TrueColour: true,
	RedMax: 255, GreenMax: 255, BlueMax: 255, RedShift: 16, GreenShift: 8, BlueShift: 0}

// Bytes is the format as the protocol writes it (16 bytes).
func (f PixelFormat) Bytes() []byte {
	b := make([]byte, 16)
	b[0], b[1] = f.BitsPerPixel, f.Depth
	if f.BigEndian {
		b[2] = 1
	}
	if f.TrueColour {
		b[3] = 1
	}
	binary.BigEndian.PutUint16(b[4:], f.RedMax)
	binary.BigEndian.PutUint16(b[6:], f.GreenMax)
	binary.BigEndian.PutUint16(b[8:], f.BlueMax)
	b[10], b[11], b[12] = f.RedShift, f.GreenShift, f.BlueShift
	return b
}

// ParsePixelFormat reads a format as the protocol writes it (16 bytes).
func ParsePixelFormat(b []byte) PixelFormat {
	return PixelFormat{BitsPerPixel: b[0], Depth: b[1], BigEndian: b[2] != 0, TrueColour: b[3] != 0,
		RedMax: binary.BigEndian.Uint16(b[4:]), GreenMax: binary.BigEndian.Uint16(b[6:]), BlueMax: binary.BigEndian.Uint16(b[8:]),
		RedShift: b[10], GreenShift: b[11], BlueShift: b[12]}
}
