package shellhook

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/tool"
)

// script writes an executable sh script into a temp dir and returns the
// command that runs it.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// warnings collects OnWarning messages.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(s string) { w.mu.Lock(); w.msgs = append(w.msgs, s); w.mu.Unlock() }
func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msgs...)
}

func pre1(t *testing.T, h Hook, opts Options) tool.PreHook {
	t.Helper()
	hs, err := Pre([]Hook{h}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return hs[0]
}

func terminalCall(cmd string) *tool.Call {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return &tool.Call{ID: "call_1", Name: "terminal", Args: args, TaskID: "task-9", SessionID: "sess-3"}
}

func TestPreHookDecisions(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		failOpen  bool
		wantBlock string // substring; "" means the call goes on
		wantWarn  string
	}{
		{"exit 0 silent lets the call run", "exit 0\n", false, "", ""},
		{"exit 2 blocks with stderr as the reason", "echo 'rm is not allowed here' >&2; exit 2\n", false, "rm is not allowed here", ""},
		{"exit 2 prefers the JSON reason", `echo '{"decision":"block","reason":"policy 7"}'; echo noise >&2; exit 2` + "\n", false, "policy 7", ""},
		{"exit 2 without output still blocks", "exit 2\n", false, "no reason given", ""},
		{"JSON decision block on exit 0 blocks", `echo '{"decision":"block","reason":"not on fridays"}'` + "\n", false, "not on fridays", ""},
		{"JSON action block on exit 0 blocks", `echo '{"action":"block","message":"sandbox only"}'` + "\n", false, "sandbox only", ""},
		{"other non-zero exit blocks, naming the hook", "echo 'jq: not found' >&2; exit 1\n", false, "exited with status 1: jq: not found", ""},
		{"other non-zero exit with fail_open warns and goes on", "exit 3\n", true, "", "exited with status 3"},
		{"a command that is not found blocks", "/nonexistent/checker\n", false, "exited with status 127", ""},
		{"stdout that is not JSON is ignored with a warning", "echo checking...\n", false, "", "not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &warnings{}
			cmd := script(t, tc.body)
			h := pre1(t, Hook{Command: cmd, FailOpen: tc.failOpen}, Options{OnWarning: w.add})
			call := terminalCall("rm -rf build")
			block, err := h(context.Background(), call)
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if tc.wantBlock == "" && block != "" {
				t.Fatalf("blocked: %q", block)
			}
			if tc.wantBlock != "" {
				if !strings.Contains(block, tc.wantBlock) {
					t.Fatalf("block = %q, want it to contain %q", block, tc.wantBlock)
				}
				if !strings.Contains(block, cmd) {
					t.Fatalf("block reason %q does not name the hook %s", block, cmd)
				}
			}
			ws := strings.Join(w.all(), "\n")
			if tc.wantWarn == "" && ws != "" {
				t.Fatalf("unexpected warning: %s", ws)
			}
			if !strings.Contains(ws, tc.wantWarn) {
				t.Fatalf("warnings = %q, want %q", ws, tc.wantWarn)
			}
		})
	}
}

