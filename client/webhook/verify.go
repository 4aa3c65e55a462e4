// Package webhook is the receiver's side of vmplane's webhooks: the headers of a
// delivery and the check of its signature. It is package client's VerifyWebhook,
// apart, so that a program that only receives deliveries needs nothing else of the
// client; like the client, it uses the standard library only.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Headers of a delivery.
const (
	// SignatureHeader is "t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">"
	// keyed with the webhook's secret: check it with Verify.
	SignatureHeader = "Vmplane-Signature"
	// EventIDHeader is the event's id, the same on every attempt and redelivery:
	// receivers dedupe by it.
	EventIDHeader = "Vmplane-Event-Id"
)

// ErrSignature is Verify's error: the signature is missing, wrong, or
// too old.
var ErrSignature = errors.New("webhook signature does not verify")

// Verify checks a delivery as its receiver gets it: header is the
// Vmplane-Signature header, body the request's body as received. The signature
// must be the HMAC-SHA256 of "<t>.<body>" with secret, and t within tolerance of now
// (a replayed old request fails).
func Verify(secret, header string, body []byte, tolerance time.Duration, now time.Time) error {
	var ts string
	var sigs [][]byte
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			if b, err := hex.DecodeString(v); err == nil {
				sigs = append(sigs, b)
			}
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return ErrSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ErrSignature
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	for _, s := range sigs {
		if hmac.Equal(s, want) {
			return nil
		}
	}
	return ErrSignature
}
