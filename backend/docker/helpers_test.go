package docker

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/backend/docker/dockertest"
	"github.com/hermes-go/hermes/sandbox"
)

// rig is a Backend over the fake docker, which sits first on PATH.
type rig struct {
	t    *testing.T
	dir  string // the fake's directory: its containers and log
	ws   string // the workspace
	b    *Backend
	opts Options

	mu    sync.Mutex
	warns []string
}

// newRig installs the fake as docker (or name) and makes a Backend of
// the workspace in workspace-write mode, changed by edit.
func newRig(t *testing.T, name string, edit func(*Options)) *rig {
	t.Helper()
	r := &rig{t: t, dir: t.TempDir()}
	dockertest.Install(t, r.dir, name)
	t.Setenv("PATH", r.dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	r.ws = resolved(t, t.TempDir())
	r.opts = Options{Binary: name, Image: "debian:stable-slim", Dir: r.ws,
		Policy:  policy(t, sandbox.WorkspaceWrite, r.ws, t.TempDir()),
		Environ: func() []string { return os.Environ() }, Warn: r.warn}
	if edit != nil {
		edit(&r.opts)
	}
	r.b = r.open()
	return r
}

// open makes another Backend with the rig's options: another hermes
// process, as after a restart.
func (r *rig) open() *Backend {
	r.t.Helper()
	b, err := New(r.opts)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { b.Close() })
	return b
}

func (r *rig) warn(s string) {
	r.mu.Lock()
	r.warns = append(r.warns, s)
	r.mu.Unlock()
}

func (r *rig) warnings() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.warns, "\n")
}

func resolved(t *testing.T, dir string) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func policy(t *testing.T, mode sandbox.Mode, ws, home string) sandbox.Policy {
	t.Helper()
	p, err := sandbox.NewPolicy(sandbox.Options{Mode: mode, Workdir: ws, Home: home, HermesHome: filepath.Join(home, ".hermes")})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// output is one foreground command's result.
type output struct {
	backend.Exit
	stdout, stderr string
}

// run runs line for session in dir ("" is the workspace).
func (r *rig) run(b *Backend, session, dir, line string) output {
	r.t.Helper()
	return r.runCtx(context.Background(), b, session, dir, line)
}

func (r *rig) runCtx(ctx context.Context, b *Backend, session, dir, line string) output {
	r.t.Helper()
	var out, errb bytes.Buffer
	ex, err := b.Run(ctx, backend.Command{Line: line, Dir: dir, Session: session, Task: "t", Stdout: &out, Stderr: &errb})
	if err != nil {
		r.t.Fatalf("run %q: %v", line, err)
	}
	return output{ex, out.String(), errb.String()}
}

func (r *rig) calls() []dockertest.Call {
	r.t.Helper()
	calls, err := dockertest.Calls(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	return calls
}

// callsOf are the logged invocations of sub (run, exec, rm, ...).
func (r *rig) callsOf(sub string) [][]string {
	var out [][]string
	for _, c := range r.calls() {
		if len(c.Args) > 0 && c.Args[0] == sub {
			out = append(out, c.Args)
		}
	}
	return out
}

func (r *rig) containers() []dockertest.Container {
	r.t.Helper()
	cs, err := dockertest.Containers(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	return cs
}

// flagValues are the values of flag in args, in order.
func flagValues(args []string, flag string) []string {
	var v []string
	for i, a := range args {
		if a == flag && i+1 < len(args) {
			v = append(v, args[i+1])
		}
	}
	return v
}

// gone waits (with a deadline: the kernel reaps asynchronously) for pid
// to have exited.
func gone(t *testing.T, pid string) bool {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile("/proc/" + strings.TrimSpace(pid) + "/stat")
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

func hasAll(args []string, want ...string) bool {
	for _, w := range want {
		if !slices.Contains(args, w) {
			return false
		}
	}
	return true
}

// syncBuffer is a buffer a background process writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func cmd(line string) backend.Command {
	return backend.Command{Line: line, Session: "s", Task: "t"}
}
