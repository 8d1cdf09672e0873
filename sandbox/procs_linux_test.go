package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// needProcessLimit skips where this system cannot limit processes, after
// checking that the status says so.
func needProcessLimit(t *testing.T, p Policy) {
	t.Helper()
	st := Probe()
	e := st.Enforcement(p)
	if !st.ProcessLimit {
		if e.MaxProcesses != 0 || !strings.Contains(e.String(), "fork bomb is not contained") {
			t.Fatalf("no process limit, but the enforcement does not say so: %s", e)
		}
		t.Skipf("no process limit here: %s", st.ProcessLimitErr)
	}
	if e.MaxProcesses != p.maxProcesses() || !strings.Contains(e.String(), fmt.Sprintf("at most %d processes per command", p.maxProcesses())) {
		t.Fatalf("enforcement does not state the process limit: %s", e)
	}
}

// sessionProcs are the live (not zombie) processes of session sid.
func sessionProcs(sid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 4 || f[0] == "Z" {
			continue
		}
		if s, _ := strconv.Atoi(f[3]); s == sid {
			out = append(out, pid)
		}
	}
	return out
}

// groupsGone fails t unless this process's process groups are all
// removed within a few seconds: a group stays while its killed processes
// wait, as zombies, for init to reap them.
func groupsGone(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		sweepGroups()
		g := ourGroups(t)
		if len(g) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process groups left behind: %v", g)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ourGroups are the process groups of this process still present.
func ourGroups(t *testing.T) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(findPids().dir, fmt.Sprintf("hermes-%d-*", os.Getpid())))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// startIn starts script in bash through r (or, when r is nil, through
// Wrap, as a Runner does for a command its lane cannot take).
func startIn(t *testing.T, ctx context.Context, r *Runner, p Policy, dir, script string, out *bytes.Buffer) (*exec.Cmd, func() error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	cmd.Stdout, cmd.Stderr = out, out
	var wait func() error
	var err error
	if r != nil {
		wait, err = r.Start(ctx, cmd, StartOptions{})
	} else {
		wait, err = startWrapped(ctx, p, cmd, nil, false)
	}
	if err != nil {
		t.Fatalf("start %q: %v", script, err)
	}
	return cmd, wait
}

// A command cannot have more processes than Policy.MaxProcesses, and a
// fork bomb ends at its timeout with every process it made, while other
// commands keep running.
func TestForkBombContained(t *testing.T) {
	for _, lane := range []bool{true, false} {
		t.Run(fmt.Sprintf("lane=%v", lane), func(t *testing.T) {
			b := newBox(t)
			p := b.policy(t, WorkspaceWrite)
			p.MaxProcesses = 64
			needProcessLimit(t, p)
			var r *Runner
			if lane {
				r = readyRunner(t, p)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			var out bytes.Buffer
			start := time.Now()
			cmd, wait := startIn(t, ctx, r, p, b.ws, `:(){ :|:& };:; wait`, &out)

			// While it runs, its group holds no more than the limit, and
			// another command runs as usual.
			other := readyRunner(t, b.policy(t, WorkspaceWrite))
			var ok bytes.Buffer
			_, owait := startIn(t, context.Background(), other, p, b.ws, "echo still here", &ok)
			if err := owait(); err != nil || ok.String() != "still here\n" {
				t.Fatalf("a command beside the fork bomb: %v %q", err, ok.String())
			}
			// The bomb grows in its group up to the limit, never past it.
			peak := 0
			for deadline := time.Now().Add(2 * time.Second); peak < 32 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				for _, g := range ourGroups(t) {
					if n := readInt(filepath.Join(g, "pids.current")); n > peak {
						peak = n
					}
				}
			}
			if peak < 16 || peak > 64 {
				t.Fatalf("the fork bomb's group held at most %d tasks, want it to grow inside its group (16 or more) and stay within its limit of 64", peak)
			}
			wait()
			took := time.Since(start)
			if took > 10*time.Second {
				t.Errorf("the fork bomb took %s to end after its 3s timeout", took)
			}
			t.Logf("fork bomb contained in %s (timeout 3s, at most 64 processes; peak seen %d)", took, peak)
			if left := sessionProcs(cmd.Process.Pid); len(left) > 0 {
				t.Fatalf("processes of the fork bomb outlived it: %v", left)
			}
			groupsGone(t)
		})
	}
}

// A command that tries to start more processes than its limit gets
// EAGAIN at the limit.
func TestProcessLimit(t *testing.T) {
	b := newBox(t)
	p := b.policy(t, WorkspaceWrite)
	p.MaxProcesses = 20
	needProcessLimit(t, p)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	r := readyRunner(t, p)
	var out bytes.Buffer
	// Children pause; the parent counts the forks that worked, then
	// kills its process group, itself included.
	script := `python3 -c '
import os, signal
n = 0
for i in range(100):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        signal.pause()
        os._exit(0)
    n += 1
print(n, flush=True)
os.killpg(0, signal.SIGKILL)
'`
	_, wait := startIn(t, context.Background(), r, p, b.ws, script, &out)
	wait()
	n, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	// bash and python count, and python's own threads.
	if n >= 20 || n < 10 {
		t.Fatalf("%d forks succeeded under a limit of 20 processes", n)
	}
	groupsGone(t)
}

func readInt(path string) int {
	b, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// A Cancel with a WaitDelay is a grace: the command gets SIGTERM and its
// time to clean up, then every process left in its group is killed, one
// that ignores SIGTERM in a session of its own among them.
func TestCancelGraceThenTheGroupIsKilled(t *testing.T) {
	for _, lane := range []bool{true, false} {
		t.Run(fmt.Sprintf("lane=%v", lane), func(t *testing.T) {
			b := newBox(t)
			p := b.policy(t, WorkspaceWrite)
			needProcessLimit(t, p)
			var r *Runner
			if lane {
				r = readyRunner(t, p)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", `trap 'echo cleaned > cleaned; exit 3' TERM
setsid bash -c 'trap "" TERM; echo $$ > escaped; while :; do sleep 0.05; done' >/dev/null 2>&1 &
while [ ! -s escaped ]; do sleep 0.01; done; echo ready; while :; do sleep 0.05; done`)
			cmd.Dir = b.ws
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
			out := &lockedBuffer{}
			cmd.Stdout = out
			cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
			cmd.WaitDelay = time.Second
			var wait func() error
			var err error
			if lane {
				wait, err = r.Start(ctx, cmd, StartOptions{})
			} else {
				wait, err = startWrapped(ctx, p, cmd, nil, false)
			}
			if err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "ready"); time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the command did not start its child")
				}
			}
			cancel()
			wait()
			if b, err := os.ReadFile(filepath.Join(b.ws, "cleaned")); err != nil || string(b) != "cleaned\n" {
				t.Fatalf("the command did not get SIGTERM first: %q %v", b, err)
			}
			pb, _ := os.ReadFile(filepath.Join(b.ws, "escaped"))
			pid, _ := strconv.Atoi(strings.TrimSpace(string(pb)))
			deadline := time.Now().Add(5 * time.Second)
			for alive(pid) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if alive(pid) {
				t.Fatalf("the child that left the command's session (pid %d) outlived it", pid)
			}
			groupsGone(t)
		})
	}
}

// alive reports whether pid runs (a zombie does not).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
