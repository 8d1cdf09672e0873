package app_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// Fake credentials with no shape a pattern knows: only their values give
// them away.
const (
	dotEnvSecret = "q7Lm2Xw8Rt4Yv6A9f3kZ-dotenv"
	keyCmdSecret = "kc-9f8e7d6c5b4a3f2e1d0c9b8a7f6e"
	envSecret    = "Zx81kLmQ93hTr7Yw-from-the-env"
)

func TestSecretsHermesKnowsAreMaskedByValue(t *testing.T) {
	srv := llmtest.NewServer(t)
	work := t.TempDir()
	notes := filepath.Join(work, "notes.txt")
	keyFile := filepath.Join(t.TempDir(), "key")
	writeFile(t, notes, dotEnvSecret+"\n"+keyCmdSecret+"\n"+envSecret+"\n")
	writeFile(t, keyFile, keyCmdSecret+"\n")

	cfg := newConfig(t, srv.URL())
	cfg.APIKey = ""
	cfg.Providers = map[string]config.ProviderConf{"custom": {BaseURL: srv.URL(), KeyCmd: "cat " + keyFile}}
	writeFile(t, filepath.Join(cfg.Home, ".env"), "MY_SERVICE_TOKEN="+dotEnvSecret+"\nHERMES_GREETING=hello-world-2024\n")

	call := func(id, command string) llm.ToolCall {
		return llm.ToolCall{ID: id, Name: "terminal", Arguments: fmt.Sprintf(`{"command":%q}`, command)}
	}
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			call("raw", "sed -n 1p notes.txt; echo hello-world-2024"),
			call("cut", "sed -n 2p notes.txt | cut -c1-20"),
			call("b64", "sed -n 3p notes.txt | base64"),
		}},
		llmtest.Reply{Text: "done"},
	)
	rt := newRuntime(t, cfg, app.Options{Workdir: work, Getenv: func(k string) string {
		if k == "ANTHROPIC_API_KEY" {
			return envSecret
		}
		return ""
	}})
	if got := srv.Requests(); len(got) > 0 {
		t.Fatalf("requests before the turn: %d", len(got))
	}
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "read my notes"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	if key := srv.Requests()[0].APIKey(); key != keyCmdSecret {
		t.Fatalf("the model was called with key %q, want the key_cmd's", key)
	}

	leaks := []string{
		dotEnvSecret, keyCmdSecret[:20], envSecret,
		base64.StdEncoding.EncodeToString([]byte(envSecret + "\n")),
		base64.StdEncoding.EncodeToString([]byte(envSecret))[:16],
	}
	check := func(where string, msgs []llm.Message) {
		t.Helper()
		results := 0
		for _, m := range msgs {
			if m.Role != llm.RoleTool {
				continue
			}
			results++
			for _, l := range leaks {
				if strings.Contains(m.Content, l) {
					t.Errorf("%s: tool result %s holds %q: %q", where, m.ToolCallID, l, m.Content)
				}
			}
			if !strings.Contains(m.Content, "[REDACTED]") {
				t.Errorf("%s: tool result %s masks nothing: %q", where, m.ToolCallID, m.Content)
			}
			if m.ToolCallID == "raw" && !strings.Contains(m.Content, "hello-world-2024") {
				t.Errorf("%s: a .env value that is no secret was masked: %q", where, m.Content)
			}
		}
		if results != 3 {
			t.Errorf("%s: %d tool results, want 3", where, results)
		}
	}
	check("request", srv.Requests()[1].Messages())
	stored, err := rt.Store().Messages(context.Background(), res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	check("store", stored)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestProcessEnvironmentSecretsAreMaskedWhenACommandPrintsThem(t *testing.T) {
	const (
		secret = "pg-Kq9Zx81kLmQ93hTr7Yw"
		// A JWT under a name that says nothing: its shape gives it away.
		jwt      = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIiwic2NvcGUiOiJhZG1pbiJ9.Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6fG9hJ0kL3qE"
		greeting = "hello-from-the-environment-2024"
	)
	t.Setenv("HERMES_TEST_DB_PASSWORD", secret)
	t.Setenv("HERMES_TEST_SESSION", jwt)
	t.Setenv("HERMES_TEST_GREETING", greeting)
	work := t.TempDir()
	// The secrets reach files some other way; commands print them encoded.
	writeFile(t, filepath.Join(work, "dump.txt"), secret+"\n")
	writeFile(t, filepath.Join(work, "session.txt"), jwt+"\n")
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "env", Name: "terminal",
			Arguments: `{"command":"echo \"[$HERMES_TEST_DB_PASSWORD]<$HERMES_TEST_SESSION>\"; rev dump.txt; echo; cut -d. -f2 session.txt | base64; echo; echo \"$HERMES_TEST_GREETING\""}`}}},
		llmtest.Reply{Text: "done"},
	)
	// Options.Getenv is given, as the command line gives it: the process
	// environment, which commands inherit, is learned all the same.
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{Workdir: work})
	if _, err := open(t, rt, app.ConversationOptions{}).Chat(context.Background(), "print it"); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Messages()
	out := msgs[len(msgs)-1].Content
	if !strings.Contains(out, "[]<>") {
		t.Errorf("a secret variable reached the command's environment: %q", out)
	}
	if strings.Contains(out, reverse(secret)[:12]) || !strings.Contains(out, "[REDACTED]") {
		t.Errorf("the reversed password reached the model: %q", out)
	}
	payload := base64.StdEncoding.EncodeToString([]byte(strings.Split(jwt, ".")[1] + "\n"))
	if strings.Contains(out, payload[:16]) {
		t.Errorf("the JWT's payload reached the model in base64: %q", out)
	}
	if !strings.Contains(out, greeting) {
		t.Errorf("a variable with neither a secret name nor a secret shape was masked: %q", out)
	}
}

