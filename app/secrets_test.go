package app_test

import (
	"context"
	"encoding/base64"
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
	const secret = "pg-Kq9Zx81kLmQ93hTr7Yw"
	t.Setenv("HERMES_TEST_DB_PASSWORD", secret)
	t.Setenv("HERMES_TEST_GREETING", "Zq8Wv2Xm6Kp0Lt4Rn9Ys-not-a-secret-name")
	work := t.TempDir()
	// The secret reaches a file some other way; the command prints it reversed.
	writeFile(t, filepath.Join(work, "dump.txt"), secret+"\n")
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "env", Name: "terminal",
			Arguments: `{"command":"echo \"[$HERMES_TEST_DB_PASSWORD]\"; rev dump.txt; echo \"$HERMES_TEST_GREETING\""}`}}},
		llmtest.Reply{Text: "done"},
	)
	cfg := newConfig(t, srv.URL())
	// No Options.Getenv: the runtime reads the process environment.
	rt, err := app.New(context.Background(), cfg, app.Options{Workdir: work})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	if _, err := open(t, rt, app.ConversationOptions{}).Chat(context.Background(), "print it"); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[1].Messages()
	out := msgs[len(msgs)-1].Content
	if !strings.Contains(out, "[]") {
		t.Errorf("a secret-named variable reached the command's environment: %q", out)
	}
	if strings.Contains(out, reverse(secret)[:12]) || !strings.Contains(out, "[REDACTED]") {
		t.Errorf("the reversed password reached the model: %q", out)
	}
	if !strings.Contains(out, "Zq8Wv2Xm6Kp0Lt4Rn9Ys-not-a-secret-name") {
		t.Errorf("a variable whose name marks no secret was masked: %q", out)
	}
}
func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}
