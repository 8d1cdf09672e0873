package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// An empty or comment-only config.yaml is the defaults: the session
// database and memory stay in HERMES_HOME, nothing lands in the workspace.
func TestEmptyConfigKeepsStateInHermesHome(t *testing.T) {
	for _, doc := range []string{"", "# model: gpt-5\n"} {
		srv := llmtest.NewServer(t)
		srv.Enqueue(llmtest.Reply{Text: "ok"})
		home, work := t.TempDir(), t.TempDir()
		writeConfig(t, home, doc)
		r := hermes(t, home, work, "-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", "m")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("%q: exit %d stderr %q", doc, r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(home, "state.db")); err != nil {
			t.Fatalf("%q: no state.db in HERMES_HOME: %v", doc, err)
		}
		if entries, _ := os.ReadDir(work); len(entries) != 0 {
			t.Fatalf("%q: the workspace got %v", doc, entries)
		}
	}
}

func TestNestedUnknownKeyIsWarnedWithItsLineAndTheKeyMeant(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	home := t.TempDir()
	writeConfig(t, home, "model: m\nagent: {max_turn: 5}\n")
	r := hermes(t, home, home, "-z", "hi", "--provider", "custom", "--base-url", srv.URL())
	if r.code != 0 || !contains(r.stderr, "warning", "config.yaml:2", `"agent.max_turn"`, `did you mean "agent.max_turns"`) {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
}

// A setting the runtime cannot honour stops the run before any model
// call, with status 2 and a message naming the key, the value and what
// is allowed.
func TestInvalidSettingsExit2NamingKeyValueAndAllowed(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		args, want   []string
	}{
		{"negative max_turns", "agent:\n  max_turns: -3\n", nil, []string{"config.yaml:2", "agent.max_turns", "-3", "at least 1"}},
		{"unimplemented approvals mode", "approvals:\n  mode: smart\n", nil, []string{"approvals.mode", `"smart"`, "manual, off"}},
		{"negative pool", "agent:\n  tool_pool_size: -1\n", nil, []string{"agent.tool_pool_size", "-1"}},
		{"negative --max-turns", "", []string{"--max-turns", "-3"}, []string{"--max-turns", "-3", "at least 1"}},
		{"mistyped --toolsets", "", []string{"--toolsets", "terminal,flie"}, []string{"toolsets", `"flie"`, "file", "terminal", "memory"}},
		{"mistyped toolsets:", "toolsets: [termnial]\n", nil, []string{"toolsets", `"termnial"`, "terminal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.AllowUnexpected()
			home := t.TempDir()
			writeConfig(t, home, tc.config)
			args := append([]string{"-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", "m"}, tc.args...)
			r := hermes(t, home, home, args...)
			if r.code != 2 || !contains(r.stderr, tc.want...) || r.stdout != "" {
				t.Fatalf("exit %d stdout %q stderr %q, want %q", r.code, r.stdout, r.stderr, tc.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("%d model calls were made", n)
			}
		})
	}
	// Toolsets that exist are accepted, "all" among them.
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	home := t.TempDir()
	r := hermes(t, home, home, "-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", "m", "--toolsets", "terminal,memory,delegation")
	if r.code != 0 {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	var names []string
	for _, d := range srv.Requests()[0].Tools() {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, ","); !strings.Contains(got, "terminal") || !strings.Contains(got, "memory") || strings.Contains(got, "read_file") {
		t.Fatalf("tools offered: %s", got)
	}
}
