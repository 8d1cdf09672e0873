package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func TestSessionIsStoredResumedSearchedAndExported(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"echo zebrafish"}`}}},
		llmtest.Reply{Text: "The command printed zebrafish."},
		llmtest.Reply{Text: "Yes, zebrafish again."},
		llmtest.Reply{Text: "Still zebrafish."},
	)
	home := t.TempDir()
	common := []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
	r := hermes(t, home, home, append([]string{"-z", "print a fish name"}, common...)...)
	if r.code != 0 {
		t.Fatalf("first run: exit %d %s", r.code, r.stderr)
	}

	r = hermes(t, home, home, "sessions", "list", "--json")
	var list []struct {
		ID           string `json:"id"`
		Source       string `json:"source"`
		MessageCount int    `json:"message_count"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("sessions list: %v %q %s", err, r.stdout, r.stderr)
	}
	id := list[0].ID
	if list[0].Source != "cli" || list[0].MessageCount != 4 {
		t.Fatalf("session row %+v", list[0])
	}

	r = hermes(t, home, home, append([]string{"chat", "-q", "again?", "--oneshot", "--resume", id}, common...)...)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Yes, zebrafish again." {
		t.Fatalf("resume: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if reqs[2].System() == "" || reqs[2].System() != reqs[0].System() {
		t.Fatalf("resumed system prompt differs:\n%q\n%q", reqs[0].System(), reqs[2].System())
	}
	n := 0
	for _, m := range reqs[2].Messages() {
		if m.Role != llm.RoleSystem {
			n++
		}
	}
	if n != 5 { // 4 stored + the new user message
		t.Fatalf("resumed request has %d messages", n)
	}

	// -z continues the latest session too, with the same prompt bytes.
	r = hermes(t, home, home, append([]string{"-z", "and now?", "-c"}, common...)...)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Still zebrafish." || srv.Requests()[3].System() != reqs[0].System() {
		t.Fatalf("continue: exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}

	r = hermes(t, home, home, "sessions", "search", "zebrafish", "--json")
	var hits []struct {
		SessionID string `json:"session_id"`
		Snippet   string `json:"snippet"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil || len(hits) == 0 || hits[0].SessionID != id {
		t.Fatalf("search: %v %q", err, r.stdout)
	}

	r = hermes(t, home, home, "sessions", "export", id)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 9 || !strings.Contains(lines[0], `"type":"session"`) || !strings.Contains(lines[8], "Still zebrafish") {
		t.Fatalf("export: exit %d, %d lines: %s", r.code, len(lines), r.stdout)
	}
}

// Memory written in one session appears in the next session's system
// prompt, and not in the current one's (its snapshot is frozen).
func TestMemoryReachesTheNextSessionOnly(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "memory", Arguments: `{"action":"add","target":"user","content":"Prefers answers about zebras."}`}}},
		llmtest.Reply{Text: "Noted."},
		llmtest.Reply{Text: "Zebras, then."},
	)
	home := t.TempDir()
	common := []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
	if r := hermes(t, home, home, append([]string{"-z", "remember I like zebras"}, common...)...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r := hermes(t, home, home, append([]string{"-z", "what do I like?"}, common...)...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if strings.Contains(reqs[1].System(), "zebras") {
		t.Fatal("the current session's prompt changed after a memory write")
	}
	if reqs[0].System() != reqs[1].System() {
		t.Fatal("the system prompt changed within a session")
	}
	if !strings.Contains(reqs[2].System(), "Prefers answers about zebras.") {
		t.Fatalf("the next session's prompt lacks the memory:\n%s", reqs[2].System())
	}
	if b, err := os.ReadFile(filepath.Join(home, "memories", "USER.md")); err != nil || !strings.Contains(string(b), "zebras") {
		t.Fatalf("USER.md: %q %v", b, err)
	}
}

// A corrupt state.db is reported clearly and left exactly as it was.
func TestCorruptDatabaseIsReportedAndLeftAlone(t *testing.T) {
	home := t.TempDir()
	garbage := []byte(strings.Repeat("not a database, but the user's data; ", 300))
	db := filepath.Join(home, "state.db")
	os.WriteFile(db, garbage, 0o600)
	for _, args := range [][]string{
		{"-z", "hi", "--provider", "custom", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"},
		{"sessions", "list"},
	} {
		r := hermes(t, home, home, args...)
		if r.code == 0 || !contains(r.stderr, "state.db", "not a valid SQLite database", "left untouched") {
			t.Fatalf("%v: exit %d stderr %q", args, r.code, r.stderr)
		}
	}
	if b, _ := os.ReadFile(db); string(b) != string(garbage) {
		t.Fatal("the corrupt file was modified")
	}
}

func TestSessionsShowRenameCompressDeletePrune(t *testing.T) {
	srv := llmtest.NewServer(t)
	for i := 1; i <= 4; i++ {
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: fmt.Sprintf(`{"command":"echo part %d"}`, i)}}})
	}
	srv.Enqueue(llmtest.Reply{Text: "Four parts printed."})
	home := t.TempDir()
	writeConfig(t, home, "compression:\n  protect_first_n: 1\n  protect_last_n: 2\n")
	common := []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
	if r := hermes(t, home, home, append([]string{"-z", "print four parts"}, common...)...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	r := hermes(t, home, home, "sessions", "rename", "latest", "Four parts")
	if r.code != 0 {
		t.Fatalf("rename: %d %s", r.code, r.stderr)
	}
	r = hermes(t, home, home, "sessions", "show", "Four parts", "--json")
	var shown struct {
		ID       string        `json:"id"`
		Title    string        `json:"title"`
		Messages []llm.Message `json:"messages"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &shown); err != nil || shown.Title != "Four parts" || len(shown.Messages) != 10 {
		t.Fatalf("show: %v %s", err, r.stdout)
	}
	// A second session may not take the same title.
	srv.Enqueue(llmtest.Reply{Text: "another session"})
	if r := hermes(t, home, home, append([]string{"-z", "x"}, common...)...); r.code != 0 {
		t.Fatalf("second session: %d %s", r.code, r.stderr)
	}
	if r := hermes(t, home, home, "sessions", "rename", "latest", "Four parts"); r.code == 0 || !strings.Contains(r.stderr, "already used") {
		t.Fatalf("duplicate title accepted: %d %s", r.code, r.stderr)
	}

	srv.Enqueue(llmtest.Reply{Text: "## Goal\nprint parts\n## Progress\nparts 1-3 printed"}) // the summary
	r = hermes(t, home, home, append([]string{"sessions", "compress", shown.ID, "--json"}, common...)...)
	var comp struct {
		From, Session string
		Before, After int
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil || r.code != 0 {
		t.Fatalf("compress: %v exit %d %s %s", err, r.code, r.stdout, r.stderr)
	}
	comp.From, comp.Session = raw["from_session"].(string), raw["session"].(string)
	comp.Before, comp.After = int(raw["messages_before"].(float64)), int(raw["messages_after"].(float64))
	if comp.From != shown.ID || comp.Session == shown.ID || comp.After >= comp.Before {
		t.Fatalf("compress result %+v", comp)
	}
	r = hermes(t, home, home, "sessions", "show", comp.Session, "--json")
	var child struct {
		ParentID string        `json:"parent_session_id"`
		Messages []llm.Message `json:"messages"`
	}
	json.Unmarshal([]byte(r.stdout), &child)
	if child.ParentID != shown.ID || len(child.Messages) != comp.After {
		t.Fatalf("child session: %s", r.stdout)
	}

	if r := hermes(t, home, home, "sessions", "delete", comp.Session, "--yes"); r.code != 0 {
		t.Fatalf("delete: %d %s", r.code, r.stderr)
	}
	if r := hermes(t, home, home, "sessions", "show", comp.Session); r.code == 0 {
		t.Fatal("deleted session still shown")
	}
	r = hermes(t, home, home, "sessions", "prune", "--older-than", "0", "--json", "--yes")
	if r.code != 0 || !strings.Contains(r.stdout, `"deleted"`) {
		t.Fatalf("prune: %d %s %s", r.code, r.stdout, r.stderr)
	}
	r = hermes(t, home, home, "sessions", "list", "--all", "--json")
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("sessions left after prune: %s", r.stdout)
	}
}
