package ssh

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/backend"
	gossh "golang.org/x/crypto/ssh"
)

// pipeGrace is how long output may still arrive once the remote shell
// has exited: a process it left running holds the channel open, and the
// result must not wait for it.
const pipeGrace = 2 * time.Second

// quote is s as one word of a POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// isVarName says whether s can name a shell variable.
func isVarName(s string) bool {
	for i, c := range s {
		if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && (i == 0 || !('0' <= c && c <= '9')) {
			return false
		}
	}
	return s != ""
}

// taskKey names a task's state files: hex, safe in any shell.
func taskKey(task string) string {
	h := sha256.Sum256([]byte(task))
	return hex.EncodeToString(h[:8])
}

// saveState is the EXIT trap of a foreground command: it writes the
// shell's directory and exported variables (less those that describe
// this shell or connection) to the task's state files, which the next
// command of the task reads back, and keeps the exit status.
const saveState = `__hermes_save() {
pwd > "$__hermes_s/$__hermes_t.pwd" 2>/dev/null
export -p 2>/dev/null | grep -Ev '^(declare -x|export) (PWD|OLDPWD|SHLVL|_|SSH_CLIENT|SSH_CONNECTION|SSH_TTY|SSH_AUTH_SOCK|SSH_ORIGINAL_COMMAND)(=|$)' > "$__hermes_s/$__hermes_t.env" 2>/dev/null
exit "$1"
}
trap '__hermes_save "$?"' EXIT
`

// script is what the remote shell runs for c: it says its pid (the
// process group of everything the command starts: sshd makes the shell a
// session leader) on the first line of stderr, restores the task's
// exported variables, sets the environment hermes gives commands (the
// forwarded variables, never the rest of hermes' own), moves to c.Dir
// and evaluates the command line with stdin empty.
func (b *Backend) script(c backend.Command, state string, foreground bool) string {
	var s strings.Builder
	s.WriteString("printf '%s\\n' \"$$\" >&2\n")
	fmt.Fprintf(&s, "__hermes_s=%s; __hermes_t=%s\n", quote(state), taskKey(c.Task))
	s.WriteString("if [ -r \"$__hermes_s/$__hermes_t.env\" ]; then . \"$__hermes_s/$__hermes_t.env\" >/dev/null 2>&1; fi\n")
	s.WriteString("export PAGER=cat GIT_PAGER=cat GIT_TERMINAL_PROMPT=0\n")
	for _, kv := range b.environ(c.Env) {
		name, value, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&s, "export %s=%s\n", name, quote(value))
	}
	fmt.Fprintf(&s, "cd %s || exit 1\n", quote(c.Dir))
	if foreground {
		s.WriteString(saveState)
	}
	fmt.Fprintf(&s, "eval %s </dev/null\n", quote(c.Line))
	return s.String()
}

// environ is what a remote command gets of hermes' environment: the
// variables terminal.forward_env names, then Options.Env, then extra.
func (b *Backend) environ(extra []string) []string {
	var env []string
	if len(b.opts.ForwardEnv) > 0 {
		for _, kv := range b.opts.Environ() {
			name, _, _ := strings.Cut(kv, "=")
			for _, p := range b.opts.ForwardEnv {
				if ok, _ := path.Match(p, name); ok {
					env = append(env, kv)
					break
				}
			}
		}
	}
	env = append(env, b.opts.Env...)
	env = append(env, extra...)
	out := env[:0]
	for _, kv := range env {
		if name, _, ok := strings.Cut(kv, "="); ok && isVarName(name) {
			out = append(out, kv)
		}
	}
	return out
}

// execLine is the command the remote login shell runs: bash (or sh)
// evaluating the script it reads from the channel's stdin, so that the
// login shell, whatever it is, parses nothing of it.
func execLine(shell string) string {
	return "exec " + quote(shell) + ` -c 'eval "$(cat)"'`
}

// where are the remote shell and state directory the connection set up.
func (b *Backend) where() (shell, state string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.shell, b.state
}

// remote is one command running on the remote host.
type remote struct {
	b      *Backend
	conn   *conn
	ch     gossh.Channel
	state  string        // the state directory the command uses
	pid    chan int      // the remote shell's pid, once said (0: unknown)
	copied chan struct{} // closed when stdout and stderr have ended
	status chan struct{} // closed when the exit status came or the channel closed

	mu       sync.Mutex
	code     int
	signal   string
	got      bool // an exit status or signal came
	killed   bool // interrupt killed it
	pidValue int
}

