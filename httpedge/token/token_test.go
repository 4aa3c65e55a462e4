package token

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

func TestIssueVerify(t *testing.T) {
	k, err := New(testKey, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tenant := "t1"
	raw, err := k.Issue("u1", "u@example.test", "user", &tenant)
	if err != nil {
		t.Fatal(err)
	}
	c, err := k.Verify([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if c.UserID() != "u1" || c.Role != "user" || c.TenantID == nil || *c.TenantID != "t1" || c.Email != "u@example.test" {
		t.Fatalf("got %+v; want the issued claims", c)
	}
	if _, err := New([]byte("short"), time.Minute); err == nil {
		t.Fatal("got a keeper for a 5-byte key; want an error")
	}
}

func TestVerifyRefuses(t *testing.T) {
	k, _ := New(testKey, time.Minute)
	good, _ := k.Issue("u1", "", "admin", nil)
	expiredK, _ := New(testKey, -time.Second)
	expired, _ := expiredK.Issue("u1", "", "admin", nil)
	otherK, _ := New([]byte("ffffffffffffffffffffffffffffffff"), time.Minute)
	forged, _ := otherK.Issue("u1", "", "admin", nil)
	parts := strings.Split(good, ".")
	for name, raw := range map[string]string{
		"expired":   expired,
		"forged":    forged,
		"alg none":  "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + parts[1] + ".",
		"truncated": parts[0] + "." + parts[1],
		"garbage":   "garbage",
		"empty":     "",
	} {
		if _, err := k.Verify([]byte(raw)); !errors.Is(err, apierr.ErrUnauthorized) {
			t.Errorf("%s: got %v; want unauthorized", name, err)
		}
	}
}

func BenchmarkVerify(b *testing.B) {
	k, _ := New(testKey, time.Hour)
	tenant := "01JTENANT0000000000000000"
	raw, _ := k.Issue("01JUSER00000000000000000000", "user@example.test", "user", &tenant)
	tok := []byte(raw)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := k.Verify(tok); err != nil {
				b.Fatal(err)
			}
		}
	})
}
