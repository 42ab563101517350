package attest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// The media types of what is signed and of the envelope that carries it.
const (
	PayloadType       = "application/vnd.in-toto+json"          // the DSSE payloadType of an in-toto statement
	EnvelopeMediaType = "application/vnd.dsse.envelope.v1+json" // a DSSE envelope, as an OCI artifact or layer
	MaxEnvelopeSize   = maxPayloadSize*4/3 + 1<<20              // the largest envelope read: its payload, a statement, is at most 64 MiB
)

// signer signs DSSE's pre-authentication encoding with a private key, the
// way cosign and go-securesystemslib verify it: ECDSA over SHA-256 in
// ASN.1 DER, Ed25519 over the message itself. Any crypto.Signer of those
// kinds will do, so a key held elsewhere (a token, a KMS) can sign too.
type signer struct {
	key crypto.Signer
	id  string
}

func (s signer) Sign(_ context.Context, data []byte) ([]byte, error) {
	switch s.key.Public().(type) {
	case *ecdsa.PublicKey:
		sum := sha256.Sum256(data)
		return s.key.Sign(rand.Reader, sum[:], crypto.SHA256)
	case ed25519.PublicKey:
		return s.key.Sign(rand.Reader, data, crypto.Hash(0))
	}
	return nil, &UnsupportedKeyError{What: describeKey(s.key.Public())}
}

func (s signer) KeyID() (string, error) { return s.id, nil }

// verifier checks one signature over the pre-authentication encoding.
type verifier struct {
	pub crypto.PublicKey
	id  string
}

func (v verifier) Verify(_ context.Context, data, sig []byte) error {
	ok := false
	switch k := v.pub.(type) {
	case *ecdsa.PublicKey:
		sum := sha256.Sum256(data)
		ok = ecdsa.VerifyASN1(k, sum[:], sig)
	case ed25519.PublicKey:
		ok = ed25519.Verify(k, data, sig)
	}
	if !ok {
		return errors.New("the signature does not verify")
	}
	return nil
}

func (v verifier) KeyID() (string, error)   { return v.id, nil }
func (v verifier) Public() crypto.PublicKey { return v.pub }

// Sign wraps payload, an in-toto statement, in a DSSE envelope signed by
// key, and returns the envelope's JSON and a newline, the bytes of a file
// as every tool writes one. The signature names the key by KeyID.
func Sign(ctx context.Context, payload []byte, key crypto.Signer) ([]byte, error) {
	id, err := KeyID(key.Public())
	if err != nil {
		return nil, err
	}
	es, err := dsse.NewEnvelopeSigner(signer{key: key, id: id})
	if err != nil {
		return nil, err
	}
	env, err := es.SignPayload(ctx, PayloadType, payload)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PredicateTypeOf is the predicateType of the in-toto statement the
// envelope b carries (the signature is not checked).
func PredicateTypeOf(b []byte) (string, error) {
	env, err := ParseEnvelope(b)
	if err != nil {
		return "", err
	}
	payload, _ := env.DecodeB64Payload() // ParseEnvelope decoded it
	stmt, err := ParseStatement(payload)
	if err != nil {
		return "", err
	}
	return stmt.GetPredicateType(), nil
}

// ParseEnvelope decodes a DSSE envelope: one JSON object with a string
// payloadType, a base64 payload and at least one signature with a base64
// sig, and nothing after it. It checks the form, not the signature.
func ParseEnvelope(b []byte) (*dsse.Envelope, error) {
	if len(b) > MaxEnvelopeSize {
		return nil, fmt.Errorf("not a DSSE envelope: larger than %d MiB", MaxEnvelopeSize>>20)
	}
	var env dsse.Envelope
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("not a DSSE envelope: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a DSSE envelope: data after the JSON object")
	}
	switch {
	case env.PayloadType == "":
		return nil, errors.New("not a DSSE envelope: no payloadType")
	case env.Payload == "":
		return nil, errors.New("not a DSSE envelope: no payload")
	case len(env.Signatures) == 0:
		return nil, errors.New("not a DSSE envelope: no signatures")
	}
	if _, err := env.DecodeB64Payload(); err != nil {
		return nil, errors.New("not a DSSE envelope: the payload is not base64")
	}
	for i, s := range env.Signatures {
		if _, err := decodeBase64(s.Sig); err != nil || s.Sig == "" {
			return nil, fmt.Errorf("not a DSSE envelope: signatures[%d] is not base64", i)
		}
	}
	return &env, nil
}

// decodeBase64 accepts both encodings DSSE allows.
func decodeBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.URLEncoding.DecodeString(s)
	}
	return b, err
}
