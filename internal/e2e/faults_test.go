package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// A Chat Completions stream that stops after "The final", without a
// finish_reason or [DONE], is a failed call: hermes -z exits 1 saying so,
// prints nothing on stdout, and the session keeps no partial answer.
// Retries are off (agent.api_max_retries: 0) so the run does not wait out
// a real backoff; the provider layer's tests cover the retries.
func TestCutChatStreamFailsTheRunAndStoresNoPartialAnswer(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "The final answer is 42.", EndAfter: 3})
	home := t.TempDir()
	writeConfig(t, home, "agent:\n  api_max_retries: 0\n")
	r := hermes(t, home, home, "-z", "what is the answer?", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, want exit 1 and nothing on stdout\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if !contains(r.stderr, "connection", "stream ended without a finish_reason or [DONE]") || strings.Contains(r.stderr, "The final") {
		t.Fatalf("stderr does not say the stream was cut (or shows the partial text):\n%s", r.stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests with retries off, want 1", n)
	}

	r = hermes(t, home, home, "sessions", "show", "latest", "--json")
	var shown struct {
		Messages []llm.Message `json:"messages"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil || r.code != 0 {
		t.Fatalf("sessions show: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	for _, m := range shown.Messages {
		if m.Role == llm.RoleAssistant || strings.Contains(m.Content, "The final") {
			t.Fatalf("the session stored %s %q after the cut stream", m.Role, m.Content)
		}
	}
	if len(shown.Messages) != 1 || shown.Messages[0].Role != llm.RoleUser {
		t.Fatalf("session messages %+v, want the user's question only", shown.Messages)
	}
}
