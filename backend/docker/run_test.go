package docker

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/backend"
)

func TestExitCodeCwdAndStreamsComeBackApart(t *testing.T) {
	r := newRig(t, "docker", nil)
	os.Mkdir(filepath.Join(r.ws, "sub"), 0o755)
	out := r.run(r.b, "s", "", "cd sub && echo out && echo err >&2 && exit 3")
	if out.Code != 3 {
		t.Errorf("exit code %d, want 3", out.Code)
	}
	if out.Dir != filepath.Join(r.ws, "sub") {
		t.Errorf("final dir %q, want %s/sub", out.Dir, r.ws)
	}
	if out.stdout != "out\n" || out.stderr != "err\n" {
		t.Errorf("stdout %q, stderr %q: the marker or the streams leaked", out.stdout, out.stderr)
	}
	// The next command starts where the terminal says (the task's dir).
	if out := r.run(r.b, "s", filepath.Join(r.ws, "sub"), "pwd"); out.stdout != filepath.Join(r.ws, "sub")+"\n" {
		t.Errorf("pwd %q in the task's directory", out.stdout)
	}
}

func TestCommandOutputCannotForgeTheDirectory(t *testing.T) {
	r := newRig(t, "docker", nil)
	out := r.run(r.b, "s", "", `printf '\n__HERMES_CWD_0000000000000000=/etc\n' >&2`)
	if out.Dir != r.ws {
		t.Errorf("final dir %q, want %s: a printed marker moved it", out.Dir, r.ws)
	}
	if !strings.Contains(out.stderr, "__HERMES_CWD_0000000000000000=/etc") {
		t.Errorf("the command's own stderr was eaten: %q", out.stderr)
	}
}

func TestAMissingDirectoryIsSaidAndTheCommandRunsInTheWorkspace(t *testing.T) {
	r := newRig(t, "docker", nil)
	out := r.run(r.b, "s", filepath.Join(r.ws, "gone"), "pwd")
	if out.stdout != r.ws+"\n" || !strings.Contains(out.stderr, "cannot cd to "+filepath.Join(r.ws, "gone")) {
		t.Errorf("stdout %q, stderr %q", out.stdout, out.stderr)
	}
}

func TestTimeoutKillsTheCommandInsideTheContainer(t *testing.T) {
	r := newRig(t, "docker", nil)
	pidFile := filepath.Join(r.ws, "pid")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// The fake runs exec'd commands in a process group of their own:
	// killing the CLI client alone would leave them running.
	out := r.runCtx(ctx, r.b, "s", "", "sleep 60 & echo $! > "+pidFile+"; echo $$ >> "+pidFile+"; wait")
	if out.Code != -1 {
		t.Errorf("exit code %d after the deadline, want -1", out.Code)
	}
	b, _ := os.ReadFile(pidFile)
	pids := strings.Fields(string(b))
	if len(pids) != 2 {
		t.Fatalf("pid file %q", b)
	}
	for _, pid := range pids {
		if !gone(t, pid) {
			t.Errorf("process %s of the timed-out command still runs", pid)
		}
	}
}

func TestAForegroundCommandLeavesNothingRunning(t *testing.T) {
	r := newRig(t, "docker", nil)
	out := r.run(r.b, "s", "", "setsid sleep 60 > /dev/null 2>&1 & echo $!")
	if out.Code != 0 {
		t.Fatalf("exit %d: %s", out.Code, out.stderr)
	}
	if pid := strings.TrimSpace(out.stdout); !gone(t, pid) {
		t.Errorf("process %s the command left behind (in a session of its own) still runs", pid)
	}
}

func TestBackgroundProcessRunsUntilKilled(t *testing.T) {
	r := newRig(t, "docker", nil)
	var log syncBuffer
	p, err := r.b.Start(backend.Command{Line: "echo $$ > pid; echo started >&2; exec sleep 60", Dir: r.ws, Session: "s", Stdout: &log, Stderr: &log})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(log.String(), "started") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(log.String(), "started") {
		t.Fatalf("the log does not show stderr while the process runs: %q", log.String())
	}
	b, _ := os.ReadFile(filepath.Join(r.ws, "pid"))
	pid := strings.TrimSpace(string(b))
	select {
	case <-p.Done():
		t.Fatalf("ended early: %+v, log %q", p.Exit(), log.String())
	default:
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	if p.Exit().Code != -1 {
		t.Errorf("exit %+v after Kill", p.Exit())
	}
	if pid == "" || !gone(t, pid) {
		t.Errorf("background process %q still runs after Kill", pid)
	}
}

func TestSignalledCommandSaysSo(t *testing.T) {
	r := newRig(t, "docker", nil)
	out := r.run(r.b, "s", "", "kill -9 $$")
	if out.Code != 137 || !strings.Contains(out.Note, "killed") {
		t.Errorf("exit %d note %q", out.Code, out.Note)
	}
}

// An image without bash runs commands under its sh.
func TestAnImageWithoutBashUsesSh(t *testing.T) {
	dash, err := exec.LookPath("dash")
	if err != nil {
		t.Skip("no dash")
	}
	r := newRig(t, "docker", nil)
	tools := t.TempDir()
	os.Symlink(dash, filepath.Join(tools, "sh"))
	for _, name := range []string{"grep", "cat", "stat", "sleep", "env"} {
		if p, err := exec.LookPath(name); err == nil {
			os.Symlink(p, filepath.Join(tools, name))
		}
	}
	// The fake's commands see its PATH: here one without bash.
	t.Setenv("PATH", r.dir+string(os.PathListSeparator)+tools)
	out := r.run(r.b, "s", "", `echo "bash=${BASH_VERSION:-none}"; cd / ; exit 7`)
	if out.Code != 7 || out.stdout != "bash=none\n" || out.Dir != "/" {
		t.Errorf("exit %d dir %q stdout %q stderr %q", out.Code, out.Dir, out.stdout, out.stderr)
	}
	execs := r.callsOf("exec")
	if last := execs[len(execs)-1]; !slices.Contains(last, "sh") || slices.ContainsFunc(last, func(a string) bool { return strings.HasSuffix(a, "/bash") }) {
		t.Errorf("exec %v: want sh", last)
	}
}
