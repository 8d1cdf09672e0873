package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
)

// Fake keys shaped like real ones; none is a live credential.
const (
	openaiKey     = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6l"
	openaiLegacy  = "sk-abcdefghijklmnopqrstT3BlbkFJuvwxyz0123456789AB"
	anthropicKey  = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-abcdefghIJKLMNOP_qrstuvwxAA"
	openrouterKey = "sk-or-v1-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	githubPAT     = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	githubFine    = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
	awsID         = "AKIAIOSFODNN7EXAMPLE"
	awsSecret     = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	slackToken    = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	googleKey     = "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"
	jwt           = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
)

func TestStringMasksSecrets(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAvX1y2b3c4d5e6f7g8h9i0j\nAbCdEfGhIjKlMnOpQrStUvWxYz0123456789==\n-----END RSA PRIVATE KEY-----"
	tests := []struct {
		name, in, want string
		secret         string // must not survive
	}{
		{"openai project key", "key is " + openaiKey + " ok", "key is sk-proj-…[REDACTED] ok", openaiKey[8:]},
		{"openai legacy key", openaiLegacy, "sk-…[REDACTED]", openaiLegacy[3:]},
		{"anthropic key", "ANTHROPIC=" + anthropicKey, "ANTHROPIC=sk-ant-api03-…[REDACTED]", anthropicKey[13:]},
		{"openrouter key", `"` + openrouterKey + `"`, `"sk-or-v1-…[REDACTED]"`, openrouterKey[9:]},
		{"github classic", "token " + githubPAT, "token ghp_…[REDACTED]", githubPAT[4:]},
		{"github oauth", "gho_16C7e42F292c6912E7710c838347Ae178B4a", "gho_…[REDACTED]", "16C7e42F292c"},
		{"github fine-grained", githubFine, "github_pat_…[REDACTED]", githubFine[11:]},
		{"aws key id", "aws_access_key_id = " + awsID, "aws_access_key_id = AKIA…[REDACTED]", "IOSFODNN7"},
		{"aws secret", "aws_secret_access_key=" + awsSecret, "aws_secret_access_key=[REDACTED]", awsSecret},
		{"aws secret yaml", "AWS_SECRET_ACCESS_KEY: \"" + awsSecret + "\"", "AWS_SECRET_ACCESS_KEY: \"[REDACTED]\"", awsSecret},
		{"slack", "SLACK_BOT_TOKEN=" + slackToken, "SLACK_BOT_TOKEN=xoxb-…[REDACTED]", "1234567890123-AbCd"},
		{"google", "https://maps.googleapis.com/x?key=" + googleKey, "https://maps.googleapis.com/x?key=AIza…[REDACTED]", googleKey[4:]},
		{"bearer header", "Authorization: Bearer " + jwt, "Authorization: Bearer [REDACTED]", jwt},
		{"curl header", `curl -H "Authorization: token abcdef0123456789abcdef" https://api`, `curl -H "Authorization: token [REDACTED]" https://api`, "abcdef0123456789"},
		{"x-api-key header", "x-api-key: 8f14e45fceea167a5a36dedd4bea2543", "x-api-key: [REDACTED]", "8f14e45fceea"},
		{"bare bearer", "using bearer " + jwt, "using bearer [REDACTED]", jwt},
		{"private key", "before\n" + pem + "\nafter", "before\n-----BEGIN RSA PRIVATE KEY-----[REDACTED]-----END RSA PRIVATE KEY-----\nafter", "MIIEowIBAAKCAQEA"},
		{"private key cut off", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "-----BEGIN OPENSSH PRIVATE KEY-----[REDACTED]-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXkt"},
		{"generic api_key", "api_key=Zx81kLmQ93hTr7Yw", "api_key=[REDACTED]", "Zx81kLmQ93hTr7Yw"},
		{"generic json", `{"client_secret": "q8W2e4R6t8Y0u2I4o6P8"}`, `{"client_secret": "[REDACTED]"}`, "q8W2e4R6t8Y0u2I4o6P8"},
		{"generic yaml token", "  token: 4f3c2b1a0d9e8f7a6b5c", "  token: [REDACTED]", "4f3c2b1a0d9e8f7a6b5c"},
		{"password env", "DB_PASSWORD=correct-horse-battery", "DB_PASSWORD=[REDACTED]", "correct-horse-battery"},
		{"several in one text", "a=" + openaiKey + " b=" + githubPAT, "a=sk-proj-…[REDACTED] b=ghp_…[REDACTED]", "Ab3dEf6h"},
		{"stripe live secret key", "charge with sk_live_" + "51H8xYzAbCdEfGhIjK", "charge with sk_live_…[REDACTED]", "51H8xYzAbCdE"},
		{"stripe restricted key", "rk_live_" + "51H8xYzAbCdEfGhIjK", "rk_live_…[REDACTED]", "51H8xYzAbCdE"},
		{"stripe test key", "sk_test_" + "51H8xYzAbCdEfGhIjK", "sk_test_…[REDACTED]", "51H8xYzAbCdE"},
		{"jwt alone", "token " + jwt + " expires", "token [REDACTED] expires", "dozjgNryP4J3"},
		{"gitlab token", "glpat-" + "Zx9AbCdEfGhIjKlMnOpQ", "glpat-…[REDACTED]", "Zx9AbCdEfGhI"},
		{"xai key", "xai-" + strings.Repeat("Ab1", 12), "xai-…[REDACTED]", "Ab1Ab1Ab1"},
		{"telegram bot token", "https://api.telegram.org/bot123456789:AAH" + "dqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe", "https://api.telegram.org/bot123456789:[REDACTED]/getMe", "dqTcvCH1vGWJ"},
		{"age secret key", "AGE-SECRET-KEY-1" + "QYPQ5XZJ9N2D6QWHUL7D3C3N3J5VGSHKAFCX3LRQVDSCZKWGJR5SQ5L2E3", "AGE-SECRET-KEY-…[REDACTED]", "QYPQ5XZJ9N2D"},
		{"password in a connection string", "DATABASE_URL is postgres://app:S3cr3t-pw@db:5432/app", "DATABASE_URL is postgres://app:[REDACTED]@db:5432/app", "S3cr3t-pw"},
		{"password in a web url", "git clone https://me:ghs0rtpass@git.example.com/r.git", "git clone https://me:[REDACTED]@git.example.com/r.git", "ghs0rtpass"},
		{"redis url without a user", "redis://:R3disPass@cache:6379/0", "redis://:[REDACTED]@cache:6379/0", "R3disPass"},
		{"short _PASS", "SMTP_PASS=pa55", "SMTP_PASS=[REDACTED]", "pa55"},
		{"short _PW", "DB_PW=x7y", "DB_PW=[REDACTED]", "x7y"},
		{"password flag", "mysql --password=Hunter22 -u root", "mysql --password=[REDACTED] -u root", "Hunter22"},
		{"secret that starts like a path", "SOME_TOKEN=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "SOME_TOKEN=[REDACTED]", "wJalrXUtnFEMI"},
		{"python repr", "KeyError: {'BRAVE_API_KEY': 'BSAopaque-value'}", "KeyError: {'BRAVE_API_KEY': '[REDACTED]'}", "BSAopaque-value"},
		{"escaped json", `{"output": "{\"api_key\": \"Qw3rTy8UiOp2AsDf\"}"}`, `{"output": "{\"api_key\": \"[REDACTED]\"}"}`, "Qw3rTy8UiOp2AsDf"},
		{"token split by a zero-width space", "ghp_AbCdEfGh\u200bIjKlMnOpQrStUvWxYz0123456789", "ghp_…[REDACTED]", "IjKlMnOpQrSt"},
		{"token split by an escaped newline", `"ghp_AbCdEfGh\nIjKlMnOpQrStUvWxYz0123456789"`, `"ghp_…[REDACTED]"`, "IjKlMnOpQrSt"},
		{"token after an escaped newline", `"line\nghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"`, `"line\nghp_…[REDACTED]"`, "AbCdEfGhIjKl"},
		{"token split by ANSI colour", "ghp_AbCdEfGh\x1b[0mIjKlMnOpQrStUvWxYz0123456789", "ghp_…[REDACTED]", "IjKlMnOpQrSt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := String(tc.in)
			if got != tc.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if strings.Contains(got, tc.secret) {
				t.Errorf("secret part %q survived: %q", tc.secret, got)
			}
			if again := String(got); again != got {
				t.Errorf("not idempotent: %q -> %q", got, again)
			}
		})
	}
}

