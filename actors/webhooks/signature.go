package webhooks

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strconv"
	"time"
)

// Headers of a delivery.
const (
	// SignatureHeader carries "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>"
	// keyed with the webhook's secret>" (Stripe's scheme): a receiver recomputes it,
	// compares in constant time, and refuses a t too far from its clock (replays).
	SignatureHeader = "Vmplane-Signature"
	// EventIDHeader is the event's id, the same for every attempt and redelivery:
	// receivers dedupe by it.
	EventIDHeader = "Vmplane-Event-Id"
	// EventTypeHeader is the event's type.
	EventTypeHeader = "Vmplane-Event-Type"
	// WebhookHeader names the webhook the delivery is for.
	WebhookHeader = "Vmplane-Webhook-Id"
)

// Sign returns the Vmplane-Signature header's value for body sent at t.
func Sign(secret string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

func mac(secret, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func readSome(r io.Reader, n int64) (int64, error) { return io.Copy(io.Discard, io.LimitReader(r, n)) }