// open starts c on the remote host, dialling again once when the
// connection turns out to have dropped.
func (b *Backend) open(ctx context.Context, c backend.Command, foreground bool) (*remote, error) {
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		cn, err := b.connect(ctx)
		if err != nil {
			return nil, err
		}
		ch, reqs, err := b.openChannel(ctx, cn)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("ssh: run on %s: %w", b.Target(), ctx.Err())
			}
			lastErr = err
			b.drop(cn)
			continue
		}
		shell, state := b.where()
		ok, err := ch.SendRequest("exec", true, gossh.Marshal(struct{ Command string }{execLine(shell)}))
		if err != nil || !ok {
			ch.Close()
			if err != nil {
				lastErr = err
				b.drop(cn)
				continue
			}
			return nil, fmt.Errorf("ssh: %s refused to run a command", b.Target())
		}
		return b.started(cn, ch, reqs, c, state, foreground), nil
	}
	return nil, fmt.Errorf("ssh: run on %s: the connection dropped and could not be made again: %w", b.Target(), lastErr)
}

// openChannel opens a session channel on cn, giving up after the
// connect timeout: a connection whose peer vanished without a word (a
// dropped network) answers nothing, and is then made again.
func (b *Backend) openChannel(ctx context.Context, cn *conn) (gossh.Channel, <-chan *gossh.Request, error) {
	type opened struct {
		ch   gossh.Channel
		reqs <-chan *gossh.Request
		err  error
	}
	res := make(chan opened, 1)
	go func() {
		ch, reqs, err := cn.client.OpenChannel("session", nil)
		res <- opened{ch, reqs, err}
	}()
	t := time.NewTimer(b.opts.ConnectTimeout)
	defer t.Stop()
	var err error
	select {
	case o := <-res:
		return o.ch, o.reqs, o.err
	case <-t.C:
		err = fmt.Errorf("no answer from %s in %s", b.opts.Addr(), b.opts.ConnectTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	go func() { // a channel opened too late is closed unused
		if o := <-res; o.err == nil {
			o.ch.Close()
		}
	}()
	return nil, nil, err
}

func (b *Backend) started(cn *conn, ch gossh.Channel, reqs <-chan *gossh.Request, c backend.Command, state string, foreground bool) *remote {
	r := &remote{b: b, conn: cn, ch: ch, state: state, pid: make(chan int, 1), copied: make(chan struct{}), status: make(chan struct{}), code: -1}
	go func() {
		ch.Write([]byte(b.script(c, state, foreground)))
		ch.CloseWrite()
	}()
	stderr := &pidLine{dst: c.Stderr, pid: r.pid}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); io.Copy(c.Stdout, ch) }()
	go func() { defer wg.Done(); io.Copy(stderr, ch.Stderr()); stderr.flush() }()
	go func() { wg.Wait(); close(r.copied) }()
	go func() {
		var once sync.Once
		for req := range reqs {
			switch req.Type {
			case "exit-status":
				var m struct{ Status uint32 }
				if gossh.Unmarshal(req.Payload, &m) == nil {
					r.mu.Lock()
					r.code, r.got = int(m.Status), true
					r.mu.Unlock()
				}
				once.Do(func() { close(r.status) })
			case "exit-signal":
				var m struct {
					Signal     string
					CoreDumped bool
					Error      string
					Lang       string
				}
				if gossh.Unmarshal(req.Payload, &m) == nil {
					r.mu.Lock()
					r.signal, r.got = m.Signal, true
					r.mu.Unlock()
				}
				once.Do(func() { close(r.status) })
			}
			if req.WantReply {
				req.Reply(false, nil)
			}
		}
		once.Do(func() { close(r.status) })
	}()
	return r
}

// pidOf is the remote shell's pid, waiting at most d for it to be said.
func (r *remote) pidOf(d time.Duration) int {
	r.mu.Lock()
	if r.pidValue != 0 {
		defer r.mu.Unlock()
		return r.pidValue
	}
	r.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case p := <-r.pid:
		r.mu.Lock()
		r.pidValue = p
		r.mu.Unlock()
		return p
	case <-t.C:
		return 0
	}
}

// finish kills what is left of the command's process group and returns
// the task's directory as the shell left it ("" when not asked or not
// known).
func (r *remote) finish(readDir string) string {
	var parts []string
	if pid := r.pidOf(time.Second); pid > 0 {
		parts = append(parts, "kill -s KILL -- -"+strconv.Itoa(pid)+" 2>/dev/null")
	}
	if readDir != "" {
		parts = append(parts, "cat "+readDir+" 2>/dev/null")
	}
	if len(parts) == 0 || !r.conn.alive() {
		return ""
	}
	out, _ := r.conn.output("sh -c '" + strings.Join(parts, "; ") + "'")
	return strings.TrimSpace(out)
}

