package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func writeConfig(t *testing.T, home, yaml string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
}

// An overflow error compresses the history with the summary model, then
// the call is retried and the turn completes in a child session.
func TestOverflowCompressesAndRetriesInAChildSession(t *testing.T) {
	srv := llmtest.NewServer(t)
	for i := 1; i <= 5; i++ {
		srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: fmt.Sprintf("call_%d", i), Name: "terminal", Arguments: fmt.Sprintf(`{"command":"echo step %d"}`, i)}}})
	}
	srv.Enqueue(
		llmtest.Error(400, llmtest.OpenAIContextOverflowBody),
		llmtest.Reply{Text: "## Goal\nrun five steps\n## Progress\nsteps 1-3 done"}, // the summary
		llmtest.Reply{Text: "All five steps ran."},
	)
	home := t.TempDir()
	writeConfig(t, home, "compression:\n  protect_first_n: 1\n  protect_last_n: 4\n")
	r := hermes(t, home, home, "-z", "run five steps", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "All five steps ran." {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 8 {
		t.Fatalf("%d requests", len(reqs))
	}
	retry := reqs[7].Messages()
	if len(retry) >= len(reqs[5].Messages()) {
		t.Fatalf("retry sent %d messages, the overflowing call %d", len(retry), len(reqs[5].Messages()))
	}
	var sawSummary bool
	for _, m := range retry {
		if strings.Contains(m.Content, "steps 1-3 done") {
			sawSummary = true
		}
	}
	if !sawSummary {
		t.Fatalf("retry lacks the summary: %+v", retry)
	}
	// Every tool call in the retry still has its result (llmtest rejects
	// the request otherwise), and lineage is recorded.
	r = hermes(t, home, home, "sessions", "list", "--all", "--json")
	var list []struct {
		ID       string `json:"id"`
		ParentID string `json:"parent_session_id"`
		EndedAt  string `json:"ended_at"`
	}
	json.Unmarshal([]byte(r.stdout), &list)
	if len(list) != 2 {
		t.Fatalf("sessions %s", r.stdout)
	}
	var child, parent = list[0], list[1]
	if child.ParentID == "" {
		child, parent = parent, child
	}
	if child.ParentID != parent.ID {
		t.Fatalf("lineage %+v", list)
	}
}

// Three 500s exhaust the primary; the turn finishes on the fallback, and
// the next turn starts on the primary again.
func TestServerErrorsFallBackForTheTurnOnly(t *testing.T) {
	primary := llmtest.NewServer(t)
	primary.AllowUnexpected()
	backup := llmtest.NewServer(t)
	for i := 0; i < 4; i++ {
		primary.Enqueue(llmtest.Error(500, "").WithHeader("retry-after-ms", "1"))
	}
	primary.Enqueue(llmtest.Reply{Text: "primary again"})
	backup.Enqueue(llmtest.Reply{Text: "answered by the backup"})
	titles := llmtest.NewServer(t)
	titles.Enqueue(llmtest.Reply{Text: "\"Backup Answers First Question\""})
	home := t.TempDir()
	writeConfig(t, home, fmt.Sprintf(`fallback_providers:
  - provider: custom
    model: backup-model
    base_url: %s
auxiliary:
  title_generation:
    provider: custom
    model: title-model
    base_url: %s
`, backup.URL(), titles.URL()))
	cmd := exec.Command(hermesBin, "chat", "--provider", "custom", "--base-url", primary.URL(), "--model", "main-model")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH")}
	cmd.Stdin = strings.NewReader("first question\nsecond question\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "answered by the backup") || !strings.Contains(string(out), "primary again") {
		t.Fatalf("output:\n%s", out)
	}
	b := backup.Requests()
	if len(b) != 1 || b[0].Model != "backup-model" {
		t.Fatalf("backup requests %d", len(b))
	}
	if !strings.Contains(b[0].System(), "Model: backup-model") {
		t.Fatalf("the fallback's system prompt still names the primary:\n%s", b[0].System())
	}
	p := primary.Requests()
	if last := p[len(p)-1]; !strings.Contains(last.System(), "Model: main-model") {
		t.Fatalf("second turn did not return to the primary")
	}
	// The session was titled in the background after its first turn.
	r := hermes(t, home, home, "sessions", "list", "--json")
	if !strings.Contains(r.stdout, `"title": "Backup Answers First Question"`) {
		t.Fatalf("sessions list: %s", r.stdout)
	}
}
