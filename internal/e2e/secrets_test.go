package e2e

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func reversed(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// inBase64 returns the characters of base64(text) that carry the bytes of
// secret, which lies in text: what base64 prints of it whatever surrounds it.
func inBase64(text, secret string) string {
	e := base64.StdEncoding.EncodeToString([]byte(text))
	off := strings.Index(text, secret)
	return e[(8*off+5)/6 : 8*(off+len(secret))/6]
}

// leakIn returns a run of 12 bytes of carried found in s.
func leakIn(s, carried string) string {
	for i := 0; i+12 <= len(carried); i++ {
		if w := carried[i : i+12]; strings.Contains(s, w) {
			return w
		}
	}
	return ""
}

// A project's .env, a private key and a .netrc in the workspace, and a JWT
// in a variable whose name says nothing, are masked however a command
// prints them: base64, rev, cut.
func TestWorkspaceAndEnvironmentSecretsDoNotLeakThroughEncodings(t *testing.T) {
	const (
		signing  = "q7Lm2Xw8Rt4Yv6A9f3kZ" // no shape a rule knows
		dbPass   = "Hq3Zt8w9Lp2vX6Nc"
		netrcPw  = "n3tRcPa55w0rdQ8zL"
		jwt      = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIiwic2NvcGUiOiJhZG1pbiJ9.Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6fG9hJ0kL3qE"
		envBody  = "PORT=3000\nSIGNING=" + signing + "\nDB_PASSWORD=" + dbPass + "\n"
		netrcDoc = "machine api.example.com\n  login me\n  password " + netrcPw + "\n"
	)
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	key := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}))
	keyLines := strings.Split(strings.TrimSpace(key), "\n")
	keyLines = keyLines[1 : len(keyLines)-1]

	home, work := t.TempDir(), t.TempDir()
	for name, data := range map[string]string{
		".gitignore":  ".env\nkeys/\n",
		".env":        envBody,
		"keys/id_rsa": key,
		".netrc":      netrcDoc,
	} {
		p := filepath.Join(work, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The command may see SESSION_JWT (it is left out otherwise), so that
	// it can print it.
	writeConfig(t, home, "terminal:\n  env_passthrough: [SESSION_JWT]\n")

	cmds := []string{
		`base64 .env`,
		`cut -d= -f2 .env | rev`,
		`rev keys/id_rsa`,
		`sed -n 3p keys/id_rsa | cut -c5-40 | base64`,
		`grep password .netrc | base64`,
		`printf %s "$SESSION_JWT" | cut -d. -f2 | rev`,
		`printf %s "$SESSION_JWT" | cut -d. -f3 | base64`,
	}
	srv := llmtest.NewServer(t)
	for _, c := range cmds {
		b, _ := json.Marshal(map[string]string{"command": c})
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(b)}}})
	}
	srv.Enqueue(llmtest.Reply{Text: "done"})
	r := hermesEnv(t, []string{"SESSION_JWT=" + jwt}, home, work,
		"-z", "encode my secrets", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}

	parts := strings.Split(jwt, ".")
	leaks := map[string]string{
		"base64 .env: SIGNING":       inBase64(envBody, signing),
		"base64 .env: DB_PASSWORD":   inBase64(envBody, dbPass),
		"cut | rev: SIGNING":         reversed(signing),
		"cut | rev: DB_PASSWORD":     reversed(dbPass),
		"cut -c5-40 | base64 of key": inBase64(keyLines[1][4:40]+"\n", keyLines[1][4:40]),
		"base64 .netrc":              inBase64("  password "+netrcPw+"\n", netrcPw),
		"JWT payload, rev":           reversed(parts[1]),
		"JWT signature, base64":      inBase64(parts[2]+"\n", parts[2]),
	}
	for i, l := range keyLines {
		leaks["rev id_rsa, line "+string(rune('a'+i))] = reversed(l)
	}
	for _, s := range []string{signing, dbPass, netrcPw, jwt, keyLines[1]} {
		leaks["plain "+s[:4]] = s
	}

	reqs := srv.Requests()
	if len(reqs) != len(cmds)+1 {
		t.Fatalf("%d requests, want %d", len(reqs), len(cmds)+1)
	}
	results := toolResults(reqs[len(cmds)])
	if len(results) != len(cmds) {
		t.Fatalf("%d tool results, want %d", len(results), len(cmds))
	}
	for i, res := range results {
		if !strings.Contains(res, "exit code: 0") || !strings.Contains(res, "[REDACTED]") {
			t.Errorf("%s: nothing masked or the command failed: %q", cmds[i], res)
		}
	}
	if !strings.Contains(results[1], "0003") {
		t.Errorf("cut | rev: a value that is no secret was masked: %q", results[1])
	}
	for i, req := range reqs {
		for what, carried := range leaks {
			if w := leakIn(string(req.Body), carried); w != "" {
				t.Errorf("request %d carried %s (%q)", i, what, w)
			}
		}
	}

	// Nor is any of it stored.
	show := hermes(t, home, work, "sessions", "show", "latest", "--json")
	if show.code != 0 || !strings.Contains(show.stdout, "[REDACTED]") {
		t.Fatalf("sessions show: exit %d\n%s%s", show.code, show.stdout, show.stderr)
	}
	db, _ := os.ReadFile(filepath.Join(home, "state.db"))
	wal, _ := os.ReadFile(filepath.Join(home, "state.db-wal"))
	for what, carried := range leaks {
		if w := leakIn(show.stdout, carried); w != "" {
			t.Errorf("the session shows %s (%q)", what, w)
		}
		if w := leakIn(string(db)+string(wal), carried); w != "" {
			t.Errorf("the session database holds %s (%q)", what, w)
		}
	}
}

// Without a passthrough, a variable whose value is a credential by shape
// does not reach commands at all.
func TestTokenShapedVariablesAreLeftOutOfCommands(t *testing.T) {
	const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6fG9hJ0kL3qE"
	home := t.TempDir()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal",
		Arguments: `{"command":"echo \"jwt=<$SESSION_JWT> commit=<$BUILD_COMMIT>\""}`}}},
		llmtest.Reply{Text: "done"})
	r := hermesEnv(t, []string{"SESSION_JWT=" + jwt, "BUILD_COMMIT=da39a3ee5e6b4b0d3255bfef95601890afd80709"}, home, home,
		"-z", "show", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	res := toolResults(srv.Requests()[1])
	if len(res) != 1 || !strings.Contains(res[0], "jwt=<> commit=<da39a3ee5e6b4b0d3255bfef95601890afd80709>") {
		t.Fatalf("result %q: the JWT must be left out, the commit kept", res)
	}
}
