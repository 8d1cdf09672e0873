package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// storeSessions runs n one-shot sessions in home and returns their ids,
// newest first.
func storeSessions(t *testing.T, home string, n int) []string {
	t.Helper()
	srv := llmtest.NewServer(t)
	for i := range n {
		srv.Enqueue(llmtest.Reply{Text: fmt.Sprintf("answer %d", i)})
		if r := hermes(t, home, home, "-z", fmt.Sprintf("question %d", i), "--provider", "custom", "--base-url", srv.URL(), "--model", "m"); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
	return sessionIDs(t, home)
}

func sessionIDs(t *testing.T, home string) []string {
	t.Helper()
	r := hermes(t, home, home, "sessions", "list", "--all", "--json")
	var list []struct{ ID string }
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("sessions list: %v %q %s", err, r.stdout, r.stderr)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.ID)
	}
	return ids
}

// Without a terminal to ask on and without --yes, nothing is deleted:
// status 2 and a message saying to pass --yes.
func TestDestructiveSessionCommandsNeedYesWithoutATerminal(t *testing.T) {
	home := t.TempDir()
	ids := storeSessions(t, home, 2)
	for _, args := range [][]string{
		{"sessions", "delete", ids[0]},
		{"sessions", "delete", ids[0], "--json"},
		{"sessions", "prune", "--older-than", "0"},
	} {
		r := hermesIn(t, "y\n", home, home, args...)
		if r.code != 2 || !contains(r.stderr, "--yes", "not a terminal", "nothing was deleted") || r.stdout != "" {
			t.Fatalf("%v: exit %d stdout %q stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	if got := sessionIDs(t, home); len(got) != 2 {
		t.Fatalf("sessions left %v", got)
	}
	if r := hermes(t, home, home, "sessions", "delete", ids[0], "--yes"); r.code != 0 || !strings.Contains(r.stdout, "deleted "+ids[0]) {
		t.Fatalf("delete --yes: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := hermes(t, home, home, "sessions", "prune", "--older-than", "0", "-y", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"deleted": 1`) {
		t.Fatalf("prune --yes: exit %d %s %s", r.code, r.stdout, r.stderr)
	}
	if got := sessionIDs(t, home); len(got) != 0 {
		t.Fatalf("sessions left %v", got)
	}
}

func TestPruneDryRunListsWhatWouldGoAndDeletesNothing(t *testing.T) {
	home := t.TempDir()
	ids := storeSessions(t, home, 2)
	r := hermes(t, home, home, "sessions", "prune", "--older-than", "0", "--dry-run")
	if r.code != 0 || !contains(r.stdout, "would delete 2 session(s)", ids[0], ids[1], "question 1") {
		t.Fatalf("dry run: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	r = hermes(t, home, home, "sessions", "prune", "--older-than", "0", "--dry-run", "--json")
	var v struct {
		DryRun      bool `json:"dry_run"`
		WouldDelete int  `json:"would_delete"`
		Sessions    []struct{ ID string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || !v.DryRun || v.WouldDelete != 2 || len(v.Sessions) != 2 {
		t.Fatalf("dry run --json: %v %s", err, r.stdout)
	}
	if r := hermes(t, home, home, "sessions", "prune", "--older-than", "30", "--dry-run"); r.code != 0 || !strings.Contains(r.stdout, "would delete 0 session(s)") {
		t.Fatalf("nothing old: %d %q", r.code, r.stdout)
	}
	if got := sessionIDs(t, home); len(got) != 2 {
		t.Fatalf("a dry run deleted: %v", got)
	}
}

// A session too short to compress says so, with its size and what the
// settings need.
func TestCompressSaysWhyItDidNothing(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"echo hi"}`}}}, llmtest.Reply{Text: "said hi"})
	home := t.TempDir()
	common := []string{"--provider", "custom", "--base-url", srv.URL(), "--model", "m"}
	if r := hermes(t, home, home, append([]string{"-z", "say hi"}, common...)...); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	r := hermes(t, home, home, append([]string{"sessions", "compress", "latest"}, common...)...)
	if r.code != 1 || !contains(r.stderr, "nothing to compress", "it has 4 messages", "first 3", "compression.protect_first_n",
		"last 20", "compression.protect_last_n", "needs more than 23") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	writeConfig(t, home, "compression:\n  enabled: false\n")
	r = hermes(t, home, home, append([]string{"sessions", "compress", "latest"}, common...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "compression.enabled: false") {
		t.Fatalf("compression off: exit %d stderr %q", r.code, r.stderr)
	}
}
