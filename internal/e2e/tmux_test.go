package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxTerm is hermes running in a real terminal: a tmux session on a
// socket of its own, typed into with send-keys and read with
// capture-pane, as a person would use it.
type tmuxTerm struct {
	t      *testing.T
	socket string
}

// startTerm runs hermes with args in a 110x40 tmux terminal, with a fresh
// environment (env adds to it).
func startTerm(t *testing.T, home, workdir string, env []string, args ...string) *tmuxTerm {
	t.Helper()
	vars := append([]string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none", "TERM=xterm-256color"}, env...)
	// The shell keeps the pane open after hermes exits, with its status.
	script := "cd " + shellQuote(workdir) + " && env -i " + joinQuoted(vars) + " " + shellQuote(hermesBin) + " " + joinQuoted(args) +
		"; echo \"[exit $?]\"; sleep 600"
	return openTmux(t, "sh", "-c", script)
}

// openTmux runs command in a 110x40 tmux terminal on a socket of its own,
// ended with the test.
func openTmux(t *testing.T, command ...string) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("HERMES_TEST_PEERS") == "require" {
			t.Fatal("tmux is not installed: .ci/run installs it")
		}
		t.Skip("tmux is not installed (apt-get install tmux)")
	}
	dir, err := os.MkdirTemp("", "tm")
	if err != nil {
		t.Fatal(err)
	}
	term := &tmuxTerm{t: t, socket: filepath.Join(dir, "s")}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", term.socket, "kill-server").Run()
		os.RemoveAll(dir)
	})
	args := append([]string{"-S", term.socket, "-f", "/dev/null", "new-session", "-d", "-x", "110", "-y", "40"}, command...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	return term
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func joinQuoted(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// screen is what the terminal shows now.
func (tt *tmuxTerm) screen() string {
	out, err := exec.Command("tmux", "-S", tt.socket, "capture-pane", "-p").Output()
	if err != nil {
		tt.t.Fatalf("capture-pane: %v", err)
	}
	return string(out)
}

// typeLine types text and presses Enter.
func (tt *tmuxTerm) typeLine(text string) {
	tt.t.Helper()
	tt.keys("-l", text)
	tt.keys("Enter")
}

func (tt *tmuxTerm) keys(keys ...string) {
	tt.t.Helper()
	args := append([]string{"-S", tt.socket, "send-keys"}, keys...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		tt.t.Fatalf("send-keys %q: %v %s", keys, err, out)
	}
}

// waitFor polls the screen until it shows every one of wants, or fails
// the test after a bounded wait.
func (tt *tmuxTerm) waitFor(wants ...string) string {
	tt.t.Helper()
	return tt.waitUntil(strings.Join(wants, ", "), func(s string) bool { return contains(s, wants...) })
}

func (tt *tmuxTerm) waitUntil(what string, cond func(screen string) bool) string {
	tt.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := tt.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("the terminal never showed %s; it shows:\n%s", what, s)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// sessionList is `hermes sessions list --json`.
func sessionList(t *testing.T, home string) []struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	MessageCount int    `json:"message_count"`
	EndReason    string `json:"end_reason"`
} {
	t.Helper()
	r := hermes(t, home, home, "sessions", "list", "--json")
	var list []struct {
		ID           string `json:"id"`
		Title        string `json:"title"`
		MessageCount int    `json:"message_count"`
		EndReason    string `json:"end_reason"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("sessions list: %v %q %s", err, r.stdout, r.stderr)
	}
	return list
}
