package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vmplane/vmplane/apierr"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

var admin = Claims{Subject: "u1", Role: "admin", SessionID: "s1"}

func TestIssueVerify(t *testing.T) {
	k, err := New(testKey, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tenant := "t1"
	raw, err := k.Issue(Claims{Subject: "u1", Email: "u@example.test", Role: "user", TenantID: &tenant, SessionID: "s1", Gen: 7})
	if err != nil {
		t.Fatal(err)
	}
	c, err := k.Verify([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if c.UserID() != "u1" || c.Role != "user" || c.TenantID == nil || *c.TenantID != "t1" || c.Email != "u@example.test" ||
		c.SessionID != "s1" || c.Gen != 7 || c.ExpiresAt.IsZero() || c.IssuedAt.IsZero() {
		t.Fatalf("got %+v; want the issued claims", c)
	}
	if _, err := New([]byte("short"), time.Minute); err == nil {
		t.Fatal("got a keeper for a 5-byte key; want an error")
	}
}

func TestVerifyRefuses(t *testing.T) {
	k, _ := New(testKey, time.Minute)
	good, _ := k.Issue(admin)
	expiredK, _ := New(testKey, -time.Second)
	expired, _ := expiredK.Issue(admin)
	otherK, _ := New([]byte("ffffffffffffffffffffffffffffffff"), time.Minute)
	forged, _ := otherK.Issue(admin)
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

// signed is a token of header and claims, both given as raw JSON, correctly signed
// with testKey: whatever it holds, its signature is good.
func signed(header, claims string) string {
	b64 := base64.RawURLEncoding.EncodeToString
	payload := b64([]byte(header)) + "." + b64([]byte(claims))
	mac := hmac.New(sha256.New, testKey)
	mac.Write([]byte(payload))
	return payload + "." + b64(mac.Sum(nil))
}

// TestVerifyRefusesMalformedClaims: a correctly signed token is still refused when a
// claim has the wrong JSON type, a required one is missing, its time window does not
// hold, or its header is not exactly the one vmplane signs (RFC 8725).
func TestVerifyRefusesMalformedClaims(t *testing.T) {
	k, _ := New(testKey, time.Minute)
	now := time.Unix(1_800_000_000, 0)
	k.now = func() time.Time { return now }
	const hdr = `{"alg":"HS256","typ":"JWT"}`
	// claims builds a claims set from the good one: each override replaces a member's
	// raw JSON, or removes it when the value is "".
	claims := func(overrides ...string) string {
		m := map[string]string{
			"iss": `"vmplane"`, "aud": `["vmplane"]`, "sub": `"u1"`, "iat": `1800000000`,
			"exp": `1800000060`, "role": `"user"`, "tenant_id": `"t1"`, "email": `"u@example.test"`,
			"sid": `"s1"`, "gen": `3`,
		}
		for i := 0; i < len(overrides); i += 2 {
			if overrides[i+1] == "" {
				delete(m, overrides[i])
			} else {
				m[overrides[i]] = overrides[i+1]
			}
		}
		var b strings.Builder
		b.WriteString("{")
		for name, v := range m {
			if b.Len() > 1 {
				b.WriteString(",")
			}
			b.WriteString(strconv.Quote(name) + ":" + v)
		}
		b.WriteString("}")
		return b.String()
	}
	// The good token and its variants that stay good: the table below only fails for
	// the change it makes.
	for name, tok := range map[string]string{
		"good":              signed(hdr, claims()),
		"aud string":        signed(hdr, claims("aud", `"vmplane"`)),
		"aud among others":  signed(hdr, claims("aud", `["other","vmplane"]`)),
		"no iat":            signed(hdr, claims("iat", "")),
		"fractional exp":    signed(hdr, claims("exp", `1800000060.5`)),
		"nbf now":           signed(hdr, claims("nbf", `1800000000`)),
		"iat within leeway": signed(hdr, claims("iat", `1800000004`)),
		"no tenant":         signed(hdr, claims("tenant_id", `null`)),
		"tenant absent":     signed(hdr, claims("tenant_id", "")),
		"no email":          signed(hdr, claims("email", "")),
		"jti":               signed(hdr, claims("jti", `"j1"`)),
	} {
		if _, err := k.verify([]byte(tok)); err != nil {
			t.Errorf("%s: got %v; want the token accepted", name, err)
		}
	}
	for name, tok := range map[string]string{
		"exp string":             signed(hdr, claims("exp", `"1800000060"`)),
		"exp far string":         signed(hdr, claims("exp", `"9999999999"`)),
		"exp null":               signed(hdr, claims("exp", `null`)),
		"exp bool":               signed(hdr, claims("exp", `true`)),
		"exp object":             signed(hdr, claims("exp", `{"n":1800000060}`)),
		"exp array":              signed(hdr, claims("exp", `[1800000060]`)),
		"exp negative":           signed(hdr, claims("exp", `-1`)),
		"exp absurd":             signed(hdr, claims("exp", `1e300`)),
		"exp missing":            signed(hdr, claims("exp", "")),
		"exp upper-case name":    signed(hdr, claims("exp", "", "EXP", `1800000060`)),
		"exp passed":             signed(hdr, claims("exp", `1800000000`)),
		"nbf string":             signed(hdr, claims("nbf", `"1800000000"`)),
		"nbf null":               signed(hdr, claims("nbf", `null`)),
		"nbf future":             signed(hdr, claims("nbf", `1800000030`)),
		"iat string":             signed(hdr, claims("iat", `"1800000000"`)),
		"iat null":               signed(hdr, claims("iat", `null`)),
		"iat future":             signed(hdr, claims("iat", `1800000030`)),
		"iat after exp":          signed(hdr, claims("iat", `1800000004`, "exp", `1800000003`)),
		"iss number":             signed(hdr, claims("iss", `1`)),
		"iss other":              signed(hdr, claims("iss", `"other"`)),
		"iss missing":            signed(hdr, claims("iss", "")),
		"aud number":             signed(hdr, claims("aud", `1`)),
		"aud other":              signed(hdr, claims("aud", `["other"]`)),
		"aud with a number":      signed(hdr, claims("aud", `["vmplane",1]`)),
		"aud missing":            signed(hdr, claims("aud", "")),
		"sub number":             signed(hdr, claims("sub", `1`)),
		"sub empty":              signed(hdr, claims("sub", `""`)),
		"sub missing":            signed(hdr, claims("sub", "")),
		"jti number":             signed(hdr, claims("jti", `1`)),
		"role number":            signed(hdr, claims("role", `1`)),
		"role missing":           signed(hdr, claims("role", "")),
		"tenant number":          signed(hdr, claims("tenant_id", `1`)),
		"tenant empty":           signed(hdr, claims("tenant_id", `""`)),
		"email number":           signed(hdr, claims("email", `1`)),
		"sid number":             signed(hdr, claims("sid", `1`)),
		"sid missing":            signed(hdr, claims("sid", "")),
		"gen string":             signed(hdr, claims("gen", `"3"`)),
		"gen negative":           signed(hdr, claims("gen", `-3`)),
		"gen fraction":           signed(hdr, claims("gen", `3.5`)),
		"gen missing":            signed(hdr, claims("gen", "")),
		"claims array":           signed(hdr, `[1]`),
		"claims null":            signed(hdr, `null`),
		"alg none":               signed(`{"alg":"none","typ":"JWT"}`, claims()),
		"alg lower-case":         signed(`{"alg":"hs256","typ":"JWT"}`, claims()),
		"alg upper-case name":    signed(`{"ALG":"HS256","typ":"JWT"}`, claims()),
		"typ missing":            signed(`{"alg":"HS256"}`, claims()),
		"typ other":              signed(`{"alg":"HS256","typ":"at+jwt"}`, claims()),
		"typ number":             signed(`{"alg":"HS256","typ":1}`, claims()),
		"header with kid":        signed(`{"alg":"HS256","typ":"JWT","kid":"k1"}`, claims()),
		"header with crit":       signed(`{"alg":"HS256","typ":"JWT","crit":["exp"]}`, claims()),
		"header with duplicates": signed(`{"alg":"HS256","typ":"JWT","alg":"HS256"}`, claims()),
		"header reordered":       signed(`{"typ":"JWT","alg":"HS256"}`, claims()),
	} {
		if _, err := k.Verify([]byte(tok)); !errors.Is(err, apierr.ErrUnauthorized) {
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
	raw, _ := k.Issue(admin)
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
		tok, _ := k.Issue(Claims{Subject: strconv.Itoa(i), Role: "user", SessionID: "s"})
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
	raw, _ := k.Issue(Claims{Subject: "01JUSER00000000000000000000", Email: "user@example.test", Role: "user",
		TenantID: &tenant, SessionID: "01JSESSION000000000000000000", Gen: 3})
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
