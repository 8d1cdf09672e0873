package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestTokenShapedKnowsCredentialsByShape(t *testing.T) {
	for _, v := range []string{
		// Whole tokens of known formats.
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
		"ghp_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
		"xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
		"AKIAIOSFODNN7EXAMPLE",
		"sk-proj-Zx8kQ2mN4pR6tV8wY0aB2cD4eF6gH8jK",
		"-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49\n-----END PRIVATE KEY-----",
		// Random strings of the base64 alphabets.
		"Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6",            // base62
		"q7Lm2Xw8Rt4Yv6A9f3kZ",                        // base62, 20
		"k8Jd/2Lq+Wm9zX3Rt5Yv7Nb1Pc4Gh6Fs0Ea8Qu2Ti=",  // base64
		"Xk9_mP2-qR7vT4wL8nB3cD6fG1hJ5kZ0aS2dF4gH6jQ", // base64url
		"kq8zm2x7w4p9v3r6t1y5u8i2o4p6a8s0",            // lower case and digits
		"K8ZM2X7W4P9V3R6T1Y5U8I2O",                    // upper case and digits
		"dapi8f3k2m9x7q4w1z6v5b8n3c2l0j9h",            // a vendor prefix not in the table
		"h5Kq/9tVbXr2LmWn+Pz8YcD4sFj7Ga1eQo3UiT6R",    // an AWS secret key
		"  Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6\n",        // surrounded by blanks
	} {
		if !TokenShaped(v) {
			t.Errorf("TokenShaped(%q) = false", v)
		}
	}
	long := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("MIIJKAIBAAKCAgEAz8Vq3Lm2Xw8Rt4Yv6A9f3kZ\n", 150) + "-----END RSA PRIVATE KEY-----\n"
	if !TokenShaped(long) {
		t.Errorf("a private key of %d bytes is not token-shaped", len(long))
	}
	if TokenShaped(strings.Repeat("Zx81kLmQ93hTr7Yw", 300)) {
		t.Errorf("a blob of 4,800 bytes is token-shaped")
	}
}

func TestTokenShapedLeavesOrdinaryValuesAlone(t *testing.T) {
	for _, v := range []string{
		"", "short", "true", "production", "3000",
		"internationalization",                     // a long word
		"supercalifragilisticexpialidocious",       // a longer one
		"da39a3ee5e6b4b0d3255bfef95601890afd80709", // a git commit
		"18cb17b2f3e4",                             // a short one
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", // a SHA-256
		"C9A1F7E3B2D4C6A8E0F1B3D5A7C9E1F3",                                 // hex in upper case
		"0b6f1f2c-3d4e-4f5a-8b9c-0d1e2f3a4b5c",                             // a UUID
		"github_6c1a3b39-8a2e-4b7f-9c3d-1e2f3a4b5c6d",                      // an id around a UUID
		"MyProject2024Release", "ThisIsCamelCaseIdentifier", "XMLHttpRequest2Factory", "getElementsByTagNameNS2",
		"my-deployment-7d9f8b6c4-x2k9p", "web-7d9f8b6c4-x2k9p", // pod names
		"super-duper-space-guacamole-5g4v9jx7wq2p5rr", // a codespace name
		"stable-x86_64-unknown-linux-gnu", "ubuntu-22.04-jammy-amd64-server-20240101",
		"python3.11-slim-bookworm", "org.apache.commons.lang3.StringUtils",
		"/var/folders/xz/7b_2l4kx5n3f2g9h0000gn/T/",                       // a path
		"--max-old-space-size=4096",                                       // an option
		"https://api.example.com/v1/Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6",     // a URL
		"unix:path=/run/user/1000/bus,guid=Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4", // punctuation of other formats
		"rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35",         // LS_COLORS
		"Zx81kLmQ93hTr7Yw 2pN5vB8cX1zA4sD6",                               // words with a blank
	} {
		if TokenShaped(v) {
			t.Errorf("TokenShaped(%q) = true", v)
		}
	}
}

// TestTokenShapedRecognisesMostRandomStrings measures, with a fixed seed,
// how many random strings of 32 characters the shape test recognises.
func TestTokenShapedRecognisesMostRandomStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name, alphabet string
		atLeast        float64
	}{
		{"base62", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 0.97},
		{"base64", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 0.94},
		{"base64url", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 0.92},
		{"lower case and digits", "abcdefghijklmnopqrstuvwxyz0123456789", 0.92},
	} {
		const n = 2000
		hits := 0
		for range n {
			b := make([]byte, 32)
			for i := range b {
				b[i] = tc.alphabet[r.IntN(len(tc.alphabet))]
			}
			if TokenShaped(string(b)) {
				hits++
			}
		}
		if rate := float64(hits) / n; rate < tc.atLeast {
			t.Errorf("%s: %.1f%% recognised, want at least %.0f%%", tc.name, 100*rate, 100*tc.atLeast)
		}
	}
}

func TestSecretVariable(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"SESSION_JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJlMTIzNDU2", true},
		{"DEPLOY_SIG", "Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6", true},
		{"GITHUB_TOKEN", "anything", true},
		{"GIT_COMMIT", "da39a3ee5e6b4b0d3255bfef95601890afd80709", false},
		{"HOSTNAME", "web-7d9f8b6c4-x2k9p", false},
		{"PATH", "/usr/bin:/bin", false},
	} {
		if got := SecretVariable(tc.name, tc.value); got != tc.want {
			t.Errorf("SecretVariable(%q, %q) = %v", tc.name, tc.value, got)
		}
	}
}

func TestSecretField(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "_authToken": true, "//registry.npmjs.org/:_authToken": true, "_auth": true,
		"aws_secret_access_key": true, "npmAuthToken": true, "db_password": true, "token": true, "client_secret": true,
		"username": false, "region": false, "keyboard": false, "monkey": false, "registry": false, "project_id": false,
	} {
		if got := SecretField(name); got != want {
			t.Errorf("SecretField(%q) = %v, want %v", name, got, want)
		}
	}
}
