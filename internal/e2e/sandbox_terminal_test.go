//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// startShell opens a 110x40 tmux terminal running an interactive shell
// with env as its whole environment, as a user's terminal before they
// type `hermes`.
func startShell(t *testing.T, env []string) *tmuxTerm {
	t.Helper()
	return openTmux(t, append(append([]string{"env", "-i"}, env...), "sh")...)
}

// A command hermes runs pushes a line into the input of the terminal
// hermes runs in (ioctl TIOCSTI): were it to get through, the user's own
// shell would run that line after hermes exits, outside every boundary.
// Nothing gets through, --yolo or not.
func TestACommandCannotTypeIntoTheTerminalHermesRunsIn(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	w := newWorld(t)
	marker := filepath.Join(t.TempDir(), "INJECTED")
	line := "touch " + marker + "\n"
	srv := llmtest.NewServer(t)
	srv.Enqueue(terminalCalls(
		`python3 -c 'import fcntl, sys, termios; f = open("/dev/tty", "w"); [fcntl.ioctl(f, termios.TIOCSTI, c.encode()) for c in sys.argv[1]]' '` + line + `'`,
	)...)
	term := startShell(t, []string{"HOME=" + w.home, "HERMES_HOME=" + w.hermesHome, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none", "TERM=xterm-256color", "PS1=$ "})
	term.typeLine("cd " + shellQuote(w.work) + " && " + shellQuote(hermesBin) + " -z 'do it' --provider custom --base-url " + srv.URL() + " --model m --yolo; echo hermes-exit-$?")
	term.waitFor("hermes-exit-0")
	// The shell reads its input in order: an injected line would run
	// before this one prints.
	term.typeLine("echo after-$((6*7))")
	screen := term.waitFor("after-42")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("the injected line ran in the user's shell; the terminal shows:\n%s", screen)
	}
	if strings.Contains(screen, marker) {
		t.Fatalf("the injected line reached the terminal:\n%s", screen)
	}
	results := toolResults(srv.Requests()[1])
	if len(results) != 1 || !strings.Contains(results[0], "No such device or address") {
		t.Fatalf("want the command to find no terminal to open; it reported %q", results)
	}
}

// A command hermes runs asks the tmux server hermes runs under to type a
// line into its pane (tmux send-keys through the server's socket in the
// temporary directory): were it to get through, the user's shell would
// run it outside every boundary. The socket is out of the command's
// reach, --yolo or not.
func TestACommandCannotDriveTheTmuxHermesRunsIn(t *testing.T) {
	w := newWorld(t)
	marker := filepath.Join(t.TempDir(), "TYPED")
	term := startShell(t, []string{"HOME=" + w.home, "HERMES_HOME=" + w.hermesHome, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none", "TERM=xterm-256color", "PS1=$ "})
	srv := llmtest.NewServer(t)
	srv.Enqueue(terminalCalls("tmux -S " + shellQuote(term.socket) + " send-keys 'touch " + marker + "' Enter")...)
	term.typeLine("cd " + shellQuote(w.work) + " && " + shellQuote(hermesBin) + " -z 'do it' --provider custom --base-url " + srv.URL() + " --model m --yolo; echo hermes-exit-$?")
	term.waitFor("hermes-exit-0")
	term.typeLine("echo after-$((6*7))")
	screen := term.waitFor("after-42")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("a command typed into the user's terminal through tmux; the terminal shows:\n%s", screen)
	}
	if results := toolResults(srv.Requests()[1]); len(results) != 1 || !strings.Contains(results[0], "no server running") {
		t.Fatalf("want tmux to report it reached no server; the command reported %q", results)
	}
}
