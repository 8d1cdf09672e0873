package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// lastUser is the text of the request's last user message.
func lastUser(r *llmtest.Request) string {
	msgs := r.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// The line chat's /new and /resume move it to another conversation that
// works as the first did: its progress is printed, its dangerous commands
// ask on the terminal; the sessions left are ended, and the one the chat
// ends on is ended as the user's exit.
func TestLineChatNewAndResumeKeepProgressAndApprovals(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "keep")
	if err := os.WriteFile(victim, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	rm, _ := json.Marshal(map[string]string{"command": "rm -rf " + filepath.Dir(victim)})
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		switch u := lastUser(r); {
		case strings.Contains(u, "Write the title for this conversation"):
			// No generated title: one landing after /title would replace
			// the user's.
			return llmtest.Error(401, "")
		case u == "second question" && r.LastToolResult() == "":
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: string(rm)}}}
		default:
			return llmtest.Reply{Text: "answer to " + u}
		}
	})
	home := t.TempDir()
	stdin := strings.Join([]string{"first question", "/title alpha", "/new", "second question", "d", "/resume alpha", "third question", "/new", "fourth question"}, "\n") + "\n"
	r := hermes(t, home, stdin, nil, append([]string{"chat"}, endpoint(srv)...)...)
	if r.code != exitOK {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	for _, want := range []string{"answer to first question", "New session", "→ terminal", "DANGEROUS COMMAND", "answer to second question",
		`Resumed session`, `"alpha"`, "answer to third question"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the chat lacks %q:\n%s", want, r.stderr)
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("denied, yet gone: %v", err)
	}
	var third *llmtest.Request
	for _, req := range srv.Requests() {
		if lastUser(req) == "third question" {
			third = req
		}
	}
	if third == nil || !strings.Contains(third.Messages()[1].Content, "first question") {
		t.Fatal("the resumed session's turn lacks its history")
	}

	st, err := session.Open(filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	first, err := st.Resolve(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.List(ctx, session.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ended := map[string]string{}
	for _, s := range rows {
		ended[s.Preview] = s.EndReason
	}
	if first.EndReason != "new_session" || ended["second question"] != "resumed_other" || ended["fourth question"] != "user_exit" {
		t.Fatalf("the first session ended %q, the others %q", first.EndReason, ended)
	}
}
