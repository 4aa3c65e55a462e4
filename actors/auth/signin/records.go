package signin

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"

	"github.com/vmplane/vmplane/actors/kit"
	"github.com/vmplane/vmplane/persistence"
)

// Client is where a login comes from, as the edge saw it: recorded with the session.
type Client struct {
	Addr  string `json:"addr,omitempty"`
	Agent string `json:"agent,omitempty"`
}

// RandomBytes are n bytes of crypto/rand.
func RandomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return b
}

// RandomToken is n random bytes, base64url without padding.
func RandomToken(n int) string { return base64.RawURLEncoding.EncodeToString(RandomBytes(n)) }

// tokenLen is the length of the tokens of the records (RandomToken(32)): one of
// another length is refused before the store is asked.
const tokenLen = 43

// tokenKey is the key of a record found by a secret token: <prefix>/<SHA-256 of the
// token>, so that the store never holds the token itself and a copy of it signs nobody
// in.
func tokenKey(prefix, token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return persistence.Key(prefix, hex.EncodeToString(sum[:]))
}

// Records are the sign-ins' single-use records in a store.
type Records struct {
	Store persistence.Store
}

// kind is one kind of record: its key prefix, encoding version and TTL.
type kind struct {
	prefix  string
	version uint16
	ttl     time.Duration
}

// put adds rec under a new token to b, and answers the token.
func put[T any](k kind, b *persistence.Batch, rec *T) (string, error) {
	token := RandomToken(32)
	val, err := persistence.Encode(k.version, rec)
	if err != nil {
		return "", err
	}
	b.PutTTL(tokenKey(k.prefix, token), val, k.ttl)
	return token, nil
}

// load reads the record of token, and its key: nil for a token of another length or
// none stored.
func load[T any](ctx context.Context, r Records, k kind, token string) (*T, []byte, error) {
	if len(token) != tokenLen {
		return nil, nil, nil
	}
	key := tokenKey(k.prefix, token)
	rec, err := kit.LoadOptional[T](ctx, r.Store, key)
	return rec, key, err
}
