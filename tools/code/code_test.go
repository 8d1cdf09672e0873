package code

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/sandbox"
)

func TestAScriptCallsFiveToolsAndPrintsTheirResults(t *testing.T) {
	b := newBox(t, boxOptions{})
	b.write(t, "notes/a.txt", "alpha\nTODO one\n")
	b.write(t, "notes/b.txt", "beta\n")
	r, o := b.run(t, `
from hermes_tools import read_file, write_file, patch, search_files, terminal
a = read_file(path="notes/a.txt")
print("read:", "TODO one" in a)
write_file(path="out.txt", content="first line\n")
patch(path="out.txt", old_string="first", new_string="patched")
found = search_files(pattern="TODO", path="notes")
print("search:", "a.txt" in str(found))
t = terminal(command="cat out.txt && pwd")
print("terminal:", t.strip().splitlines())
`)
	if o.Result.IsError || r.ExitCode != 0 {
		t.Fatalf("script failed: %+v", r)
	}
	for _, want := range []string{"read: True", "search: True", "patched line"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, r.Stdout)
		}
	}
	if !strings.Contains(r.Stdout, b.ws) {
		t.Errorf("the terminal call did not run in the workspace:\n%s", r.Stdout)
	}
	var names []string
	for _, c := range r.ToolCalls {
		if !c.OK {
			t.Errorf("call %s failed: %s", c.Tool, c.Error)
		}
		names = append(names, c.Tool)
	}
	if got := strings.Join(names, ","); got != "read_file,write_file,patch,search_files,terminal" {
		t.Errorf("tool calls %s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(b.ws, "out.txt")); string(got) != "patched line\n" {
		t.Errorf("out.txt = %q", got)
	}
}

func TestAToolErrorIsAnExceptionTheScriptCatches(t *testing.T) {
	b := newBox(t, boxOptions{})
	r, _ := b.run(t, `
import hermes_tools
try:
    hermes_tools.read_file(path="missing.txt")
except hermes_tools.ToolError as e:
    print("caught", e.tool, "does not exist" in str(e))
`)
	if r.ExitCode != 0 || strings.TrimSpace(r.Stdout) != "caught read_file True" {
		t.Fatalf("result %+v", r)
	}
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].OK || r.ToolCalls[0].Error == "" {
		t.Errorf("the failed call is not listed as failed: %+v", r.ToolCalls)
	}
}

func TestAScriptErrorReturnsItsTraceback(t *testing.T) {
	b := newBox(t, boxOptions{})
	r, o := b.run(t, "def f():\n    raise ValueError('bad value')\nf()\n")
	if r.ExitCode != 1 || !o.Result.IsError {
		t.Fatalf("exit %d, error %v", r.ExitCode, o.Result.IsError)
	}
	if !strings.Contains(r.Stderr, "Traceback") || !strings.Contains(r.Stderr, "ValueError: bad value") {
		t.Errorf("stderr: %s", r.Stderr)
	}
}

func TestADangerousCommandInAScriptIsDeniedWhenNobodyAttends(t *testing.T) {
	b := newBox(t, boxOptions{})
	junk := b.write(t, "junk/file", "x")
	r, _ := b.run(t, `
from hermes_tools import terminal, ToolError
try:
    terminal(command="rm -rf junk")
    print("ran")
except ToolError as e:
    print("refused:", e)
`)
	if !strings.Contains(r.Stdout, "refused:") || !strings.Contains(r.Stdout, "no user is attached") {
		t.Errorf("stdout: %s", r.Stdout)
	}
	if _, err := os.Stat(junk); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
}

func TestADangerousCommandInAScriptAsksThePerson(t *testing.T) {
	b := newBox(t, boxOptions{ask: true})
	junk := b.write(t, "junk/file", "x")
	r, _ := b.run(t, `
from hermes_tools import terminal
print(terminal(command="rm -rf junk"))
`)
	if len(b.asked) != 1 || b.asked[0] != "rm -rf junk" {
		t.Fatalf("asked %q; result %+v", b.asked, r)
	}
	if _, err := os.Stat(junk); !os.IsNotExist(err) {
		t.Errorf("the approved command did not run: %v", err)
	}
}

func TestAWriteOutsideTheWorkspaceFailsInsideAScript(t *testing.T) {
	b := newBox(t, boxOptions{})
	target := filepath.Join(b.outside, "x.txt")
	r, _ := b.run(t, strings.ReplaceAll(`
from hermes_tools import write_file, ToolError
try:
    write_file(path="TARGET", content="x")
    print("written")
except ToolError as e:
    print("refused:", e)
try:
    open("TARGET", "w").write("x")
    print("written directly")
except OSError as e:
    print("direct write refused")
`, "TARGET", target))
	if !strings.Contains(r.Stdout, "refused:") || !strings.Contains(r.Stdout, "direct write refused") {
		t.Errorf("stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("a file was written outside the workspace: %v", err)
	}
}

func TestSecretsAreNotInTheScriptsEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef0123456789abcdef")
	t.Setenv("HERMES_CODE_PLAIN", "visible")
	t.Setenv("PYTHONPATH", "/hermes-source-tree")
	b := newBox(t, boxOptions{})
	r, _ := b.run(t, `
import os, hermes_tools
print("OPENAI_API_KEY" in os.environ, os.environ.get("HERMES_CODE_PLAIN"), "HERMES_TOOLS_TOKEN" in os.environ)
import site, sys
print(os.environ.get("PYTHONPATH").split(os.pathsep)[0] == os.path.dirname(hermes_tools.__file__))
print(all(p in sys.path for p in site.getsitepackages() if os.path.isdir(p)))
print("/hermes-source-tree" in sys.path)
`)
	if got := strings.TrimSpace(r.Stdout); got != "False visible False\nTrue\nTrue\nFalse" {
		t.Errorf("stdout %q, stderr %s", got, r.Stderr)
	}
}