func TestWorkspaceSecretsAreMaskedByValue(t *testing.T) {
	const dotenv = "q7Lm2Xw8Rt4Yv6A9f3kZ" // no shape a rule knows
	work := t.TempDir()
	key := newECKey(t)
	writeFile(t, filepath.Join(work, ".gitignore"), ".env\n")
	writeFile(t, filepath.Join(work, ".env"), "PORT=3000\nSIGNING="+dotenv+"\n")
	writeFile(t, filepath.Join(work, "id_ecdsa"), key)
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{
			{ID: "b64", Name: "terminal", Arguments: `{"command":"base64 .env"}`},
			{ID: "cut", Name: "terminal", Arguments: `{"command":"cut -d= -f2 .env | rev"}`},
			{ID: "key", Name: "terminal", Arguments: `{"command":"sed -n 2p id_ecdsa; rev id_ecdsa | tail -n 3"}`},
		}},
		llmtest.Reply{Text: "done"},
	)
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{Workdir: work})
	res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "show me"})
	if err != nil || !res.Completed {
		t.Fatalf("res %+v err %v", res, err)
	}
	leaks := []string{
		base64.StdEncoding.EncodeToString([]byte("PORT=3000\nSIGNING=" + dotenv))[16:36],
		reverse(dotenv)[:12],
	}
	for _, l := range strings.Split(key, "\n") {
		if len(l) > 0 && l[0] != '-' {
			leaks = append(leaks, l[:12], reverse(l)[:12])
		}
	}
	check := func(where string, msgs []llm.Message) {
		t.Helper()
		for _, m := range msgs {
			if m.Role != llm.RoleTool {
				continue
			}
			for _, l := range leaks {
				if strings.Contains(m.Content, l) {
					t.Errorf("%s: tool result %s holds %q: %q", where, m.ToolCallID, l, m.Content)
				}
			}
			if m.ToolCallID == "cut" && !strings.Contains(m.Content, "0003") {
				t.Errorf("%s: a .env value that is no secret was masked: %q", where, m.Content)
			}
		}
	}
	check("request", srv.Requests()[1].Messages())
	stored, err := rt.Store().Messages(context.Background(), res.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	check("store", stored)
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

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// A conversation opened in another directory learns that workspace's
// credential files as it opens, before its commands can read them.
func TestAConversationsOwnWorkspaceSecretsAreMasked(t *testing.T) {
	const dotenv = "Zp4Qm8Lx2Wv7Rt5Ky3Nb"
	other := t.TempDir()
	writeFile(t, filepath.Join(other, ".env"), "TOKEN="+dotenv+"\n")
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "b64", Name: "terminal", Arguments: `{"command":"base64 .env; rev .env"}`}}},
		llmtest.Reply{Text: "done"},
	)
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{Workdir: t.TempDir()})
	c := open(t, rt, app.ConversationOptions{Workdir: other})
	if _, err := c.Run(context.Background(), agent.Input{Message: "show me"}); err != nil {
		t.Fatal(err)
	}
	got := toolResults(srv.Requests()[1])["b64"]
	if got == "" || strings.Contains(string(srv.Requests()[1].Body), dotenv[:12]) {
		t.Fatalf("the other workspace's secret reached the model: %q", got)
	}
	for _, form := range []string{base64.StdEncoding.EncodeToString([]byte("TOKEN=" + dotenv))[:16], reverse(dotenv)[:12]} {
		if strings.Contains(string(srv.Requests()[1].Body), form) {
			t.Fatalf("a form of the secret reached the model: %s in %q", form, got)
		}
	}
}
