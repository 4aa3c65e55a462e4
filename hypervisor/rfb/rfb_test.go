package rfb_test

import (
	"bytes"
	"errors"
	"net"
	"testing"

	"github.com/vmplane/vmplane/hypervisor/hypervisortest"
	"github.com/vmplane/vmplane/hypervisor/rfb"
)

func stripes(x, _ int) (uint8, uint8, uint8) { return uint8(x * 40), 0x20, 0xff }

// serve runs srv on one end of a pipe and answers the other, and the server's end.
// The channel gets the server's error once; the cleanup waits for the server's end.
func serve(t *testing.T, srv rfb.Server) (net.Conn, <-chan error) {
	t.Helper()
	a, b := net.Pipe()
	done := make(chan error, 1)
	ended := make(chan struct{})
	go func() { defer close(ended); done <- srv.Serve(b); b.Close() }()
	t.Cleanup(func() { a.Close(); <-ended })
	return a, done
}

func TestServerWithNone(t *testing.T) {
	c, _ := serve(t, rfb.Server{Width: 4, Height: 2, Name: "web1", Pixel: stripes})
	si, rects, err := hypervisortest.VNCSession(c, "")
	if err != nil {
		t.Fatal(err)
	}
	if si.Width != 4 || si.Height != 2 || si.Name != "web1" || si.Format != rfb.DefaultPixelFormat {
		t.Fatalf("ServerInit %+v", si)
	}
	if len(rects) != 1 || rects[0].Width != 4 || len(rects[0].Pixels) != 4*2*4 {
		t.Fatalf("update %+v", rects)
	}
	// Pixel (1, 0) in 32 bits little endian, red at shift 16: B G R 0.
	if got := rects[0].Pixels[4:8]; !bytes.Equal(got, []byte{0xff, 0x20, 40, 0}) {
		t.Fatalf("pixel (1,0) = % x", got)
	}
}

func TestVNCAuthentication(t *testing.T) {
	c, _ := serve(t, rfb.Server{Width: 2, Height: 2, Password: "PVEVNC:1234", Pixel: stripes})
	if _, _, err := hypervisortest.VNCSession(c, "PVEVNC:1234"); err != nil {
		t.Fatal(err)
	}
	c, done := serve(t, rfb.Server{Width: 2, Height: 2, Password: "PVEVNC:1234", Pixel: stripes})
	if err := rfb.ClientHandshake(c, "PVEVNC:9999"); !errors.Is(err, rfb.ErrAuth) {
		t.Fatalf("a wrong password: %v, want ErrAuth", err)
	}
	if err := <-done; !errors.Is(err, rfb.ErrAuth) {
		t.Fatalf("server: %v", err)
	}
}

// The DES key of VNC authentication is the password with each byte's bits reversed:
// the response to a zero challenge with password "\x01" equals DES with key 0x80 00...
// (checked against the standard library directly, so a plain key would fail).
func TestVNCAuthKeyIsBitReversed(t *testing.T) {
	a, err := rfb.VNCAuthResponse("\x01", make([]byte, 16))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := rfb.VNCAuthResponse("\x80", make([]byte, 16))
	if bytes.Equal(a, b) {
		t.Fatal("keys 0x01 and 0x80 answer alike")
	}
	// "\x80" reversed is "\x01", whose DES parity bit is ignored: same as an empty key.
	c, _ := rfb.VNCAuthResponse("", make([]byte, 16))
	if !bytes.Equal(b, c) {
		t.Fatal("key 0x80 reversed is 0x01, which DES reads as 0x00 (parity bit): want the empty key's answer")
	}
}

// NoneFront offers the browser None while the upstream was authenticated with VNC
// authentication: the client never needs the password.
func TestNoneFront(t *testing.T) {
	up, _ := serve(t, rfb.Server{Width: 3, Height: 1, Name: "vm", Password: "secret-ticket", Pixel: stripes})
	if err := rfb.ClientHandshake(up, "secret-ticket"); err != nil {
		t.Fatal(err)
	}
	front := rfb.NoneFront(up)
	defer front.Close()
	si, rects, err := hypervisortest.VNCSession(front, "")
	if err != nil {
		t.Fatal(err)
	}
	if si.Name != "vm" || len(rects) != 1 || rects[0].Width != 3 {
		t.Fatalf("through the front: %+v %+v", si, rects)
	}
}

func TestNoneFrontRefusesOtherSecurity(t *testing.T) {
	up, _ := serve(t, rfb.Server{Width: 1, Height: 1, Pixel: stripes})
	if err := rfb.ClientHandshake(up, ""); err != nil {
		t.Fatal(err)
	}
	front := rfb.NoneFront(up)
	defer front.Close()
	if err := rfb.ClientHandshake(front, "a password"); err == nil {
		t.Fatal("VNC authentication through the front: want an error, it offers None only")
	}
}
