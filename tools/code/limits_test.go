package code

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/sandbox"
)

// gone waits until pid no longer runs (a zombie counts as gone: it runs
// nothing), within a deadline, for the process is another's to reap.
func gone(pid int) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		if f := strings.Fields(string(b)); len(f) > 2 && f[2] == "Z" {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func TestAScriptOverItsTimeLimitIsKilledWithItsChildren(t *testing.T) {
	b := newBox(t, boxOptions{})
	b.code.grace = 200 * time.Millisecond
	// The script ignores SIGTERM: SIGKILL after the grace ends it.
	r, o := b.run(t, `
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen(["sleep", "1000"])
print("child", child.pid, flush=True)
time.sleep(1000)
`, 0.5)
	if !o.Result.IsError || !strings.Contains(r.Note, "timed out after 500ms") {
		t.Fatalf("result %+v", r)
	}
	if r.ElapsedMS > 5000 {
		t.Errorf("the run took %d ms", r.ElapsedMS)
	}
	var pid int
	for _, line := range strings.Split(r.Stdout, "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "child" {
			pid, _ = strconv.Atoi(f[1])
		}
	}
	if pid == 0 {
		t.Fatalf("no child pid in %q", r.Stdout)
	}
	// The pid is the sandbox's view; in its own pid namespace it is not
	// ours to look at, so look for the sleep by its command line too.
	if !gone(pid) && isSleep(pid) {
		t.Errorf("the script's child %d outlived it", pid)
	}
}

func isSleep(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && strings.HasPrefix(string(b), "sleep\x001000")
}

func TestAChildLeftInTheBackgroundDiesWithTheScript(t *testing.T) {
	b := newBox(t, boxOptions{})
	r, _ := b.run(t, `
import subprocess
child = subprocess.Popen(["sleep", "1000"], stdout=subprocess.DEVNULL)
print(child.pid)
`)
	pid, err := strconv.Atoi(strings.TrimSpace(r.Stdout))
	if err != nil || r.ExitCode != 0 {
		t.Fatalf("result %+v", r)
	}
	if !gone(pid) && isSleep(pid) {
		t.Errorf("the background child %d outlived the script", pid)
	}
}

func TestAScriptMakesAtMostMaxToolCalls(t *testing.T) {
	b := newBox(t, boxOptions{opts: Options{MaxToolCalls: 3}})
	b.write(t, "a.txt", "a\n")
	r, _ := b.run(t, `
from hermes_tools import read_file, ToolError
for i in range(5):
    try:
        read_file(path="a.txt")
        print(i, "ok")
    except ToolError as e:
        print(i, e)
`)
	want := "0 ok\n1 ok\n2 ok\n3 tool call limit reached: a script may make at most 3 tool calls\n4 tool call limit reached: a script may make at most 3 tool calls\n"
	if r.Stdout != want || len(r.ToolCalls) != 3 {
		t.Errorf("stdout %q, calls %+v", r.Stdout, r.ToolCalls)
	}
}

func TestLongStdoutKeepsHeadAndTailAndTheWholeInAFile(t *testing.T) {
	b := newBox(t, boxOptions{opts: Options{MaxStdout: 1000, MaxStderr: 500}})
	r, _ := b.run(t, `
import sys
for i in range(20000):
    print("line %05d" % i)
sys.stderr.write("e" * 5000 + "END-OF-STDERR\n")
`)
	if !strings.HasPrefix(r.Stdout, "line 00000\n") || !strings.HasSuffix(r.Stdout, "line 19999\n") || len(r.Stdout) > 1400 {
		t.Errorf("stdout (%d bytes) is not head and tail:\n%s", len(r.Stdout), r.Stdout)
	}
	if r.StdoutFile == "" || !strings.Contains(r.Stdout, r.StdoutFile) {
		t.Fatalf("no file named for the whole output: %+v", r)
	}
	whole, err := os.ReadFile(r.StdoutFile)
	if err != nil || len(whole) != 20000*11 || !strings.Contains(string(whole), "line 12345\n") {
		t.Errorf("the saved output has %d bytes (%v)", len(whole), err)
	}
	if len(r.Stderr) > 700 || !strings.HasSuffix(r.Stderr, "END-OF-STDERR\n") {
		t.Errorf("stderr (%d bytes) not capped to its tail: %q", len(r.Stderr), r.Stderr)
	}
}

func TestTheDescriptionShowsTheFunctionSignatures(t *testing.T) {
	b := newBox(t, boxOptions{})
	d := b.code.Spec().Description
	for _, want := range []string{
		"read_file(path: str, offset: int = None, limit: int = None)",
		"terminal(command: str, timeout: float = None, workdir: str = None)\n",
		"write_file(path: str, content: str)",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("description lacks %s:\n%s", want, d)
		}
	}
	if strings.Contains(d, "execute_code(") {
		t.Error("a script is offered execute_code")
	}
}

// However much a script prints, hermes keeps a bounded part of it: head
// and tail in memory, the first bytes up to a cap in the file.
func TestAHugePrintIsKeptWithinBounds(t *testing.T) {
	b := newBox(t, boxOptions{opts: Options{MaxStdout: 1000}})
	b.code.saved = 1 << 20
	r, _ := b.run(t, `
import sys
chunk = "y" * 1023 + "\n"
for i in range(8 * 1024):
    sys.stdout.write(chunk)
print("LAST")
`)
	if r.ExitCode != 0 || !strings.HasSuffix(r.Stdout, "LAST\n") || len(r.Stdout) > 1500 {
		t.Fatalf("stdout (%d bytes) %q", len(r.Stdout), r.Stdout)
	}
	st, err := os.Stat(r.StdoutFile)
	if err != nil || st.Size() != 1<<20 {
		t.Fatalf("saved file: %v %v, want %d bytes", st, err, 1<<20)
	}
	if !strings.Contains(r.Stdout, "the first 1048576 bytes are in "+r.StdoutFile) {
		t.Errorf("the note does not say the file holds only the first bytes: %q", r.Stdout)
	}
}

// A script that forks without end is stopped by the sandbox's process
// limit: its forks fail once the limit is reached, and nothing it
// forked outlives it.
func TestAForkBombInAScriptIsContained(t *testing.T) {
	if st := sandbox.Probe(); !st.ProcessLimit {
		t.Skipf("this system cannot limit a command's processes (%s): a fork bomb here would take the machine", st.ProcessLimitErr)
	}
	b := newBox(t, boxOptions{})
	r, _ := b.run(t, `
import errno, os, sys, time
n = 0
try:
    for _ in range(100000):
        pid = os.fork()
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        n += 1
except OSError as e:
    print("stopped", n, e.errno == errno.EAGAIN, sys.argv[0], flush=True)
else:
    print("unbounded", n, flush=True)
`, 60)
	f := strings.Fields(r.Stdout)
	if len(f) != 4 || f[0] != "stopped" || f[2] != "True" {
		t.Fatalf("the forks were not stopped by the limit: %+v", r)
	}
	// The children are found below by the script's path in their command
	// line.
	if !strings.HasPrefix(f[3], b.scratch) {
		t.Fatalf("the script %s is not under %s", f[3], b.scratch)
	}
	if n, _ := strconv.Atoi(f[1]); n >= sandbox.DefaultMaxProcesses {
		t.Fatalf("%d forks succeeded past the limit of %d", n, sandbox.DefaultMaxProcesses)
	}
	// Every forked child sleeps: once the script's result is in, none of
	// them may still run.
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := 0
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			if c, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(c), b.scratch) {
				left++
			}
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the script's processes outlived its result", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
