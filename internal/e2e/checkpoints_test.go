//go:build linux

package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// A run deletes, overwrites, patches and creates files in a git
// workspace; hermes checkpoints restore brings back every file byte for
// byte and removes the created one, leaving .git and ignored files alone.
func TestCheckpointRestoreUndoesARun(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(t.TempDir(), "project")
	orig := map[string]string{
		".git/HEAD":   "ref: refs/heads/main\n",
		".gitignore":  "*.log\n",
		"gone.txt":    "to be deleted\n",
		"blob.bin":    "\x00\x01\x02binary\xff",
		"edit.txt":    "alpha\nbeta\ngamma\n",
		"run.sh":      "#!/bin/sh\necho hi\n",
		"keep/a.txt":  "untouched\n",
		"scratch.log": "ignored\n",
	}
	for p, body := range orig {
		abs := filepath.Join(work, p)
		os.MkdirAll(filepath.Dir(abs), 0o755)
		if err := os.WriteFile(abs, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(filepath.Join(work, "run.sh"), 0o755)

	call := func(name string, args map[string]string) llmtest.Reply {
		b, _ := json.Marshal(args)
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: name, Arguments: string(b)}}}
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		call("read_file", map[string]string{"path": "edit.txt"}),
		call("terminal", map[string]string{"command": "rm gone.txt && echo after > scratch.log"}),
		call("write_file", map[string]string{"path": "blob.bin", "content": "text now\n"}),
		call("patch", map[string]string{"path": "edit.txt", "old_string": "beta", "new_string": "BETA"}),
		call("write_file", map[string]string{"path": "sub/new.txt", "content": "created\n"}),
		llmtest.Reply{Text: "done"},
	)
	r := hermes(t, home, work, "-z", "change things", "--yolo", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "gone.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the run did not delete gone.txt: %v\n%s\n%q", err, r.stderr, toolResults(srv.Requests()[len(srv.Requests())-1]))
	}

	r = hermes(t, home, work, "checkpoints", "list", "--json")
	var cps []struct {
		ID, Reason string
		Turn       int
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &cps) != nil {
		t.Fatalf("list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if len(cps) != 1 || cps[0].Turn != 1 || cps[0].Reason != "before terminal" {
		t.Fatalf("checkpoints = %+v, want one, before the terminal call of turn 1", cps)
	}

	r = hermes(t, home, work, "checkpoints", "diff", cps[0].ID)
	for _, want := range []string{"M blob.bin", "M edit.txt", "D gone.txt", "A sub/new.txt"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("diff lacks %q:\n%s", want, r.stdout)
		}
	}

	r = hermes(t, home, work, "checkpoints", "restore", cps[0].ID)
	if r.code != 0 || !strings.Contains(r.stdout, "undo with: hermes checkpoints restore ") {
		t.Fatalf("restore: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	orig["scratch.log"] = "after\n" // ignored: left as the run made it
	for p, body := range orig {
		if b, err := os.ReadFile(filepath.Join(work, p)); err != nil || string(b) != body {
			t.Errorf("%s = %q, %v; want %q", p, b, err, body)
		}
	}
	if fi, _ := os.Stat(filepath.Join(work, "run.sh")); fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode = %v", fi.Mode())
	}
	if _, err := os.Stat(filepath.Join(work, "sub")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the created sub/new.txt survived the restore: %v", err)
	}
	r = hermes(t, home, work, "checkpoints", "list")
	if !strings.Contains(r.stdout, "before restore of "+cps[0].ID) {
		t.Errorf("no checkpoint of the state before the restore:\n%s", r.stdout)
	}
}

// /rollback in the chat undoes the last turn's changes; a second
// /rollback undoes the rollback. checkpoints.enabled: false takes none.
func TestRollbackInTheChat(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(t.TempDir(), "project")
	os.MkdirAll(filepath.Join(work, ".git"), 0o755)
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]string{"path": "notes.txt", "content": "overwritten\n"})
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected() // the background title call may or may not come
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: string(b)}}}, llmtest.Reply{Text: "rewrote it"})
	r := hermesIn(t, "rewrite the notes\n/rollback\n", home, work, "chat", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
	if r.code != 0 {
		t.Fatalf("chat: %d\n%s", r.code, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(work, "notes.txt")); string(got) != "original\n" {
		t.Fatalf("after /rollback notes.txt holds %q\n%s", got, r.stderr)
	}
	if !strings.Contains(r.stderr, "notes.txt") {
		t.Fatalf("/rollback did not say what it restored:\n%s", r.stderr)
	}
	// The banner says the sandbox mode and how much of it is enforced.
	if !strings.Contains(r.stderr, "sandbox workspace-write: ") {
		t.Fatalf("the chat banner does not show the sandbox:\n%s", r.stderr)
	}

	off := t.TempDir()
	os.WriteFile(filepath.Join(off, "config.yaml"), []byte("checkpoints:\n  enabled: false\n"), 0o644)
	srv.Enqueue(llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: string(b)}}}, llmtest.Reply{Text: "rewrote it"})
	if r := hermes(t, off, work, "-z", "rewrite", "--provider", "custom", "--base-url", srv.URL(), "--model", "m"); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(off, "checkpoints")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("checkpoints were taken with checkpoints.enabled: false (%v)", err)
	}
}
