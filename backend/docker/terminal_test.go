package docker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/file"
	"github.com/hermes-go/hermes/tools/terminal"
)

// callTool runs a tool with args as the model would.
func callTool(t *testing.T, tl tool.Tool, task string, args map[string]any) tool.Result {
	t.Helper()
	b, _ := json.Marshal(args)
	res, err := tl.Run(context.Background(), tool.Call{Name: tl.Spec().Name, Args: b, TaskID: task, SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The terminal tool over the docker backend reads as on this machine:
// exit code, cwd, stdout and stderr apart; the directory persists per
// task.
func TestTerminalToolResultsReadAsOnTheLocalBackend(t *testing.T) {
	r := newRig(t, "docker", nil)
	os.Mkdir(filepath.Join(r.ws, "sub"), 0o755)
	term := terminal.New(terminal.Options{Backend: r.b})
	defer term.Close()
	tl := term.TerminalTool()
	res := callTool(t, tl, "a", map[string]any{"command": "cd sub && echo out && echo err >&2; exit 2"})
	for _, want := range []string{"exit code: 2\n", "cwd: " + r.ws + "/sub\n", "--- stdout ---\nout\n", "--- stderr ---\nerr\n"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("result lacks %q:\n%s", want, res.Content)
		}
	}
	if res := callTool(t, tl, "a", map[string]any{"command": "pwd"}); !strings.Contains(res.Content, "--- stdout ---\n"+r.ws+"/sub\n") {
		t.Errorf("task a's directory did not persist:\n%s", res.Content)
	}
	if res := callTool(t, tl, "b", map[string]any{"command": "pwd"}); !strings.Contains(res.Content, "--- stdout ---\n"+r.ws+"\n") {
		t.Errorf("task b starts elsewhere than the workspace:\n%s", res.Content)
	}
	if d := tl.Spec().Description; !strings.Contains(d, "image debian:stable-slim") || !strings.Contains(d, "no network") {
		t.Errorf("description does not say where commands run: %s", d)
	}
	// A background process in the container has no local pid to show.
	res = callTool(t, tl, "a", map[string]any{"command": "sleep 30", "background": true})
	if res.IsError || !strings.Contains(res.Content, "Started background process") || strings.Contains(res.Content, "pid") {
		t.Errorf("background start reads:\n%s", res.Content)
	}
}

func TestAnEngineFailureIsTheToolResult(t *testing.T) {
	r := newRig(t, "docker", nil)
	os.WriteFile(filepath.Join(r.dir, "daemon-down"), nil, 0o644)
	term := terminal.New(terminal.Options{Backend: r.b})
	defer term.Close()
	res := callTool(t, term.TerminalTool(), "a", map[string]any{"command": "echo hi"})
	if !res.IsError || !strings.Contains(res.Content, "container engine does not answer") || !strings.Contains(res.Content, "Cannot connect to the Docker daemon") {
		t.Errorf("result %+v", res)
	}
}

// The file tools over the backend: the workspace through the mount, the
// sandbox's refusal for a git hook.
func TestFileToolsOverTheBackend(t *testing.T) {
	r := newRig(t, "docker", nil)
	os.MkdirAll(filepath.Join(r.ws, ".git", "hooks"), 0o755)
	r.opts.Policy = policy(t, "workspace-write", r.ws, t.TempDir())
	b := r.open()
	files := file.New(file.Options{FS: b.FS(), WriteGuard: b.CheckWrite, ReadGuard: b.CheckRead, Workdir: func(string) string { return r.ws }})
	var write tool.Tool
	for _, tl := range files.All() {
		if tl.Spec().Name == "write_file" {
			write = tl
		}
	}
	if res := callTool(t, write, "a", map[string]any{"path": "notes.txt", "content": "hi\n"}); res.IsError {
		t.Fatalf("write_file: %s", res.Content)
	}
	if b, _ := os.ReadFile(filepath.Join(r.ws, "notes.txt")); string(b) != "hi\n" {
		t.Errorf("notes.txt = %q", b)
	}
	if res := callTool(t, write, "a", map[string]any{"path": ".git/hooks/pre-commit", "content": "evil"}); !res.IsError || !strings.Contains(res.Content, "read-only") {
		t.Errorf("a git hook was written: %+v", res)
	}
}