func TestAConnectionWithoutTheTokenIsRefused(t *testing.T) {
	b := newBox(t, boxOptions{})
	b.write(t, "a.txt", "content of a\n")
	r, _ := b.run(t, `
import os, sys, subprocess
sock = os.environ["HERMES_TOOLS_SOCKET"]
probe = r'''
import socket, sys, json
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
f.write(json.dumps({"token": sys.argv[2], "tool": "read_file", "args": {"path": "a.txt"}}).encode() + b"\n"); f.flush()
print(f.readline().decode().strip())
try:
    f.write(json.dumps({"token": sys.argv[2], "tool": "read_file", "args": {"path": "a.txt"}}).encode() + b"\n"); f.flush()
    print("after:", "closed" if f.readline() == b"" else "served")
except OSError:
    print("after: closed")
'''
for token in ["wrong", ""]:
    print(subprocess.run([sys.executable, "-c", probe, sock, token], capture_output=True, text=True).stdout)
from hermes_tools import read_file
print("own call:", "content of a" in read_file(path="a.txt"))
`)
	if strings.Count(r.Stdout, `"error":"refused: not this run's token"`) != 2 || strings.Count(r.Stdout, "after: closed") != 2 {
		t.Errorf("a process without the token was served:\n%s\n%s", r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout, "content of a\\n") || !strings.Contains(r.Stdout, "own call: True") {
		t.Errorf("stdout:\n%s", r.Stdout)
	}
	if len(r.ToolCalls) != 1 {
		t.Errorf("tool calls %+v", r.ToolCalls)
	}
}

func TestWhatAScriptIsRefused(t *testing.T) {
	b := newBox(t, boxOptions{})
	r, _ := b.run(t, `
import os, stat, hermes_tools
from hermes_tools import ToolError
for tool, args in [("terminal", {"command": "sleep 100", "background": True}), ("execute_code", {"code": "print(1)"}), ("clarify", {"question": "?"})]:
    try:
        hermes_tools._call(tool, args)
        print(tool, "ran")
    except ToolError as e:
        print(tool, "refused:", e)
print(oct(stat.S_IMODE(os.stat(os.path.dirname(hermes_tools.__file__)).st_mode)))
print(hasattr(hermes_tools, "execute_code"), hasattr(hermes_tools, "clarify"), hasattr(hermes_tools, "read_file"))
`)
	for _, want := range []string{
		"terminal refused: terminal: background processes cannot be started from execute_code",
		"execute_code refused: execute_code is not available inside execute_code",
		"clarify refused: clarify is not available",
		"0o700\n",
		"False False True\n",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q:\n%s\n%s", want, r.Stdout, r.Stderr)
		}
	}
	if len(r.ToolCalls) != 0 {
		t.Errorf("refused calls ran: %+v", r.ToolCalls)
	}
}

// In a read-only sandbox a script still reaches hermes and reads, and
// cannot write.
func TestAScriptRunsInAReadOnlySandbox(t *testing.T) {
	b := newBox(t, boxOptions{mode: sandbox.ReadOnly})
	b.write(t, "a.txt", "content of a\n")
	r, _ := b.run(t, `
from hermes_tools import read_file, write_file, ToolError
print("content of a" in read_file(path="a.txt"))
try:
    write_file(path="b.txt", content="x")
    print("written")
except ToolError:
    print("refused")
`)
	if r.Stdout != "True\nrefused\n" {
		t.Errorf("stdout %q stderr %s", r.Stdout, r.Stderr)
	}
}

// Connections past maxConns are closed at once: a script cannot make
// hermes hold a buffer per connection without end.
func TestAScriptHoldsAtMostMaxConnsConnections(t *testing.T) {
	b := newBox(t, boxOptions{})
	r, _ := b.run(t, `
import os, socket
path = os.environ["HERMES_TOOLS_SOCKET"]
held, closed = [], 0
for i in range(40):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.settimeout(0.1)
    held.append(s)
for s in held:
    try:
        if s.recv(1) == b"":
            closed += 1
    except socket.timeout:
        pass
print(closed)
`)
	if got := strings.TrimSpace(r.Stdout); got != "24" {
		t.Errorf("%s connections of 40 were closed at once, want 24 (stderr %s)", got, r.Stderr)
	}
}
