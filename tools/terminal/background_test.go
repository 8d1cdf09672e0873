package terminal

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func startBG(t *testing.T, term *Terminal, task, cmd string) string {
	t.Helper()
	res := run(t, term.TerminalTool(), task, map[string]any{"command": cmd, "background": true})
	m := regexp.MustCompile(`process (proc_\d+)`).FindStringSubmatch(res.Content)
	if res.IsError || m == nil {
		t.Fatalf("start background: %s", res.Content)
	}
	return m[1]
}

func TestBackgroundProcessLifecycle(t *testing.T) {
	dir := t.TempDir()
	term := newTerm(t, Options{Dir: dir})
	pt := term.ProcessTool()
	gate := filepath.Join(dir, "gate")
	id := startBG(t, term, "t", "echo ready; echo warn >&2; while [ ! -e gate ]; do sleep 0.01; done; echo done; exit 7")

	res := run(t, pt, "t", map[string]any{"action": "list"})
	if !strings.Contains(res.Content, id+": running") {
		t.Errorf("list: %s", res.Content)
	}
	res = run(t, pt, "t", map[string]any{"action": "wait", "id": id, "timeout": 0.05})
	if !strings.Contains(res.Content, "still running") {
		t.Errorf("bounded wait on a running process: %s", res.Content)
	}
	os.WriteFile(gate, nil, 0o644)
	res = run(t, pt, "t", map[string]any{"action": "wait", "id": id, "timeout": 30})
	if !strings.Contains(res.Content, "exited with code 7") {
		t.Fatalf("wait: %s", res.Content)
	}
	res = run(t, pt, "t", map[string]any{"action": "poll", "id": id})
	if !strings.Contains(res.Content, "exited with code 7") {
		t.Errorf("poll: %s", res.Content)
	}
	res = run(t, pt, "t", map[string]any{"action": "log", "id": id})
	for _, want := range []string{"ready\n", "warn\n", "done\n", "next_offset: 16"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("log lacks %q:\n%s", want, res.Content)
		}
	}
	res = run(t, pt, "t", map[string]any{"action": "log", "id": id, "offset": 6, "limit": 5})
	if !strings.HasSuffix(res.Content, "---\nwarn\n") || !strings.Contains(res.Content, "next_offset: 11") {
		t.Errorf("paged log:\n%s", res.Content)
	}
}

func TestBackgroundKillStopsChildren(t *testing.T) {
	dir := t.TempDir()
	term := newTerm(t, Options{Dir: dir})
	id := startBG(t, term, "t", "sleep 100 & echo $! > pid.tmp; mv pid.tmp pid; wait")
	pidFile := filepath.Join(dir, "pid")
	for i := 0; i < 1000; i++ {
		if _, err := os.Stat(pidFile); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, term.ProcessTool(), "t", map[string]any{"action": "kill", "id": id})
	if !strings.Contains(res.Content, "killed") {
		t.Errorf("kill: %s", res.Content)
	}
	var pid int
	for _, c := range strings.TrimSpace(string(b)) {
		pid = pid*10 + int(c-'0')
	}
	waitDead(t, pid)
	res = run(t, term.ProcessTool(), "t", map[string]any{"action": "kill", "id": id})
	if !strings.Contains(res.Content, "already finished") {
		t.Errorf("second kill: %s", res.Content)
	}
}

func TestBackgroundCloseKillsEverything(t *testing.T) {
	term := New(Options{Dir: t.TempDir()})
	id := startBG(t, term, "t", "sleep 100")
	p, _ := term.procs.get(id)
	term.Close()
	if p.running() {
		t.Fatal("process still running after Close")
	}
	waitDead(t, p.pid)
}

func TestProcessToolErrors(t *testing.T) {
	term := newTerm(t, Options{})
	pt := term.ProcessTool()
	for name, args := range map[string]any{
		"unknown id":     map[string]any{"action": "poll", "id": "proc_99"},
		"missing id":     map[string]any{"action": "log"},
		"unknown action": map[string]any{"action": "dance", "id": "proc_1"},
	} {
		t.Run(name, func(t *testing.T) {
			if res := run(t, pt, "t", args); !res.IsError {
				t.Errorf("want error, got %s", res.Content)
			}
		})
	}
	if res := run(t, pt, "t", map[string]any{"action": "list"}); res.Content != "No background processes." {
		t.Errorf("empty list: %s", res.Content)
	}
}

func TestProcessWaitHonoursCancel(t *testing.T) {
	term := newTerm(t, Options{})
	id := startBG(t, term, "t", "sleep 100")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := runCtx(t, ctx, term.ProcessTool(), "t", map[string]any{"action": "wait", "id": id, "timeout": 600})
	if !res.IsError || !strings.Contains(res.Content, "cancelled") {
		t.Errorf("wait after cancel: %s", res.Content)
	}
}

func TestLogBufferKeepsNewestAndReportsLoss(t *testing.T) {
	l := newLogBuffer(10)
	for i := 0; i < 10; i++ {
		l.Write([]byte("0123456789"))
	}
	text, next, total, lost := l.read(0, 100)
	if !lost || total != 100 || next != 100 || len(text) < 10 || !strings.HasSuffix(text, "0123456789") {
		t.Errorf("read = %q next=%d total=%d lost=%v", text, next, total, lost)
	}
}

func TestHeadTailRing(t *testing.T) {
	h := newHeadTail(10) // head 4, tail 6
	h.Write([]byte("abcdefgh"))
	h.Write([]byte("ijklmnopqrst"))
	got := h.String()
	if !strings.HasPrefix(got, "abcd") || !strings.HasSuffix(got, "opqrst") || !strings.Contains(got, "10 bytes of output truncated (20 total)") {
		t.Errorf("headTail = %q", got)
	}
	small := newHeadTail(10)
	small.Write([]byte("short"))
	if small.String() != "short" {
		t.Errorf("small = %q", small.String())
	}
}
