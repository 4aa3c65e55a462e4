package uitest

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/vmplane/vmplane/app/apptest"
)

// framesSent records the binary websocket frames the tab sends (base64 in the
// protocol), decoded, joined in the order sent.
type framesSent struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (f *framesSent) listen(ctx context.Context) {
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventWebSocketFrameSent); ok && e.Response.Opcode == 2 {
			b, err := base64.StdEncoding.DecodeString(e.Response.PayloadData)
			if err == nil {
				f.mu.Lock()
				f.buf.Write(b)
				f.mu.Unlock()
			}
		}
	})
}

// has is an action that waits until the frames sent hold want.
func (f *framesSent) has(what string, want []byte) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for {
			f.mu.Lock()
			ok := bytes.Contains(f.buf.Bytes(), want)
			f.mu.Unlock()
			if ok {
				return nil
			}
			// Any round trip to the browser lets its frames arrive.
			if err := chromedp.Run(ctx, chromedp.Evaluate(`new Promise((r) => setTimeout(r, 20))`, nil, awaitPromise)); err != nil {
				return fmt.Errorf("%s never sent: %w", what, err)
			}
		}
	})
}

// awaitPromise makes Evaluate wait for the promise its expression answers.
func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

// keyEvent is the RFB KeyEvent message of keysym pressed (down) or released.
func keyEvent(keysym uint32, down bool) []byte {
	d := byte(0)
	if down {
		d = 1
	}
	return []byte{4, d, 0, 0, byte(keysym >> 24), byte(keysym >> 16), byte(keysym >> 8), byte(keysym)}
}

// simPixel is the colour of the sim's display at (x, y) for a machine named name
// (hypervisor/sim/display.go draws bands in colours from the name's FNV-1a hash).
func simPixel(name string, x, y int) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	sum := h.Sum32()
	c := sum >> ((uint32(y/40+x/80) & 3) * 6)
	return fmt.Sprintf("%d,%d,%d", uint8(c), uint8(c>>8), uint8(c>>16)|0x40)
}

// TestConsoleVNC: a tenant user opens a machine's graphical console (noVNC, a chunk
// loaded then): it connects through the API's websocket to the sim's framebuffer and
// draws it on its canvas, pixel for pixel; a key typed on the screen, Ctrl+Alt+Del
// from its button and a clipboard paste go to the machine as RFB messages.
func TestConsoleVNC(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.machine("vnc-1")
	vncWalk(t, s, "/machines/"+id, "mine@example.test", userPassword, "vnc")
}

// TestConsoleVNCOperator: the same from the operator's page of the machine, signed in
// as an operator: the console's ticket comes from /api/virt/vms/{id}/console.
func TestConsoleVNCOperator(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	id := s.machine("vnc-1")
	vncWalk(t, s, "/admin/machines/"+id+"?tenant="+s.mine, apptest.AdminEmail, apptest.AdminPassword, "")
}

// vncWalk signs in as email at the machine page path (of the machine vnc-1), opens its
// graphical console and checks what it draws and sends; shotName names its
// screenshot (none when empty).
func vncWalk(t *testing.T, s *site, path, email, password, shotName string) {
	t.Helper()
	ctx := tab(t)
	var sent framesSent
	sent.listen(ctx)
	run(t, ctx, "watch the websocket", network.Enable())
	signIn(t, ctx, s.srv.Base, path, email, password)
	part := `//section[@aria-labelledby="vnc-part-title"]`
	var loaded bool
	run(t, ctx, "noVNC is not loaded before the console opens",
		chromedp.WaitVisible(`//h1[contains(., "vnc-1")]/span[normalize-space(.)="running"]`),
		chromedp.Evaluate(`performance.getEntriesByType('resource').some((e) => /\/assets\/vnc-/.test(e.name))`, &loaded),
	)
	if loaded {
		t.Error("the VNC chunk was fetched before its console opened")
	}
	// The sim's framebuffer is 640x400 in bands; two points of different bands.
	want := simPixel("vnc-1", 5, 5) + " " + simPixel("vnc-1", 100, 50)
	pixels := `(() => { const c = document.querySelector('.screen canvas');
		if (!c || c.width !== 640 || c.height !== 400) return '';
		const px = (x, y) => Array.from(c.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3)).join(',');
		return px(5, 5) + ' ' + px(100, 50); })()`
	var got string
	run(t, ctx, "open the graphical console: it connects and draws",
		// By keyboard: a click lands by coordinates, which the graphs above move as they
		// load (under -race, after the button was found).
		chromedp.Focus(part+`//button[normalize-space(.)="Open the graphical console"]`),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(part+`//span[@data-vnc-state][normalize-space(.)="Connected"]`),
		chromedp.WaitVisible(part+`//span[@data-vnc-name][normalize-space(.)="vnc-1"]`),
		chromedp.Poll(fmt.Sprintf(`%s === %q`, pixels, want), nil),
		chromedp.Evaluate(pixels, &got),
		chromedp.ScrollIntoView(part),
	)
	if shotName != "" {
		run(t, ctx, "its picture", shot(shotName))
	}
	if got != want {
		t.Fatalf("the canvas shows %s; want %s", got, want)
	}
	run(t, ctx, "a key typed on the screen goes to the machine",
		chromedp.Focus(`.screen canvas`, chromedp.ByQuery),
		chromedp.KeyEvent("q"),
		sent.has("the key q", keyEvent('q', true)),
		sent.has("the key q released", keyEvent('q', false)),
	)
	run(t, ctx, "Ctrl+Alt+Del from its button",
		chromedp.Focus(part+`//button[@data-vnc-cad]`),
		chromedp.KeyEvent(kb.Enter),
		sent.has("Ctrl+Alt+Del", bytes.Join([][]byte{keyEvent(0xffe3, true), keyEvent(0xffe9, true), keyEvent(0xffff, true)}, nil)),
	)
	run(t, ctx, "a paste to the machine's clipboard",
		chromedp.SendKeys(part+`//textarea[@name="clipboard"]`, "pasted-text"),
		chromedp.Focus(part+`//button[normalize-space(.)="Paste to the machine"]`),
		chromedp.KeyEvent(kb.Enter),
		sent.has("the clipboard", append([]byte{6, 0, 0, 0, 0, 0, 0, 11}, "pasted-text"...)),
		chromedp.WaitVisible(part+`//span[normalize-space(.)="Sent 11 characters to the machine's clipboard."]`),
		chromedp.WaitVisible(part+`//span[@data-vnc-state][normalize-space(.)="Connected"]`),
	)
}