func TestStringLeavesHarmlessTextAlone(t *testing.T) {
	for _, s := range []string{
		"",
		"hello world",
		"ls -la /tmp && go test ./...",
		"risk-free-investment-strategy-for-2024",
		"task-management-system-v2-final-draft",
		"use sk-learn for that",
		"the bearer of this letter",
		"token: true",
		"max_tokens: 4096",
		"max_tokens=100000000",
		"password: ********",
		"OPENAI_API_KEY=${OPENAI_API_KEY}",
		"api_key: $OPENAI_API_KEY",
		"api_key=<your-key-here>",
		"Authorization: Bearer $TOKEN",
		"git commit -m 'token: refresh logic'",
		"func tokenize(s string) []string",
		"AKIA is the prefix of AWS access key ids",
		"The key insight is that secrets matter.",
		"github.com/hermes-go/hermes/tool/approval",
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----",
		"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"commit 18cb17b2f3e4d5c6b7a8901234567890abcdef12",
		// Token counts and other numbers under credential-like names.
		"total_tokens: 1234",
		`"usage": {"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46}`,
		"token_count=17&session_id=public",
		// The working directory and agent sockets are no secrets.
		"PWD=/home/user/project\nOLDPWD=/tmp\nSSH_AUTH_SOCK=/run/user/1000/keyring/ssh",
		"GOOGLE_APPLICATION_CREDENTIALS=/home/user/.config/gcloud/creds.json",
		"ssh_key: ~/.ssh/id_ed25519",
		"TOKEN_FILE=/var/run/secrets/kubernetes.io/serviceaccount/token",
		// Names that only contain a credential word.
		"password_policy: strict",
		"SECRET_NAME=db-creds",
		"bypass_cache=true",
		// Publishable keys are public.
		"pk_live_" + "51H8xYzAbCdEfGhIjKlMnOp",
		// A short token head does not swallow the lines below it.
		"sk-test\ntrue\nproduction",
		// Code naming where a credential comes from.
		"apiKey := os.Getenv(\"OPENAI_API_KEY\")",
		"client = OpenAI(api_key=api_key)",
		"self.token = settings.API_TOKEN",
		"\tAPIKey: apiKey,",
		"password = getpass.getpass()",
		"headers = {\"Authorization\": f\"Bearer {token}\"}",
		"fetch(url, { headers: { Authorization: token } })",
		`      - uses: actions/checkout@v4
        with:
          token: ${{ secrets.GITHUB_TOKEN }}`,
		// Kernel identifiers that start like vendor prefixes.
		"skb = sk_filter_charge(sk, skb); hf_transformers_cache",
		// Hashes next to file names.
		"0123456789abcdef0123456789abcdef.bundle",
	} {
		if got := String(s); got != s {
			t.Errorf("String(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestWriterRedactsEachWrite(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	msg := "calling with " + openaiKey + "\n"
	n, err := w.Write([]byte(msg))
	if err != nil || n != len(msg) {
		t.Fatalf("Write = %d, %v; want %d", n, err, len(msg))
	}
	if strings.Contains(buf.String(), openaiKey) || !strings.Contains(buf.String(), "sk-proj-…[REDACTED]") {
		t.Errorf("written: %q", buf.String())
	}
}

func TestHandlerRedactsMessageAndAttrs(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewHandler(slog.NewJSONHandler(&buf, nil))).With("auth", "Bearer "+jwt)
	log.Info("request with "+githubPAT,
		"key", anthropicKey,
		"err", errors.New("401 for api_key=Zx81kLmQ93hTr7Yw"),
		slog.Group("req", "header", "Authorization: Bearer "+jwt, "n", 3))
	out := buf.String()
	for _, secret := range []string{jwt, githubPAT, anthropicKey, "Zx81kLmQ93hTr7Yw"} {
		if strings.Contains(out, secret) {
			t.Errorf("secret %q in log: %s", secret, out)
		}
	}
	for _, want := range []string{"ghp_…[REDACTED]", "sk-ant-api03-…[REDACTED]", `"n":3`, "api_key=[REDACTED]"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q: %s", want, out)
		}
	}
}

func BenchmarkStringNoSecrets(b *testing.B) {
	s := strings.Repeat("go test ./... ok  github.com/hermes-go/hermes/tools/file 0.681s\n", 160) // ~10 KB
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s)
	}
}

