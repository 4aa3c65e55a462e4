// Package console is the terminal's end of a machine's serial console: it bridges
// standard input and output to the server's console websocket, with the terminal in
// raw mode and a key to detach, or, for a script, its input sent as it comes.
package console

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"golang.org/x/term"
)

// detachKey ends a console session from the terminal: Ctrl-], as in telnet, since
// every other control key belongs to the machine's console.
const detachKey = 0x1d

// linger is how long, after standard input ended (a script's input, not a
// terminal), the console's answers are still read before the session is closed.
const linger = 2 * time.Second

// Open dials the console websocket at url, whose query holds the ticket that is its
// credential, and attaches the terminal to it until the session ends.
func Open(ctx context.Context, url string, stdin io.Reader, stdout, stderr io.Writer) error {
	conn, res, err := websocket.DefaultDialer.DialContext(ctx, url, nil)
	if err != nil {
		if res != nil {
			return fmt.Errorf("opening the console: %s", res.Status)
		}
		return fmt.Errorf("opening the console: %w", err)
	}
	defer conn.Close()
	return attach(ctx, conn, stdin, stdout, stderr)
}

// attach copies the console on conn to stdout and stdin to the console until the
// console closes, the user detaches (Ctrl-], on a terminal), or, without a terminal,
// shortly after the input has ended; messages of its own go to stderr. On a terminal,
// stdin is in raw mode meanwhile, so that every key but Ctrl-] reaches the machine.
func attach(ctx context.Context, conn *websocket.Conn, stdin io.Reader, stdout, stderr io.Writer) error {
	in, tty := stdin.(*os.File)
	tty = tty && term.IsTerminal(int(in.Fd()))
	if tty {
		old, err := term.MakeRaw(int(in.Fd()))
		if err != nil {
			return err
		}
		defer term.Restore(int(in.Fd()), old) //nolint:errcheck // nothing better to do
		fmt.Fprint(stderr, "connected to the console; Ctrl-] detaches\r\n")
	}
	closed := make(chan struct{}) // the console ended: its output is all written
	go func() {
		defer close(closed)
		for {
			_, data, err := conn.ReadMessage()
			if err != nil {
				return
			}
			if _, err := stdout.Write(data); err != nil {
				return
			}
		}
	}()
	var mu sync.Mutex // one writer at a time on the websocket
	send := func(kind int, data []byte) error {
		mu.Lock()
		defer mu.Unlock()
		return conn.WriteMessage(kind, data)
	}
	inputDone := make(chan struct{})
	detached := make(chan struct{})
	go func() {
		defer close(inputDone)
		buf := make([]byte, 1024)
		for {
			n, err := stdin.Read(buf)
			if n > 0 {
				chunk := buf[:n]
				if tty {
					if i := strings.IndexByte(string(chunk), detachKey); i >= 0 {
						if i > 0 {
							_ = send(websocket.BinaryMessage, chunk[:i])
						}
						close(detached)
						return
					}
				}
				if send(websocket.BinaryMessage, chunk) != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	bye := func() {
		mu.Lock()
		_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		mu.Unlock()
		select { // the server answers the close; do not wait for long
		case <-closed:
		case <-time.After(time.Second):
		}
	}
	select {
	case <-closed:
	case <-detached:
		bye()
		fmt.Fprint(stderr, "\r\ndetached from the console\r\n")
	case <-inputDone:
		if tty {
			bye()
			break
		}
		select {
		case <-closed:
		case <-time.After(linger):
			bye()
		case <-ctx.Done():
			bye()
		}
	case <-ctx.Done():
		bye()
	}
	return nil
}
