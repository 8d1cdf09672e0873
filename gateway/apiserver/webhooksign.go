package apiserver

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
)

// Headers that carry a delivery's signature: GitHub's, then the generic
// one; both "sha256=" and the hex HMAC-SHA256 of the body.
const (
	githubSignatureHeader = "X-Hub-Signature-256"
	hermesSignatureHeader = "X-Hermes-Signature"
)

// verifySignature checks that body was signed with secret. The HMACs are
// compared with hmac.Equal, in constant time.
func verifySignature(secret string, body []byte, h http.Header) error {
	sig := h.Get(githubSignatureHeader)
	if sig == "" {
		sig = h.Get(hermesSignatureHeader)
	}
	if sig == "" {
		return errors.New("The delivery is not signed: send the HMAC-SHA256 of the body with the route's secret as \"" +
			githubSignatureHeader + ": sha256=<hex>\" (GitHub does) or \"" + hermesSignatureHeader + ": sha256=<hex>\".")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	want := mac.Sum(nil)
	hexSig, ok := strings.CutPrefix(strings.TrimSpace(sig), "sha256=")
	got, err := hex.DecodeString(hexSig)
	if !ok || err != nil || !hmac.Equal(got, want) {
		return errors.New("The delivery's signature does not match its body: sign the exact body with the route's secret (HMAC-SHA256, \"sha256=<hex>\").")
	}
	return nil
}
