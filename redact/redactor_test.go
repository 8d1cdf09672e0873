package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Secrets a Redactor is told, from keys with a vendor shape to values
// with none that only their value gives away.
var knownSecrets = []string{
	"sk_live_" + "51H8xYzAbCdEfGhIjKlMnOpQrStUvWxYz0123",                     // Stripe
	"eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJlMTIzNDU2", // JWT
	"Tr0ub4dor&3-horse!staple/x=1",                                           // a password
	"9fK2mQx7Lp4Wz8Rt6Yv1Nc3Hb5Jd0Se",                                        // an opaque key
	"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",                               // an AWS secret
	"hunter2hunter", // short
}

// probe is a way a secret leaks past a redactor that only compares whole
// values: piped through a command, encoded, split.
type probe struct {
	name string
	// fragment: the probe leaves part of the secret, which is masked
	// from 12 bytes on.
	fragment bool
	// leak returns the text a tool prints and the part of it that carries
	// the secret (what must not survive in runs of 12 bytes or more).
	leak func(secret string) (text, carried string)
}

func b64(enc *base64.Encoding, s string) string { return enc.EncodeToString([]byte(s)) }

// embedded is the base64 of the secret inside a longer text, at offset
// pre, and the characters that depend on the secret's bytes alone.
func embedded(pre int) func(string) (string, string) {
	return func(s string) (string, string) {
		head := strings.Repeat("h", pre) + "config: "
		payload := head + s + "\ntrailing data"
		e := b64(base64.StdEncoding, payload)
		from, to := (8*len(head)+5)/6, 8*(len(head)+len(s))/6
		return "data: " + e + "\n", e[from:to]
	}
}

func split(sep string) func(string) (string, string) {
	return func(s string) (string, string) {
		h := len(s) / 2
		return "value: " + s[:h] + sep + s[h:] + " end", s
	}
}

var probes = []probe{
	{"raw", false, func(s string) (string, string) { return "key=" + s + "\n", s }},
	{"in prose", false, func(s string) (string, string) { return "The value is " + s + ", keep it safe.", s }},
	{"cut -c1-20", true, func(s string) (string, string) { return s[:min(20, len(s))] + "\n", s[:min(20, len(s))] }},
	{"cut -c5-", true, func(s string) (string, string) { return s[4:] + "\n", s[4:] }},
	{"base64", false, func(s string) (string, string) { e := b64(base64.StdEncoding, s+"\n"); return e + "\n", e[:len(e)-4] }},
	{"base64 -w0 of the value alone", false, func(s string) (string, string) { e := b64(base64.StdEncoding, s); return e, e }},
	{"base64 without padding", false, func(s string) (string, string) { e := b64(base64.RawStdEncoding, s); return e, e }},
	{"base64url", false, func(s string) (string, string) { e := b64(base64.URLEncoding, s); return e, e }},
	{"base64url without padding", false, func(s string) (string, string) { e := b64(base64.RawURLEncoding, s); return e, e }},
	{"base64 inside a longer text, offset 0", false, embedded(0)},
	{"base64 inside a longer text, offset 1", false, embedded(1)},
	{"base64 inside a longer text, offset 2", false, embedded(2)},
	{"hex", false, func(s string) (string, string) { e := hex.EncodeToString([]byte(s)); return e, e }},
	{"HEX", false, func(s string) (string, string) { e := strings.ToUpper(hex.EncodeToString([]byte(s))); return e, e }},
	{"xxd -p (60 per line)", false, func(s string) (string, string) {
		e := hex.EncodeToString([]byte(s))
		var lines []string
		for len(e) > 60 {
			lines, e = append(lines, e[:60]), e[60:]
		}
		return strings.Join(append(lines, e), "\n") + "\n", hex.EncodeToString([]byte(s))
	}},
	{"rev", false, func(s string) (string, string) { r := reverse(s); return r + "\n", r }},
	{"URL query escape", false, func(s string) (string, string) { e := url.QueryEscape(s); return "https://x.test/?q=" + e, e }},
	{"URL path escape", false, func(s string) (string, string) { e := url.PathEscape(s); return "https://x.test/" + e + "/x", e }},
	{"JSON string", false, func(s string) (string, string) {
		j, _ := json.Marshal(map[string]string{"output": "got " + s})
		return string(j), s
	}},
	{"split by a newline", false, split("\n")},
	{"split by CRLF", false, split("\r\n")},
	{"split by an escaped newline", false, split(`\n`)},
	{"split by an escaped backslash", false, split(`\\`)},
	{"split by ANSI colour", false, split("\x1b[31m")},
	{"split by a zero-width space", false, split("\u200b")},
	{"split by a zero-width joiner", false, split("\u200d")},
	{"split by a byte order mark", false, split("\ufeff")},
}

// survives returns a run of 12 or more bytes of carried found in out,
// joiners aside.
func survives(out, carried string) string {
	flat := string(stripJoiners(out, nil))
	for i := 0; i+gramLen <= len(carried); i++ {
		if w := carried[i : i+gramLen]; strings.Contains(flat, w) {
			return w
		}
	}
	return ""
}

func TestRedactorMasksKnownSecretsHoweverTheyLeak(t *testing.T) {
	r := New(knownSecrets...)
	for _, secret := range knownSecrets {
		for _, p := range probes {
			t.Run(secret[:6]+"/"+p.name, func(t *testing.T) {
				in, carried := p.leak(secret)
				if p.fragment && len(carried) < gramLen {
					t.Skipf("%d bytes left of the secret", len(carried))
				}
				got := r.String(in)
				if w := survives(got, carried); w != "" {
					t.Errorf("%q survived in %q (from %q)", w, got, in)
				}
				if len(carried) < gramLen && strings.Contains(got, carried) {
					t.Errorf("%q survived in %q", carried, got)
				}
				if !strings.Contains(got, Marker) {
					t.Errorf("nothing masked: %q", got)
				}
				if again := r.String(got); again != got {
					t.Errorf("not idempotent: %q -> %q", got, again)
				}
			})
		}
	}
}

