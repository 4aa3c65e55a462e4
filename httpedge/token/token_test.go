package token

import (
	"errors"
	"strconv"
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

// TestVerifyCacheKeepsExpiry: a token verified once is remembered, but the expiry is
// still enforced on every later use, and the cache stays bounded.
func TestVerifyCacheKeepsExpiry(t *testing.T) {
	k, _ := New(testKey, time.Minute)
	now := time.Now()
	k.now = func() time.Time { return now }
	raw, _ := k.Issue("u1", "", "user", nil)
	first, err := k.Verify([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if again, err := k.Verify([]byte(raw)); err != nil || again != first {
		t.Fatalf("got %p, %v on the second use; want the remembered claims %p", again, err, first)
	}
	// One byte of the signature changed is another token: verified from scratch, refused.
	forged := []byte(raw)
	forged[len(forged)-2] ^= 1
	if _, err := k.Verify(forged); !errors.Is(err, apierr.ErrUnauthorized) {
		t.Fatalf("got %v for a changed signature; want unauthorized", err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := k.Verify([]byte(raw)); !errors.Is(err, apierr.ErrUnauthorized) {
		t.Fatalf("got %v for a remembered token past its expiry; want unauthorized", err)
	}
	for i := range maxVerified + 10 {
		tok, _ := k.Issue(strconv.Itoa(i), "", "user", nil)
		if _, err := k.Verify([]byte(tok)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(k.verified); n > maxVerified {
		t.Fatalf("the cache holds %d tokens; want at most %d", n, maxVerified)
	}
}

// BenchmarkVerifyUncached is a full verification: JWT parse, signature, claims JSON.
func BenchmarkVerifyUncached(b *testing.B) { benchVerify(b, (*Keeper).verify) }

// BenchmarkVerify is a client's repeated use of one token, as the edge sees it.
func BenchmarkVerify(b *testing.B) { benchVerify(b, (*Keeper).Verify) }

func benchVerify(b *testing.B, verify func(*Keeper, []byte) (*Claims, error)) {
	k, _ := New(testKey, time.Hour)
	tenant := "01JTENANT0000000000000000"
	raw, _ := k.Issue("01JUSER00000000000000000000", "user@example.test", "user", &tenant)
	tok := []byte(raw)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := verify(k, tok); err != nil {
				b.Fatal(err)
			}
		}
	})
}
