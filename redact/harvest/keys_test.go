package harvest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// opensshKey is a throwaway ed25519 key in OpenSSH's format (ssh-keygen
// -t ed25519 -N ”), made for these tests and used nowhere else.
const opensshKey = `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACBo3NdZPYG9lN8GQR0gO7k9bVwG4fTHu+rJsYxiL4QUegAAAJDpCIt76QiL
ewAAAAtzc2gtZWQyNTUxOQAAACBo3NdZPYG9lN8GQR0gO7k9bVwG4fTHu+rJsYxiL4QUeg
AAAEDz885mD7/wvVXVi/w6GUx7yqKrrjH2Qf51Uljc1587xWjc11k9gb2U3wZBHSA7uT1t
XAbh9Me76smxjGIvhBR6AAAAC3Rlc3RAaGVybWVzAQI=
-----END OPENSSH PRIVATE KEY-----
`

// opensshLines are the body lines of opensshKey.
var opensshLines = []string{
	"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
	"QyNTUxOQAAACBo3NdZPYG9lN8GQR0gO7k9bVwG4fTHu+rJsYxiL4QUegAAAJDpCIt76QiL",
	"ewAAAAtzc2gtZWQyNTUxOQAAACBo3NdZPYG9lN8GQR0gO7k9bVwG4fTHu+rJsYxiL4QUeg",
	"AAAEDz885mD7/wvVXVi/w6GUx7yqKrrjH2Qf51Uljc1587xWjc11k9gb2U3wZBHSA7uT1t",
	"XAbh9Me76smxjGIvhBR6AAAAC3Rlc3RAaGVybWVzAQI=",
}

// newPEM returns a fresh private key in PEM (RSA in PKCS #1 when rsaKey,
// else P-256 in PKCS #8) and the lines of its body.
func newPEM(t testing.TB, rsaKey bool) (string, []string) {
	t.Helper()
	var block *pem.Block
	if rsaKey {
		k, err := rsa.GenerateKey(rand.Reader, 1024)
		if err != nil {
			t.Fatal(err)
		}
		block = &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}
	} else {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		block = &pem.Block{Type: "PRIVATE KEY", Bytes: der}
	}
	text := string(pem.EncodeToMemory(block))
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		if l != "" && l[0] != '-' {
			lines = append(lines, l)
		}
	}
	return text, lines
}

// writeTree writes files (slash-separated paths) under root.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, data := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
