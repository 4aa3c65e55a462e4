package locations

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
)

// KeyLen is the length of the key that seals the locations' token secrets (AES-256).
const KeyLen = 32

// ReadKey reads the sealing key from a file: 64 hex digits, or the 32 bytes
// base64-encoded (what `openssl rand -hex 32` or `-base64 32` write).
func ReadKey(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := strings.TrimSpace(string(raw))
	if k, err := hex.DecodeString(s); err == nil && len(k) == KeyLen {
		return k, nil
	}
	if k, err := base64.StdEncoding.DecodeString(s); err == nil && len(k) == KeyLen {
		return k, nil
	}
	return nil, fmt.Errorf("%s: want %d bytes as 64 hex digits or base64", path, KeyLen)
}

// errNoKey: a secret to seal or open with no key configured.
var errNoKey = errors.New("no --location-secret-key-file is set")

// seal encrypts a secret with AES-256-GCM under key: base64 of the nonce and the
// sealed bytes. The location's id is the additional data, so a sealed secret copied
// into another location's record does not open there.
func seal(key []byte, id, secret string) (string, error) {
	if len(key) == 0 {
		return "", errNoKey
	}
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(secret), []byte(id))), nil
}

// open decrypts what seal made.
func open(key []byte, id, sealed string) (string, error) {
	if len(key) == 0 {
		return "", errNoKey
	}
	gcm, err := newGCM(key)
	if err != nil {
		return "", err
	}
	raw, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < gcm.NonceSize() {
		return "", errors.New("the sealed token secret is damaged")
	}
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], []byte(id))
	if err != nil {
		return "", errors.New("the token secret does not open with this key (was --location-secret-key-file changed?)")
	}
	return string(plain), nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