func TestPreHookRewritesArguments(t *testing.T) {
	tests := []struct{ name, out string }{
		{"args", `{"args":{"command":"ls -la"}}`},
		{"action modify", `{"action":"modify","args":{"command":"ls -la"}}`},
		{"claude code tool_input", `{"decision":"modify","tool_input":{"command":"ls -la"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := pre1(t, Hook{Command: script(t, "cat >/dev/null; echo '"+tc.out+"'\n")}, Options{})
			call := terminalCall("rm -rf /")
			if block, _ := h(context.Background(), call); block != "" {
				t.Fatalf("blocked: %s", block)
			}
			var got map[string]string
			if err := json.Unmarshal(call.Args, &got); err != nil || got["command"] != "ls -la" {
				t.Fatalf("args = %s (%v)", call.Args, err)
			}
		})
	}
}

func TestPreHookReceivesPayloadOnStdin(t *testing.T) {
	dir := t.TempDir()
	h := pre1(t, Hook{Command: "cat > payload.json"}, Options{Dir: dir})
	out := filepath.Join(dir, "payload.json")
	if block, _ := h(context.Background(), terminalCall("make test")); block != "" {
		t.Fatalf("blocked: %s", block)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("payload is not JSON: %v\n%s", err, b)
	}
	want := map[string]any{"hook": "pre_tool_call", "tool": "terminal", "call_id": "call_1", "task_id": "task-9",
		"session_id": "sess-3", "hook_event_name": "pre_tool_call", "tool_name": "terminal", "cwd": dir}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("payload[%s] = %v, want %v", k, p[k], v)
		}
	}
	for _, k := range []string{"args", "tool_input"} {
		if m, _ := p[k].(map[string]any); m["command"] != "make test" {
			t.Errorf("payload[%s] = %v", k, p[k])
		}
	}
	if _, ok := p["result"]; ok {
		t.Errorf("pre payload has a result: %v", p["result"])
	}
}

func TestMatcherMatchesTheWholeToolName(t *testing.T) {
	block := script(t, "exit 2\n")
	tests := []struct {
		matcher string
		tool    string
		blocked bool
	}{
		{"", "anything", true},
		{"terminal", "terminal", true},
		{"terminal", "terminal_process", false},
		{"terminal", "my_terminal", false},
		{"write_file|patch", "patch", true},
		{"write_file|patch", "read_file", false},
		{"read_.*", "read_file", true},
	}
	for _, tc := range tests {
		t.Run(tc.matcher+"/"+tc.tool, func(t *testing.T) {
			h := pre1(t, Hook{Matcher: tc.matcher, Command: block}, Options{})
			got, _ := h(context.Background(), &tool.Call{Name: tc.tool, Args: json.RawMessage(`{}`)})
			if (got != "") != tc.blocked {
				t.Fatalf("blocked = %q, want blocked=%v", got, tc.blocked)
			}
		})
	}
}

func TestBadHookConfigIsAnError(t *testing.T) {
	if _, err := Pre([]Hook{{Matcher: "terminal(", Command: "true"}}, Options{}); err == nil || !strings.Contains(err.Error(), "hooks.pre_tool_call[0]: matcher") {
		t.Fatalf("bad matcher: err = %v", err)
	}
	if _, err := Post([]Hook{{Command: "true"}, {Command: ""}}, Options{}); err == nil || !strings.Contains(err.Error(), "hooks.post_tool_call[1]: command is empty") {
		t.Fatalf("empty command: err = %v", err)
	}
}

// fifo makes a named pipe in a temp dir.
func fifo(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPreHookTimeoutKillsItsProcessGroupAndBlocks(t *testing.T) {
	// The hook leaves a helper holding the write end of a pipe; the test
	// reads the pipe, which ends only when the last writer dies.
	alive := fifo(t, "alive")
	cmd := script(t, "sleep 600 > "+alive+" &\nwait\n")
	fire := make(chan time.Time)
	var asked atomic.Int64
	h := pre1(t, Hook{Command: cmd, Timeout: 7 * time.Second}, Options{After: func(d time.Duration) <-chan time.Time {
		asked.Store(int64(d))
		return fire
	}})
	type ret struct{ block string }
	done := make(chan ret, 1)
	go func() {
		b, _ := h(context.Background(), terminalCall("ls"))
		done <- ret{b}
	}()
	f, err := os.Open(alive) // returns once the helper has opened it
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fire <- time.Now()
	r := <-done
	if !strings.Contains(r.block, "timed out after 7s") || !strings.Contains(r.block, cmd) {
		t.Fatalf("block = %q", r.block)
	}
	if time.Duration(asked.Load()) != 7*time.Second {
		t.Fatalf("timer asked for %s", time.Duration(asked.Load()))
	}
	eof := make(chan error, 1)
	go func() { _, err := io.ReadAll(f); eof <- err }()
	select {
	case err := <-eof:
		if err != nil {
			t.Fatalf("read: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the hook's background helper survived the timeout")
	}
}

func TestPreHookInterruptedBlocksEvenWhenFailOpen(t *testing.T) {
	alive := fifo(t, "alive")
	h := pre1(t, Hook{Command: "sleep 600 > " + alive, FailOpen: true}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	go func() { b, _ := h(ctx, terminalCall("ls")); done <- b }()
	f, err := os.Open(alive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cancel()
	if b := <-done; !strings.Contains(b, "interrupted") {
		t.Fatalf("block = %q", b)
	}
}

func TestPostHookReplacesResultAndSeesOutcome(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "payload.json")
	cmd := script(t, "cat > "+out+"\necho '{\"result\":\"[redacted by hook]\"}'\n")
	hs, err := Post([]Hook{{Matcher: "terminal", Command: cmd}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := &tool.Result{Content: "secret=hunter2", IsError: true}
	hs[0](context.Background(), *terminalCall("env"), res, tool.StatusError, 1500*time.Millisecond)
	if res.Content != "[redacted by hook]" || !res.IsError {
		t.Fatalf("result = %+v", res)
	}
	b, _ := os.ReadFile(out)
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("payload: %v\n%s", err, b)
	}
	if p["hook"] != "post_tool_call" || p["result"] != "secret=hunter2" || p["status"] != "error" || p["duration_ms"] != 1500.0 || p["is_error"] != true {
		t.Fatalf("payload = %v", p)
	}
}

func TestPostHookOutputOtherwiseIgnored(t *testing.T) {
	tests := []struct {
		name, body, wantWarn string
	}{
		{"plain text", "echo logged\n", ""},
		{"JSON without result", `echo '{"ok":true}'` + "\n", ""},
		{"failure warns", "echo boom >&2; exit 1\n", "exited with status 1: boom"},
		{"exit 2 cannot block after the fact", "exit 2\n", "exited with status 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &warnings{}
			hs, err := Post([]Hook{{Command: script(t, tc.body)}}, Options{OnWarning: w.add})
			if err != nil {
				t.Fatal(err)
			}
			res := &tool.Result{Content: "original"}
			hs[0](context.Background(), *terminalCall("ls"), res, tool.StatusOK, time.Millisecond)
			if res.Content != "original" || res.IsError {
				t.Fatalf("result = %+v", res)
			}
			ws := strings.Join(w.all(), "\n")
			if tc.wantWarn == "" && ws != "" || !strings.Contains(ws, tc.wantWarn) {
				t.Fatalf("warnings = %q, want %q", ws, tc.wantWarn)
			}
		})
	}
}

func TestFromConfigAppliesTimeoutsAndOrder(t *testing.T) {
	var asked []time.Duration
	var mu sync.Mutex
	never := make(chan time.Time)
	opts := Options{After: func(d time.Duration) <-chan time.Time {
		mu.Lock()
		asked = append(asked, d)
		mu.Unlock()
		return never
	}}
	log := filepath.Join(t.TempDir(), "log")
	pre, post, err := Build([]Hook{
		{Command: "echo first >> " + log},
		{Matcher: "terminal", Command: "echo second >> " + log, Timeout: 5 * time.Second},
	}, []Hook{{Command: "echo post >> " + log}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(pre) != 2 || len(post) != 1 {
		t.Fatalf("pre=%d post=%d", len(pre), len(post))
	}
	for _, h := range pre {
		if b, _ := h(context.Background(), terminalCall("ls")); b != "" {
			t.Fatal(b)
		}
	}
	b, _ := os.ReadFile(log)
	if string(b) != "first\nsecond\n" {
		t.Fatalf("log = %q", b)
	}
	if len(asked) != 2 || asked[0] != DefaultTimeout || asked[1] != 5*time.Second {
		t.Fatalf("timeouts = %v", asked)
	}
}

// echoTool is a terminal-like tool that records what it ran.
type echoTool struct{ ran []string }

func (e *echoTool) Spec() tool.Spec {
	return tool.Spec{Name: "terminal", Toolset: "terminal", Class: tool.Sequential}
}

func (e *echoTool) Run(_ context.Context, c tool.Call) (tool.Result, error) {
	var a struct{ Command string }
	json.Unmarshal(c.Args, &a)
	e.ran = append(e.ran, a.Command)
	return tool.Text("ran " + a.Command), nil
}

func TestHooksThroughTheExecutor(t *testing.T) {
	guard := script(t, `case "$(cat)" in *'rm -rf'*) echo 'destructive commands are off' >&2; exit 2;; esac`+"\n")
	audit := filepath.Join(t.TempDir(), "audit")
	pre, post, err := Build([]Hook{{Matcher: "terminal", Command: guard}},
		[]Hook{{Command: "cat >> " + audit + "; echo >> " + audit}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	et := &echoTool{}
	reg := tool.NewRegistry(et)
	e := &tool.Executor{Resolve: reg.Get, Names: reg.Names, Pre: pre, Post: post}
	out := e.Execute(context.Background(), []tool.Call{*terminalCall("rm -rf /tmp/x")})
	out = append(out, e.Execute(context.Background(), []tool.Call{*terminalCall("ls")})...)
	if out[0].Status != tool.StatusBlocked || !out[0].Result.IsError || !strings.Contains(out[0].Result.Content, "destructive commands are off") {
		t.Fatalf("blocked call: %+v", out[0])
	}
	if out[1].Status != tool.StatusOK || out[1].Result.Content != "ran ls" {
		t.Fatalf("allowed call: %+v", out[1])
	}
	if len(et.ran) != 1 || et.ran[0] != "ls" {
		t.Fatalf("tool ran %v", et.ran)
	}
	b, _ := os.ReadFile(audit)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"status":"blocked"`) || !strings.Contains(lines[1], `"result":"ran ls"`) {
		t.Fatalf("audit log:\n%s", b)
	}
}