// benchRedactor knows as many secrets as a developer's environment holds:
// a dozen keys and tokens, one of them a 400-byte session token.
func benchRedactor() *Redactor {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	secrets := []string{openaiKey}
	for _, n := range []int{20, 32, 36, 40, 40, 48, 51, 64, 72, 93, 400} {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		secrets = append(secrets, string(b))
	}
	return New(secrets...)
}

func BenchmarkRedactorNoSecrets(b *testing.B) {
	r := benchRedactor()
	s := strings.Repeat("go test ./... ok  github.com/hermes-go/hermes/tools/file 0.681s\n", 160)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		r.String(s)
	}
}

func BenchmarkRedactorOneLineNoSecrets(b *testing.B) {
	r := benchRedactor()
	s := strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit ", 180) // ~10 KB, one line
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		r.String(s)
	}
}

func BenchmarkRedactorWithSecrets(b *testing.B) {
	r := benchRedactor()
	s := strings.Repeat("export OPENAI_API_KEY="+openaiKey+"\nAuthorization: Bearer "+jwt+"\nsome ordinary log line here\n", 40)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		r.String(s)
	}
}

func BenchmarkStringWithSecrets(b *testing.B) {
	s := strings.Repeat("export OPENAI_API_KEY="+openaiKey+"\nAuthorization: Bearer "+jwt+"\nsome ordinary log line here\n", 40) // ~10 KB
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s)
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		benchRedactor()
	}
}
