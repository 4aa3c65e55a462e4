package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/vmplane/vmplane/client/webhook"
)

// TestVerify: a signature made as the server makes it verifies; another
// secret, another body or an old time does not (ErrSignature).
func TestVerify(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":1}`)
	const sig = "t=1800000000,v1=6d9e3a28b1a3b1a6f4c1b4c9e6d35e1f0c5b0b5f3f0e0a2b9d6f5c1e6a0d8b7c" // made up
	good := signFor("k", now, body)
	if err := webhook.Verify("k", good, body, time.Minute, now); err != nil {
		t.Fatalf("good signature: %v", err)
	}
	for name, c := range map[string]struct {
		secret, header string
		body           []byte
		at             time.Time
	}{
		"another secret": {"other", good, body, now},
		"another body":   {"k", good, []byte(`{"id":2}`), now},
		"too old":        {"k", good, body, now.Add(time.Hour)},
		"made up":        {"k", sig, body, now},
		"no header":      {"k", "", body, now},
	} {
		if err := webhook.Verify(c.secret, c.header, c.body, time.Minute, c.at); !errors.Is(err, webhook.ErrSignature) {
			t.Errorf("%s: %v; want ErrSignature", name, err)
		}
	}
}

// signFor signs body at t as the server does, computed here on its own.
func signFor(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + string(body)))
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}