func TestRedactorKeepsWhatSurroundsASecret(t *testing.T) {
	key := knownSecrets[3]
	r := New(key)
	tests := []struct{ in, want string }{
		{"key=" + key + "\n", "key=[REDACTED]\n"},
		{"got " + key[:20] + " from cut", "got [REDACTED] from cut"},
		{"a\n" + key[:10] + "\n" + key[10:] + "\nb", "a\n[REDACTED]\nb"},
		{"stripe " + knownSecrets[0] + " ok", "stripe sk_live_…[REDACTED] ok"},
	}
	r.Add(knownSecrets[0])
	for _, tc := range tests {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactorLeavesOtherTextAlone(t *testing.T) {
	r := New(knownSecrets...)
	other := "Zq8Wv2Xm6Kp0Lt4Rn9Ys3Bd7Hc1Jf5Ga" // the same shape, not known
	for _, s := range []string{
		"",
		"hello world",
		other,
		"value: " + other + "\n",
		b64(base64.StdEncoding, other),
		hex.EncodeToString([]byte(other)),
		strings.Repeat("go test ./... ok  github.com/hermes-go/hermes/tools/file 0.681s\n", 20),
		"commit 18cb17b2f3e4d5c6b7a8901234567890abcdef12",
		// Fewer than 12 bytes of a known secret are no leak.
		"prefix " + knownSecrets[3][:11] + " suffix",
	} {
		if got := r.String(s); got != s {
			t.Errorf("String(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestRedactorIgnoresValuesThatAreNoSecrets(t *testing.T) {
	values := []string{
		"", "short", "sk-test", "true", "production", "localhost", "development", "12345678901234",
		"${OPENAI_API_KEY}", "$HOME/.cache", "<your-key-here>", "********", "aaaaaaaaaaaaaaaa",
		"anthropic/claude-sonnet-4", "/run/user/1000/keyring", "api.openai.com", "us-east-1", "v1.2.3",
		"https://api.openai.com/v1", "postgres://db.internal:5432/app",
	}
	r := New(values...)
	text := strings.Join(values, "\n") + "\nmodel anthropic/claude-sonnet-4 on localhost in production"
	if got := r.String(text); got != text {
		t.Errorf("masked values that are no secrets:\n got %q\nwant %q", got, text)
	}
}

func TestRedactorTakesTheCredentialsOfAURL(t *testing.T) {
	r := New("postgres://app:S3cretPassw0rd@db.internal:5432/app",
		"https://hooks.slack.com/services/T0001/B0001/XyZ9abcDEF0123ghiJKL4567",
		"https://api.example.com/v1?api_key=Qw3rTy8UiOp2AsDf&region=eu")
	for _, tc := range []struct{ in, want string }{
		{"password S3cretPassw0rd in a log", "password [REDACTED] in a log"},
		{"host db.internal:5432/app", "host db.internal:5432/app"},
		{"hook .../XyZ9abcDEF0123ghiJKL4567", "hook .../[REDACTED]"},
		{"key Qw3rTy8UiOp2AsDf region eu", "key [REDACTED] region eu"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactorMasksSecretsAddedLater(t *testing.T) {
	var r Redactor // the zero value masks by shape only
	key := knownSecrets[3]
	if got := r.String("k=" + key); got != "k="+key {
		t.Fatalf("an unknown value was masked: %q", got)
	}
	if got := r.String("Authorization: Bearer " + key); got != "Authorization: Bearer [REDACTED]" {
		t.Fatalf("shape rules do not apply: %q", got)
	}
	r.Add(key)
	r.Add(key) // twice is once
	if got := r.String("k=" + key); got != "k=[REDACTED]" {
		t.Fatalf("a secret added later is not masked: %q", got)
	}
	var nilRedactor *Redactor
	if got := nilRedactor.String("x-api-key: " + key); got != "x-api-key: [REDACTED]" {
		t.Fatalf("a nil Redactor does not mask by shape: %q", got)
	}
}

func TestRedactorIsSafeForConcurrentUse(t *testing.T) {
	r := New()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		secret := fmt.Sprintf("Kq%dZx81kLmQ93hTr7Yw%d", i, i)
		go func() {
			defer wg.Done()
			r.Add(secret)
		}()
		go func() {
			defer wg.Done()
			for range 50 {
				r.String("output " + secret + " and " + knownSecrets[3])
			}
		}()
	}
	wg.Wait()
	for i := range 8 {
		secret := fmt.Sprintf("Kq%dZx81kLmQ93hTr7Yw%d", i, i)
		if got := r.String(secret); got != Marker {
			t.Errorf("secret %d added concurrently: %q", i, got)
		}
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "GITHUB_TOKEN": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_SESSION_TOKEN": true,
		"PGPASSWORD": true, "MYSQL_PWD": true, "DB_PASSWD": true, "SMTP_PASS": true, "DB_PW": true,
		"GPG_PASSPHRASE": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "DATABASE_URL": true, "TEST_DATABASE_URL": true,
		"REDIS_URL": true, "SENTRY_DSN": true, "NPM_CONFIG__AUTH": true, "private_key": true, "hf_token": true,
		"PATH": false, "HOME": false, "PWD": false, "OLDPWD": false, "SHELL": false, "SSH_AUTH_SOCK": false,
		"PASSAGE": false, "GIT_ASKPASS": false, "LANG": false, "OPENAI_BASE_URL": false, "TERM": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}
