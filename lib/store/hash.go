package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// Hash is a SHA-256 digest naming an object.
type Hash [sha256.Size]byte

// Sum returns the hash of b.
func Sum(b []byte) Hash { return Hash(sha256.Sum256(b)) }

// Hex returns the 64 lower-case hex digits.
func (h Hash) Hex() string { return hex.EncodeToString(h[:]) }

// String returns the ref form used in manifests: "sha256:<hex>".
func (h Hash) String() string { return "sha256:" + h.Hex() }

// URI returns the form ctx pack prints: "ctx://<hex>".
func (h Hash) URI() string { return "ctx://" + h.Hex() }

// Short returns the first 12 hex digits, for human output.
func (h Hash) Short() string { return h.Hex()[:12] }

// IsZero reports whether h is the zero value.
func (h Hash) IsZero() bool { return h == Hash{} }

// MarshalText writes the ref form, so a Hash in a JSON document reads
// "sha256:<hex>".
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads the ref form "sha256:<hex>".
func (h *Hash) UnmarshalText(b []byte) error {
	p, err := ParseRef(string(b))
	if err != nil {
		return err
	}
	*h = p
	return nil
}

// ParseRef parses the ref form "sha256:<64 hex>" used inside manifests,
// sidecars and logs; nothing else is accepted there.
func ParseRef(s string) (Hash, error) {
	hx, ok := strings.CutPrefix(s, "sha256:")
	if !ok {
		return Hash{}, fmt.Errorf("%q is not a sha256:<hex> reference", s)
	}
	return parseHex(hx, s)
}

// ParseHex parses exactly 64 hex digits (either case).
func ParseHex(s string) (Hash, error) { return parseHex(s, s) }

func parseHex(hx, orig string) (Hash, error) {
	var h Hash
	if len(hx) != 2*len(h) {
		return Hash{}, fmt.Errorf("%q is not a sha256:<hex> reference", orig)
	}
	if _, err := hex.Decode(h[:], []byte(hx)); err != nil { // either case
		return Hash{}, fmt.Errorf("%q is not a sha256:<hex> reference", orig)
	}
	return h, nil
}

// isHex reports whether s is non-empty and all hex digits.
func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
