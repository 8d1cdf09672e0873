package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// gatewayWait bounds every wait of the gateway suite: long enough for a
// loaded machine, short enough that a hung scenario fails fast.
const gatewayWait = 20 * time.Second

// gatewayProc is a running `hermes gateway`, in its own process group
// (the sandboxed commands it runs die with it).
type gatewayProc struct {
	cmd    *exec.Cmd
	log    *logTail
	exited chan struct{}
	code   int
}

// startGateway runs `hermes gateway` on home with the model at modelURL,
// in workdir, with env added, and returns once platform is connected.
func startGateway(t *testing.T, home, workdir, modelURL, platform string, env []string) *gatewayProc {
	t.Helper()
	cmd := exec.Command(hermesBin, "gateway", "--provider", "custom", "--base-url", modelURL, "--api-key", "x", "--model", "m")
	cmd.Dir = workdir
	cmd.Env = append([]string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &gatewayProc{cmd: cmd, log: newLogTail(), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			g.log.add(sc.Text())
		}
		cmd.Wait()
		g.code = cmd.ProcessState.ExitCode() // -1 when a signal ended it
		g.log.close()
		close(g.exited)
	}()
	t.Cleanup(func() {
		g.kill()
		if t.Failed() {
			t.Logf("hermes gateway's log:\n%s", g.log.text())
		}
	})
	g.waitLog(t, connectedLine(platform), 1)
	return g
}

// connectedLine is the gateway's log line when platform connects.
func connectedLine(platform string) string {
	return `msg="platform connected" platform=` + platform
}

// disconnectedLine is the gateway's log line when platform loses its
// connection.
func disconnectedLine(platform string) string {
	return `msg="platform not connected" platform=` + platform
}

// waitLog waits until the gateway logged a line holding s n times.
func (g *gatewayProc) waitLog(t *testing.T, s string, n int) {
	t.Helper()
	if !g.log.waitCount(s, n, gatewayWait) {
		t.Fatalf("hermes gateway did not log %q %d times within %s:\n%s", s, n, gatewayWait, g.log.text())
	}
}

// kill SIGKILLs the process group and reaps it; safe to call again.
func (g *gatewayProc) kill() {
	select {
	case <-g.exited:
	default:
		syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
		<-g.exited
	}
}

// stop sends SIGTERM and returns the exit status once the gateway has
// drained and exited.
func (g *gatewayProc) stop(t *testing.T) int {
	t.Helper()
	g.cmd.Process.Signal(syscall.SIGTERM)
	return g.wait(t)
}

// wait returns the exit status once the gateway has exited.
func (g *gatewayProc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-g.exited:
	case <-time.After(gatewayWait):
		t.Fatalf("hermes gateway did not exit within %s:\n%s", gatewayWait, g.log.text())
	}
	return g.code
}

// logTail keeps what a process writes, line by line, and wakes waiters
// on each line.
type logTail struct {
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
	done    bool
}

func newLogTail() *logTail { return &logTail{changed: make(chan struct{})} }

func (l *logTail) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *logTail) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = true
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *logTail) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// count is how many lines hold s.
func (l *logTail) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

// waitCount waits until n lines hold s; it reports false at the timeout
// or when the process has ended without them.
func (l *logTail) waitCount(s string, n int, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		changed, done := l.changed, l.done
		l.mu.Unlock()
		if l.count(s) >= n {
			return true
		}
		if done {
			return false
		}
		select {
		case <-changed:
		case <-deadline.C:
			return l.count(s) >= n
		}
	}
}

// scriptedModel answers the gateway's model calls from a script of steps,
// some held until the test releases them. One serves a whole test; each
// subtest begins its own script.
type scriptedModel struct {
	srv     *llmtest.Server
	holding chan *llmtest.Request // a held step's request arrived

	mu         sync.Mutex
	steps      []modelStep
	mark       int // requests before the running subtest
	unscripted int // requests that found no step
	releases   []chan struct{}
}

type modelStep struct {
	reply   llmtest.Reply
	release chan struct{} // nil: answered at once
}

func newScriptedModel(t *testing.T) *scriptedModel {
	m := &scriptedModel{srv: llmtest.NewServer(t), holding: make(chan *llmtest.Request, 16)}
	m.srv.Handle(m.answer)
	// Runs before the server's own cleanup, which waits for the replies
	// held open.
	t.Cleanup(m.releaseAll)
	return m
}

func (m *scriptedModel) answer(r *llmtest.Request) llmtest.Reply {
	m.mu.Lock()
	if len(m.steps) == 0 {
		m.unscripted++
		m.mu.Unlock()
		return llmtest.Error(500, "")
	}
	st := m.steps[0]
	m.steps = m.steps[1:]
	m.mu.Unlock()
	if st.release != nil {
		m.holding <- r
		<-st.release
	}
	return st.reply
}

// begin starts a subtest's script: the requests before it are not its
// own, and at its end every step must have been used.
func (m *scriptedModel) begin(t *testing.T) {
	m.mu.Lock()
	m.steps, m.unscripted = nil, 0
	m.mu.Unlock()
	m.mark = len(m.srv.Requests())
	t.Cleanup(func() {
		m.releaseAll()
		m.mu.Lock()
		defer m.mu.Unlock()
		if !t.Failed() && (len(m.steps) > 0 || m.unscripted > 0) {
			t.Errorf("the model script: %d replies unused, %d requests unscripted", len(m.steps), m.unscripted)
		}
	})
}

func (m *scriptedModel) releaseAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ch := range m.releases {
		close(ch)
	}
	m.releases = nil
}

// reply scripts the next answers.
func (m *scriptedModel) reply(rs ...llmtest.Reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range rs {
		m.steps = append(m.steps, modelStep{reply: r})
	}
}

// held scripts an answer given only once release is called; the request
// shows up on m.holding when it arrives.
func (m *scriptedModel) held(r llmtest.Reply) (release func()) {
	ch := make(chan struct{})
	m.mu.Lock()
	m.steps = append(m.steps, modelStep{reply: r, release: ch})
	m.releases = append(m.releases, ch)
	m.mu.Unlock()
	return sync.OnceFunc(func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for i, x := range m.releases {
			if x == ch {
				m.releases = append(m.releases[:i], m.releases[i+1:]...)
				close(ch)
			}
		}
	})
}

// waitHeld returns the request of the next held step once it arrives.
func (m *scriptedModel) waitHeld(t *testing.T) *llmtest.Request {
	t.Helper()
	select {
	case r := <-m.holding:
		return r
	case <-time.After(gatewayWait):
		t.Fatalf("no model request was held within %s", gatewayWait)
	}
	return nil
}

// requests are the model calls of the running subtest, answered ones.
func (m *scriptedModel) requests() []*llmtest.Request {
	return m.srv.Requests()[m.mark:]
}

// userTexts are the user messages a model call carried.
func userTexts(r *llmtest.Request) []string {
	var out []string
	for _, msg := range r.Messages() {
		if msg.Role == "user" {
			out = append(out, msg.Content)
		}
	}
	return out
}

// lastUserTexts are the last user messages of model calls: what each
// turn answered.
func lastUserTexts(reqs []*llmtest.Request) []string {
	out := []string{}
	for _, r := range reqs {
		u := userTexts(r)
		if len(u) == 0 {
			out = append(out, "")
			continue
		}
		out = append(out, u[len(u)-1])
	}
	return out
}

func quoteAll(ss []string) string {
	var b strings.Builder
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", s)
	}
	return b.String()
}
