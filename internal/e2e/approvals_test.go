package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

const commentedConfig = `# my settings
agent:
  max_turns: 50   # short

# commands I trust
command_allowlist:
  - git_force_push   # I know what I do
# end
`

// Answering "always" says what it allows from now on, saves the pattern
// without touching the file's comments, and lets the next command of the
// kind run unasked; approvals list shows it and revoke undoes it exactly.
func TestAlwaysApprovalIsExplainedListedAndRevocable(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	writeConfig(t, home, commentedConfig)
	for _, d := range []string{"a", "b"} {
		os.MkdirAll(filepath.Join(work, "tmp", d), 0o755)
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"rm -rf tmp/a"}`}}},
		llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"rm -rf tmp/b"}`}}},
		llmtest.Reply{Text: "both deleted"},
		llmtest.Reply{Text: "Cleaning Directories"}, // the session title
	)
	r := hermesIn(t, "clean both\na\n", home, work, "chat", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if strings.Count(r.stderr, "DANGEROUS COMMAND") != 1 ||
		!contains(r.stderr, "From now on, in every session", "not only this one", "recursive_delete: recursive delete",
			"command_allowlist in "+filepath.Join(home, "config.yaml"), "hermes approvals revoke recursive_delete") {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	for _, d := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(work, "tmp", d)); !os.IsNotExist(err) {
			t.Fatalf("tmp/%s was not deleted", d)
		}
	}
	want := strings.Replace(commentedConfig, "# I know what I do\n", "# I know what I do\n  - recursive_delete\n", 1)
	if b, _ := os.ReadFile(filepath.Join(home, "config.yaml")); string(b) != want {
		t.Fatalf("config.yaml is\n%s\nwant\n%s", b, want)
	}

	r = hermes(t, home, home, "approvals", "list")
	if r.code != 0 || !contains(r.stdout, "git_force_push", "git push --force", "recursive_delete", "recursive delete", "hermes approvals revoke KEY") {
		t.Fatalf("list: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	r = hermes(t, home, home, "approvals", "list", "--json")
	var rows []struct {
		Entry, Key, Description string
		Active                  bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 2 || rows[1].Key != "recursive_delete" || !rows[1].Active || rows[1].Description != "recursive delete" {
		t.Fatalf("list --json: %v %s", err, r.stdout)
	}

	r = hermes(t, home, home, "approvals", "revoke", "recursive_delete")
	if r.code != 0 || !strings.Contains(r.stdout, "revoked recursive_delete") {
		t.Fatalf("revoke: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "config.yaml")); string(b) != commentedConfig {
		t.Fatalf("after revoke config.yaml is\n%s", b)
	}
	r = hermes(t, home, home, "approvals", "revoke", "recursive_delete")
	if r.code != 1 || !contains(r.stderr, `"recursive_delete" is not in command_allowlist`, "git_force_push") {
		t.Fatalf("second revoke: exit %d stderr %q", r.code, r.stderr)
	}
}

func TestApprovalsListFlagsEntriesThatAllowNothing(t *testing.T) {
	home := t.TempDir()
	r := hermes(t, home, home, "approvals", "list")
	if r.code != 0 || !contains(r.stdout, "No saved approvals", "always") {
		t.Fatalf("empty: exit %d stdout %q", r.code, r.stdout)
	}
	writeConfig(t, home, "command_allowlist: [Recursive Delete, rm_everything, delete_root]\n")
	r = hermes(t, home, home, "approvals", "list", "--json")
	var rows []struct {
		Entry, Key, Note string
		Active           bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("%v %s", err, r.stdout)
	}
	if !rows[0].Active || rows[0].Key != "recursive_delete" || rows[1].Active || !strings.Contains(rows[1].Note, "no pattern") ||
		rows[2].Active || !strings.Contains(rows[2].Note, "hardline") {
		t.Fatalf("rows %+v", rows)
	}
	// Revoking by key removes an entry saved by its description.
	if r := hermes(t, home, home, "approvals", "revoke", "recursive_delete"); r.code != 0 {
		t.Fatalf("revoke: %d %s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "config.yaml")); string(b) != "command_allowlist: [rm_everything, delete_root]\n" {
		t.Fatalf("config.yaml %q", b)
	}
}
