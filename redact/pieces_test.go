package redact

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"
)

// A piece cut out of a known secret (cut -d. -f2 of a JWT, one line of a
// key) is masked in every form the whole secret is: each form of the
// piece lies inside the same form of the secret.
func TestRedactorMasksThePartsOfAJWTInEveryForm(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwic2NvcGUiOiJhZG1pbiJ9.Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6fG9hJ0kL3qE"
	r := New(jwt)
	for i, part := range strings.Split(jwt, ".") {
		for _, p := range probes {
			in, carried := p.leak(part)
			if p.fragment && len(carried) < gramLen {
				continue
			}
			got := r.String(in)
			if w := survives(got, carried); w != "" {
				t.Errorf("cut -d. -f%d, %s: %q survived in %q", i+1, p.name, w, got)
			}
		}
	}
}

func newECKey(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

func TestRedactorLearnsAPrivateKeyByTheLinesOfItsBody(t *testing.T) {
	key := newECKey(t)
	lines := Candidates(key)
	var body []string
	for _, l := range strings.Split(strings.TrimSpace(key), "\n") {
		if !strings.HasPrefix(l, "-----") {
			body = append(body, l)
		}
	}
	if strings.Join(lines, "\n") != strings.Join(body, "\n") {
		t.Fatalf("Candidates = %q, want the body lines %q", lines, body)
	}
	// The same key from a one-line variable, with \n escapes.
	if got := Candidates(strings.ReplaceAll(key, "\n", `\n`)); strings.Join(got, "\n") != strings.Join(body, "\n") {
		t.Fatalf("escaped key: %q", got)
	}

	r := New(key)
	for i, line := range body {
		for _, p := range probes {
			in, carried := p.leak(line)
			if p.fragment && len(carried) < gramLen {
				continue
			}
			if w := survives(r.String(in), carried); w != "" {
				t.Errorf("line %d, %s: %q survived", i+1, p.name, w)
			}
		}
	}

	// The whole file through base64 (wrapped at 76) and rev.
	enc := base64.StdEncoding.EncodeToString([]byte(key))
	var wrapped strings.Builder
	for s := enc; s != ""; {
		n := min(76, len(s))
		wrapped.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	got := r.String(wrapped.String())
	for _, line := range body {
		off := strings.Index(key, line)
		from, to := (8*off+5)/6, 8*(off+len(line))/6
		if w := survives(got, enc[from:to]); w != "" {
			t.Errorf("base64 of the key file: %q of line %q survived", w, line)
		}
	}
	var rev strings.Builder
	for _, l := range strings.Split(key, "\n") {
		rev.WriteString(reverse(l) + "\n")
	}
	got = r.String(rev.String())
	for _, line := range body {
		if w := survives(got, reverse(line)); w != "" {
			t.Errorf("rev of the key file: %q survived", w)
		}
	}

	// What every key of its kind shares is not learned: the BEGIN and END
	// lines of other keys and of certificates stay.
	for _, s := range []string{
		"-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----",
		"-----BEGIN CERTIFICATE-----",
	} {
		if got := r.String(s); got != s {
			t.Errorf("String(%q) = %q", s, got)
		}
	}
}
