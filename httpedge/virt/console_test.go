package virt

import "testing"

func TestWebsocketBase(t *testing.T) {
	t.Parallel()
	for public, want := range map[string]string{
		"":                            "",
		"https://panel.example.com/":  "wss://panel.example.com",
		"http://10.0.0.1:8080":        "ws://10.0.0.1:8080",
		"https://example.com/vmplane": "wss://example.com/vmplane",
	} {
		if got := websocketBase(public); got != want {
			t.Errorf("websocketBase(%q): got %q; want %q", public, got, want)
		}
	}
}
