package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/vmplane/vmplane/client"
)

// detachKey ends a console session from the terminal: Ctrl-], as in telnet, since
// every other control key belongs to the machine's console.
const detachKey = 0x1d

// consoleLinger is how long, after standard input ended (a script's input, not a
// terminal), the console's answers are still read before the session is closed.
const consoleLinger = 2 * time.Second

func (a *app) machineConsoleCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "console ID",
		Short: "attach the terminal to a machine's serial console; Ctrl-] detaches",
		Long: `Attach the terminal to a running machine's serial console, through the server's
console websocket. On a terminal, keys go to the machine as typed (raw mode) and
Ctrl-] detaches. Without a terminal, standard input is sent as it comes and the
session ends when the console closes (exit, say) or shortly after the input ends, so
that a script can run: printf 'hostname\nexit\n' | vmplane machine console ID`,
		Args: args(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.client()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			mc, ok, err := a.clientArea(ctx, c, args[0])
			if err != nil {
				return err
			}
			var ticket *client.Console
			if ok {
				ticket, err = mc.MachineConsole(ctx, args[0])
			} else {
				ticket, err = c.ConsoleTicket(ctx, args[0])
			}
			if err != nil {
				return err
			}
			// The ticket in the URL's query is the credential: the websocket
			// needs no bearer token.
			wsURL := c.ConsoleURL(ticket)
			conn, res, err := websocket.DefaultDialer.DialContext(ctx, wsURL, nil)
			if err != nil {
				if res != nil {
					return fmt.Errorf("opening the console: %s", res.Status)
				}
				return fmt.Errorf("opening the console: %w", err)
			}
			defer conn.Close()
			return a.attach(ctx, conn)
		},
	}
}

// attach copies the console to stdout and stdin to the console until the console
// closes, the user detaches, or (without a terminal) the input has ended.
func (a *app) attach(ctx context.Context, conn *websocket.Conn) error {
	in, tty := a.env.Stdin.(*os.File)
	tty = tty && term.IsTerminal(int(in.Fd()))
	if tty {
		old, err := term.MakeRaw(int(in.Fd()))
		if err != nil {
			return err
		}
		defer term.Restore(int(in.Fd()), old) //nolint:errcheck // nothing better to do
		fmt.Fprint(a.env.Stderr, "connected to the console; Ctrl-] detaches\r\n")
	}
	closed := make(chan struct{}) // the console ended: its output is all written
	go func() {
		defer close(closed)
		for {
			_, data, err := conn.ReadMessage()
			if err != nil {
				return
			}
			if _, err := a.env.Stdout.Write(data); err != nil {
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
			n, err := a.env.Stdin.Read(buf)
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
		fmt.Fprint(a.env.Stderr, "\r\ndetached from the console\r\n")
	case <-inputDone:
		if tty {
			bye()
			break
		}
		select {
		case <-closed:
		case <-time.After(consoleLinger):
			bye()
		case <-ctx.Done():
			bye()
		}
	case <-ctx.Done():
		bye()
	}
	return nil
}