// interrupt sends SIGKILL over the channel, kills the command's process
// group and closes the channel.
func (r *remote) interrupt() {
	r.mu.Lock()
	r.killed = true
	r.mu.Unlock()
	r.ch.SendRequest("signal", false, gossh.Marshal(struct{ Signal string }{"KILL"}))
	r.finish("")
	r.ch.Close()
}

// exit is how the command ended, as far as the channel said.
func (r *remote) exit() backend.Exit {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := backend.Exit{Code: r.code}
	switch {
	case r.signal != "":
		e.Code, e.Note = -1, "killed by signal: SIG"+r.signal
	case r.killed && !r.got:
		e.Code, e.Note = -1, "killed"
	case !r.got:
		e.Code, e.Note = -1, fmt.Sprintf("the connection to %s was lost while the command ran; it may still be running there", r.b.opts.Host)
	}
	return e
}

// Run runs c on the remote host; see backend.Backend.Run.
func (b *Backend) Run(ctx context.Context, c backend.Command) (backend.Exit, error) {
	r, err := b.open(ctx, c, true)
	if err != nil {
		return backend.Exit{}, err
	}
	select {
	case <-r.status:
	case <-ctx.Done():
		r.interrupt()
		<-r.copied
		return backend.Exit{Code: -1}, nil
	}
	e := r.exit()
	t := time.NewTimer(pipeGrace)
	defer t.Stop()
	select {
	case <-r.copied:
	case <-t.C:
		if e.Note == "" {
			e.Note = "the command left a background process holding its output; later output is not shown (use background: true for long-running processes)"
		}
	case <-ctx.Done():
	}
	e.Dir = r.finish(r.state + "/" + taskKey(c.Task) + ".pwd")
	r.ch.Close()
	<-r.copied
	if ctx.Err() != nil {
		e.Code = -1
	}
	return e, nil
}

// process is a background command on the remote host.
type process struct {
	r    *remote
	pid  int
	done chan struct{}
	e    backend.Exit
}

func (p *process) Pid() int              { return p.pid }
func (p *process) Done() <-chan struct{} { return p.done }
func (p *process) Exit() backend.Exit    { <-p.done; return p.e }

// Kill sends SIGKILL over the channel, kills the command's process
// group and closes the channel.
func (p *process) Kill() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	p.r.interrupt()
	return nil
}

// Start starts c on the remote host in the background; it lives until
// it exits, is killed, or the backend is closed (or the connection
// drops: a background command does not survive its connection).
func (b *Backend) Start(c backend.Command) (backend.Process, error) {
	r, err := b.open(context.Background(), c, false)
	if err != nil {
		return nil, err
	}
	p := &process{r: r, pid: r.pidOf(b.opts.ConnectTimeout), done: make(chan struct{})}
	b.procMu.Lock()
	b.procs[p] = struct{}{}
	b.procMu.Unlock()
	go func() {
		<-r.status
		p.e = r.exit()
		t := time.NewTimer(pipeGrace)
		select {
		case <-r.copied:
		case <-t.C:
		}
		t.Stop()
		r.ch.Close()
		<-r.copied
		b.procMu.Lock()
		delete(b.procs, p)
		b.procMu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// pidLine takes the first line of the remote shell's stderr, its pid,
// off the stream; a first line that is no pid is passed on.
type pidLine struct {
	dst  io.Writer
	pid  chan<- int
	buf  []byte
	done bool
}

func (w *pidLine) Write(p []byte) (int, error) {
	if w.done {
		return w.dst.Write(p)
	}
	w.buf = append(w.buf, p...)
	i := bytes.IndexByte(w.buf, '\n')
	if i < 0 && len(w.buf) < 32 {
		return len(p), nil
	}
	w.done = true
	rest := w.buf
	if i >= 0 {
		if pid, err := strconv.Atoi(string(w.buf[:i])); err == nil && pid > 0 {
			w.pid <- pid
			rest = w.buf[i+1:]
		} else {
			w.pid <- 0
		}
	} else {
		w.pid <- 0
	}
	w.buf = nil
	if len(rest) > 0 {
		w.dst.Write(rest)
	}
	return len(p), nil
}

// flush passes on what was held when the stream ended before a newline.
func (w *pidLine) flush() {
	if !w.done {
		w.done = true
		w.pid <- 0
		if len(w.buf) > 0 {
			w.dst.Write(w.buf)
		}
	}
}
