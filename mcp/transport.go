package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/sandbox"
)

// terminateAfter is how long a stdio server has to exit once its input
// is closed before it is sent SIGTERM, and then SIGKILL: short, since
// hermes waits for it on the way out.
const terminateAfter = 300 * time.Millisecond

// transport builds the SDK transport of one attempt. For a stdio server
// it also returns the command, so its process group can be ended.
func (m *Manager) transport(s Server, stderr *tail) (sdk.Transport, *exec.Cmd, error) {
	switch s.transport() {
	case HTTP:
		return &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: m.httpClient(s.Headers)}, nil, nil
	case SSE:
		return &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: m.httpClient(s.Headers)}, nil, nil
	case Stdio:
	default:
		return nil, nil, fmt.Errorf("unknown transport %q", s.Transport)
	}
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = m.opts.Dir
	if s.Dir != "" {
		cmd.Dir = s.Dir
		if !filepath.IsAbs(s.Dir) && m.opts.Dir != "" {
			cmd.Dir = filepath.Join(m.opts.Dir, s.Dir)
		}
	}
	if cmd.Err != nil {
		return nil, nil, cmd.Err // not found on PATH
	}
	if strings.Contains(s.Command, "/") {
		// Checked here: under the sandbox the helper would be the one to fail.
		p := s.Command
		if !filepath.IsAbs(p) && cmd.Dir != "" {
			p = filepath.Join(cmd.Dir, p)
		}
		if _, err := exec.LookPath(p); err != nil {
			return nil, nil, err
		}
	}
	environ := m.opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	cmd.Env = append(slices.Clone(environ), s.Env...)
	cmd.Stderr = stderr
	// Its own process group: what it starts ends with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if s.Trusted || m.opts.Sandbox == nil || m.opts.Sandbox.Mode == sandbox.FullAccess {
		return &sdk.CommandTransport{Command: cmd, TerminateDuration: terminateAfter}, cmd, nil
	}
	r, err := m.runner()
	if err != nil {
		return nil, nil, err
	}
	return &runnerTransport{runner: r, cmd: cmd, terminate: terminateAfter}, cmd, nil
}

// endGroup kills what is left of a stdio server's process group.
func endGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		_ = cmd.Process.Kill()
	}
}

// httpClient is Options.HTTPClient sending headers with every request.
func (m *Manager) httpClient(headers map[string]string) *http.Client {
	base := m.opts.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	if len(headers) == 0 {
		return base
	}
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = headerTransport{base: rt, headers: headers}
	return &c
}

type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

// tail keeps the end of what a server writes to stderr, for the error
// that says why it stopped.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 4096

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
	}
	t.mu.Unlock()
	return len(p), nil
}

// last returns the last n non-empty lines, joined with " | ".
func (t *tail) last(n int) string {
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := strings.Join(lines, " | ")
	if len(out) > 500 {
		out = "..." + out[len(out)-497:]
	}
	return out
}

func (t *tail) reset() {
	t.mu.Lock()
	t.buf = t.buf[:0]
	t.mu.Unlock()
}
