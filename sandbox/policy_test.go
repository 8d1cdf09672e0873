package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

func testPolicy(t *testing.T, mode Mode) (Policy, string, string) {
	t.Helper()
	base := Resolve(t.TempDir())
	home := filepath.Join(base, "home")
	ws := filepath.Join(base, "work")
	for _, d := range []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".hermes"), filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p, err := NewPolicy(Options{Mode: mode, Workdir: filepath.Join(ws, "src"), Home: home, HermesHome: filepath.Join(home, ".hermes"), Scratch: []string{filepath.Join(base, "tmp")}})
	if err != nil {
		t.Fatal(err)
	}
	return p, home, ws
}

func TestTheWorkspaceIsTheGitRoot(t *testing.T) {
	p, _, ws := testPolicy(t, WorkspaceWrite)
	if p.Workspace != ws {
		t.Fatalf("workspace %s, want the git root %s", p.Workspace, ws)
	}
}

func TestCheckWriteFollowsTheModeAndProtectedPaths(t *testing.T) {
	p, home, ws := testPolicy(t, WorkspaceWrite)
	// A link inside the workspace that points at the user's rc file.
	if err := os.Symlink(filepath.Join(home, ".bashrc"), filepath.Join(ws, "rc")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		ok   bool
	}{
		{filepath.Join(ws, "src", "main.go"), true},
		{filepath.Join(ws, "new", "dir", "file"), true},
		{filepath.Join(filepath.Dir(home), "tmp", "scratch.txt"), true},
		{filepath.Join(ws, ".git", "hooks", "pre-commit"), false},
		{filepath.Join(ws, ".git", "config"), false},
		{filepath.Join(ws, ".hermes", "x"), false},
		{filepath.Join(ws, "src", "..", "..", "home", ".bashrc"), false},
		{filepath.Join(ws, "rc"), false},
		{filepath.Join(home, ".hermes", "config.yaml"), false},
		{filepath.Join(home, ".ssh", "authorized_keys"), false},
		{filepath.Join(home, "notes.txt"), false},
		{"/etc/passwd", false},
	}
	for _, tt := range tests {
		if err := p.CheckWrite(tt.path); (err == nil) != tt.ok {
			t.Errorf("CheckWrite(%s) = %v, want allowed %v", tt.path, err, tt.ok)
		}
	}
	ro, _, _ := testPolicy(t, ReadOnly)
	if err := ro.CheckWrite(filepath.Join(ro.Workspace, "a.txt")); err == nil {
		t.Error("read-only allowed a write in the workspace")
	}
	full, home2, _ := testPolicy(t, FullAccess)
	if err := full.CheckWrite(filepath.Join(home2, ".hermes", "config.yaml")); err != nil {
		t.Errorf("full-access refused: %v", err)
	}
}

func TestCheckReadHidesCredentials(t *testing.T) {
	p, home, ws := testPolicy(t, WorkspaceWrite)
	if err := p.CheckRead(filepath.Join(home, ".hermes", ".env")); err == nil {
		t.Error("HERMES_HOME/.env readable")
	}
	if err := p.CheckRead(filepath.Join(home, ".ssh", "id_ed25519")); err == nil {
		t.Error("~/.ssh readable")
	}
	if err := p.CheckRead(filepath.Join(ws, "src", "main.go")); err != nil {
		t.Errorf("workspace file refused: %v", err)
	}
}

func TestHermesHomeKeepsItsKeysAndIsNeverWritten(t *testing.T) {
	p, home, _ := testPolicy(t, WorkspaceWrite)
	hh := filepath.Join(home, ".hermes")
	for _, f := range []string{".env", "config.yaml", "state.db", "auth.json", "cron/cron.db", "gateway/gateway.db", "logs/hermes.log"} {
		if err := p.CheckRead(filepath.Join(hh, f)); err == nil {
			t.Errorf("%s readable", f)
		}
	}
	if err := p.CheckRead(filepath.Join(hh, "memories", "MEMORY.md")); err != nil {
		t.Errorf("memories unreadable: %v", err)
	}
	if err := p.CheckWrite(filepath.Join(hh, "memories", "MEMORY.md")); err == nil {
		t.Error("a tool may write into HERMES_HOME")
	}
}

func TestDaemonSocketsAreHidden(t *testing.T) {
	runtime := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	t.Setenv("SSH_AUTH_SOCK", filepath.Join(runtime, "ssh", "agent.sock"))
	p, _, _ := testPolicy(t, WorkspaceWrite)
	for _, path := range []string{"/run/docker.sock", "/run/systemd/private", "/tmp/.X11-unix", Resolve(runtime), Resolve(filepath.Join(runtime, "ssh", "agent.sock"))} {
		if err := p.CheckRead(path); err == nil {
			t.Errorf("%s is readable", path)
		}
	}
	// A writable root inside the runtime directory keeps it visible.
	p, err := NewPolicy(Options{Workdir: t.TempDir(), Scratch: []string{filepath.Join(runtime, "tmp")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckRead(filepath.Join(runtime, "tmp", "x")); err != nil {
		t.Errorf("the scratch directory inside the runtime directory is hidden: %v", err)
	}
}

func TestTheHooksGitRunsAreReadOnly(t *testing.T) {
	base := Resolve(t.TempDir())
	main := filepath.Join(base, "main")
	wt := filepath.Join(base, "wt")
	files := map[string]string{
		"main/.git/config":                 "[core]\n\tbare = false\n[Core]\n\thooksPath = .husky\n",
		"main/.git/worktrees/wt/commondir": "../..\n",
		"wt/.git":                          "gitdir: " + filepath.Join(main, ".git", "worktrees", "wt") + "\n",
	}
	for name, content := range files {
		p := filepath.Join(base, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := NewPolicy(Options{Workdir: wt, ExtraRoots: []string{main}, Scratch: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		filepath.Join(main, ".git", "hooks", "pre-commit"),
		filepath.Join(main, ".git", "config"),
		filepath.Join(main, ".git", "worktrees", "wt", "config.worktree"),
		filepath.Join(wt, ".husky", "pre-commit"),   // the worktree's hooksPath
		filepath.Join(main, ".husky", "pre-commit"), // the main work tree's
	} {
		if err := p.CheckWrite(path); err == nil {
			t.Errorf("%s is writable", path)
		}
	}
	if err := p.CheckWrite(filepath.Join(main, ".git", "objects", "ab")); err != nil {
		t.Errorf("git objects must stay writable: %v", err)
	}
}
