package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

func TestCompletionScriptsGenerateForEveryShell(t *testing.T) {
	home := t.TempDir()
	for shell, marker := range map[string]string{
		"bash":       "__start_hermes",
		"zsh":        "#compdef hermes",
		"fish":       "complete -c hermes",
		"powershell": "Register-ArgumentCompleter",
	} {
		r := hermes(t, home, home, "completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, marker) {
			t.Errorf("completion %s: exit %d, %d bytes, marker %q missing; stderr %s", shell, r.code, len(r.stdout), marker, r.stderr)
		}
		if shell == "bash" {
			script := filepath.Join(t.TempDir(), "hermes.bash")
			os.WriteFile(script, []byte(r.stdout), 0o600)
			if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
				t.Errorf("the bash script does not parse: %v\n%s", err, out)
			}
		}
	}
}

// complete asks the binary what a shell would offer after args, as the
// completion scripts do, and returns the offered words.
func complete(t *testing.T, home string, args ...string) []string {
	t.Helper()
	r := hermes(t, home, home, append([]string{"__complete"}, args...)...)
	if r.code != 0 {
		t.Fatalf("__complete %q: exit %d: %s", args, r.code, r.stderr)
	}
	var words []string
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if strings.HasPrefix(line, ":") { // the directive
			continue
		}
		word, _, _ := strings.Cut(line, "\t")
		words = append(words, word)
	}
	return words
}

func TestCompletionOffersCommandsAndFlagValues(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "profiles", "work"), 0o700)
	has := func(got []string, want ...string) bool {
		for _, w := range want {
			if !slices.Contains(got, w) {
				return false
			}
		}
		return true
	}
	if got := complete(t, home, ""); !has(got, "chat", "sessions", "logs", "insights", "gateway", "completion") {
		t.Errorf("subcommands: %v", got)
	}
	if got := complete(t, home, "lo"); len(got) != 1 || got[0] != "logs" {
		t.Errorf("lo: %v", got)
	}
	if got := complete(t, home, "logs", "--"); !has(got, "--follow", "--level", "--session", "--since", "--json") {
		t.Errorf("logs flags: %v", got)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--sandbox", ""}, []string{"read-only", "workspace-write", "full-access"}},
		{[]string{"chat", "--api-mode", ""}, []string{"chat_completions", "codex_responses", "anthropic_messages"}},
		{[]string{"--provider", ""}, []string{"auto", "openrouter", "anthropic", "custom", "ollama"}},
		{[]string{"logs", "--level", ""}, []string{"debug", "info", "warn", "error"}},
		{[]string{"chat", "--reasoning-effort", ""}, []string{"none", "low", "medium", "high"}},
		{[]string{"batch", "--engine", ""}, []string{"local", "temporal"}},
		{[]string{"--backend", ""}, []string{"local", "ssh", "docker"}},
		{[]string{"sandbox", "status", "--backend", ""}, []string{"local", "ssh", "docker"}},
		{[]string{"-p", ""}, []string{"work"}},
	} {
		if got := complete(t, home, c.args...); !slices.Equal(got, c.want) && !has(got, c.want...) {
			t.Errorf("%q: %v, want %v", c.args, got, c.want)
		}
	}
	if got := complete(t, home, "chat", "--toolsets", "terminal,"); !has(got, "terminal,file", "terminal,web") || has(got, "terminal,terminal") {
		t.Errorf("--toolsets terminal,: %v", got)
	}

	// Session ids come from the store, for --resume and logs --session.
	if got := complete(t, home, "--resume", ""); len(got) != 0 {
		t.Errorf("--resume with no store offered %v", got)
	}
	if _, err := os.Stat(filepath.Join(home, "state.db")); err == nil {
		t.Fatal("completing created a session store")
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "ok"})
	usage := filepath.Join(t.TempDir(), "u.json")
	if r := hermes(t, home, home, "-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", "m", "--usage-file", usage); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	id := readUsage(t, usage)["session_id"].(string)
	for _, args := range [][]string{{"--resume", ""}, {"chat", "--resume", id[:8]}, {"logs", "--session", ""}} {
		if got := complete(t, home, args...); !has(got, id) {
			t.Errorf("%q: %v, want session %s", args, got, id)
		}
	}
	if got := complete(t, home, "sessions", "list", "--source", ""); !has(got, "cli") {
		t.Errorf("sessions list --source: %v", got)
	}
}

func TestHelpGroupsCommandsByWhatPeopleDo(t *testing.T) {
	r := hermes(t, t.TempDir(), t.TempDir(), "--help")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	help := r.stdout
	at := func(s string) int {
		i := strings.Index(help, s)
		if i < 0 {
			t.Fatalf("%q missing from hermes --help:\n%s", s, help)
		}
		return i
	}
	chat, setup, inspect, serve := at("Chat and run:"), at("Set up:"), at("Inspect:"), at("Serve and automate:")
	if !(chat < setup && setup < inspect && inspect < serve) {
		t.Fatalf("groups out of order:\n%s", help)
	}
	for cmd, group := range map[string]int{"  chat ": chat, "  skills ": setup, "  logs ": inspect, "  insights ": inspect, "  gateway ": serve} {
		i := at(cmd)
		next := len(help)
		for _, g := range []int{chat, setup, inspect, serve} {
			if g > group && g < next {
				next = g
			}
		}
		if i < group || i > next {
			t.Errorf("%q is not in its group:\n%s", strings.TrimSpace(cmd), help)
		}
	}
	if strings.Contains(help, "Additional Commands:") {
		t.Errorf("a command has no group:\n%s", help)
	}
}
