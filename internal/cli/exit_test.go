package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func readUsage(t *testing.T, path string) usageReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var u usageReport
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return u
}

// A completed turn is status 0 with the answer on stdout: -z prints
// nothing else, chat -q its progress on stderr.
func TestCompletedTurnExits0WithTheAnswerOnStdout(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		if r.LastToolResult() == "" {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "todo", Arguments: "{}"}}} // reads the task list
		}
		return llmtest.Reply{Text: "the answer"}
	})
	home := t.TempDir()
	usage := filepath.Join(t.TempDir(), "usage.json")
	r := hermes(t, home, "", nil, append([]string{"-z", "question", "--usage-file", usage}, endpoint(srv)...)...)
	if r.code != exitOK || r.stdout != "the answer\n" || r.stderr != "" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if u := readUsage(t, usage); !u.Completed || u.Failed || u.ExitReason != "text_response" || u.APICalls != 2 {
		t.Fatalf("usage file %+v", u)
	}
	r = hermes(t, home, "", nil, append([]string{"chat", "-q", "another"}, endpoint(srv)...)...)
	if r.code != exitOK || r.stdout != "the answer\n" || !contains(r.stderr, "→ todo", "✓ todo") {
		t.Fatalf("chat -q: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A turn the provider fails is status 1, with nothing on stdout and the
// failure in the usage file.
func TestFailedTurnExits1(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Error(401, ""))
	usage := filepath.Join(t.TempDir(), "usage.json")
	r := hermes(t, t.TempDir(), "", nil, append([]string{"-z", "hi", "--usage-file", usage}, endpoint(srv)...)...)
	if r.code != exitFailed || r.stdout != "" || !contains(r.stderr, "hermes:", "provider_error") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if u := readUsage(t, usage); u.Completed || !u.Failed || u.Error == "" {
		t.Fatalf("usage file %+v", u)
	}
}

// A turn that ends without completing, at the end of its budget, is
// status 1 even when the model summed up what it did: only a completed
// turn is 0.
func TestTurnAtTheEndOfItsBudgetExits1(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		if len(r.Tools()) == 0 {
			return llmtest.Reply{Text: "I ran out of turns."} // the summary, asked without tools
		}
		return llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "no_such_tool", Arguments: "{}"}}}
	})
	r := hermes(t, t.TempDir(), "", nil, append([]string{"-z", "loop", "--max-turns", "1"}, endpoint(srv)...)...)
	if r.code != exitFailed || r.stdout != "I ran out of turns.\n" || !contains(r.stderr, "max_iterations", "budget of 1") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// Ctrl-C during the model call stops the turn: status 130.
func TestInterruptedTurnExits130(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Hang: true})
	go func() {
		// The request hangs while the turn runs, so the run's handler of
		// SIGINT is in place.
		if _, ok := <-srv.Hanging(); ok {
			syscall.Kill(os.Getpid(), syscall.SIGINT)
		}
	}()
	r := hermes(t, t.TempDir(), "", nil, append([]string{"-z", "wait for me"}, endpoint(srv)...)...)
	if r.code != exitInterrupted || r.stdout != "" || !contains(r.stderr, "interrupted") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// What the configuration gets wrong is a setup problem: status 2, no
// model call, and a usage file that says so.
func TestConfigErrorsExit2(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		args         func(*llmtest.Server) []string
		want         []string
	}{
		{"invalid setting", "agent:\n  max_turns: -3\n", endpoint, []string{"agent.max_turns", "-3"}},
		{"unknown toolset", "toolsets: [termnial]\n", endpoint, []string{"toolsets", `"termnial"`}},
		{"unknown approvals mode", "approvals:\n  mode: smart\n", endpoint, []string{"approvals.mode", `"smart"`}},
		{"unreadable YAML", "model: [unclosed\n", endpoint, []string{"config.yaml"}},
		{"no provider", "", func(*llmtest.Server) []string { return nil }, []string{"no model provider configured"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.AllowUnexpected()
			home := t.TempDir()
			writeConfig(t, home, tc.config)
			usage := filepath.Join(t.TempDir(), "usage.json")
			r := hermes(t, home, "", nil, append([]string{"-z", "hi", "--usage-file", usage}, tc.args(srv)...)...)
			if r.code != exitUsage || r.stdout != "" || !contains(r.stderr, tc.want...) {
				t.Fatalf("exit %d stdout %q stderr %q, want 2 and %q", r.code, r.stdout, r.stderr, tc.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("%d model calls were made", n)
			}
			if u := readUsage(t, usage); !u.Failed || u.ExitReason != "setup_error" || u.Error == "" {
				t.Fatalf("usage file %+v", u)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	for _, flag := range []string{"--version", "-v", "-V"} {
		r := hermes(t, t.TempDir(), "", nil, flag)
		if r.code != exitOK || r.stdout != "hermes "+Version+"\n" || r.stderr != "" {
			t.Fatalf("%s: exit %d stdout %q stderr %q", flag, r.code, r.stdout, r.stderr)
		}
	}
}
