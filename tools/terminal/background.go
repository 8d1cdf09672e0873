package terminal

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/backend"
)

// process is one background command.
type process struct {
	id      string
	task    string
	command string
	dir     string
	pid     int
	started time.Time
	now     func() time.Time
	proc    backend.Process
	log     *logBuffer
	done    chan struct{} // closed when the process has exited

	mu       sync.Mutex
	exitCode int
	exitErr  string
	killed   bool
}

func (p *process) running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// status is one line a model can act on.
func (p *process) status() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.running() {
		return fmt.Sprintf("%s: running%s for %s: %s", p.id, pidNote(p.pid), p.now().Sub(p.started).Round(time.Second), p.command)
	}
	s := fmt.Sprintf("%s: exited with code %d: %s", p.id, p.exitCode, p.command)
	if p.killed {
		s = fmt.Sprintf("%s: killed (exit code %d): %s", p.id, p.exitCode, p.command)
	} else if p.exitErr != "" {
		s += " (" + p.exitErr + ")"
	}
	return s
}

type processes struct {
	mu    sync.Mutex
	next  int
	procs map[string]*process
}

func newProcesses() *processes { return &processes{procs: map[string]*process{}} }

func (ps *processes) add(p *process) {
	ps.mu.Lock()
	ps.next++
	p.id = fmt.Sprintf("proc_%d", ps.next)
	ps.procs[p.id] = p
	ps.mu.Unlock()
}

func (ps *processes) get(id string) (*process, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p, ok := ps.procs[id]
	return p, ok
}

// list returns the processes, oldest first; all tasks when task is empty.
func (ps *processes) list(task string) []*process {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var out []*process
	for _, p := range ps.procs {
		if task == "" || p.task == task {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].started.Before(out[j].started) || out[i].started.Equal(out[j].started) && out[i].id < out[j].id
	})
	return out
}

func (ps *processes) killAll() {
	for _, p := range ps.list("") {
		if p.running() {
			p.kill()
		}
	}
	for _, p := range ps.list("") {
		<-p.done
	}
}

func (p *process) kill() {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	p.proc.Kill()
}

// startBackground starts command on the backend, detached from any
// call's context: it lives until it exits, is killed, or the Terminal is
// closed.
func (t *Terminal) startBackground(session, task, command, dir string) (*process, error) {
	p := &process{task: task, command: command, dir: dir, log: newLogBuffer(t.opts.LogBuffer), done: make(chan struct{}), now: t.opts.Now}
	proc, err := t.be.Start(backend.Command{Line: command, Dir: dir, Session: session, Task: task, Stdout: p.log, Stderr: p.log})
	if err != nil {
		return nil, err
	}
	p.proc, p.pid, p.started = proc, proc.Pid(), p.now()
	t.procs.add(p)
	go func() {
		<-proc.Done()
		e := proc.Exit()
		p.mu.Lock()
		p.exitCode, p.exitErr = e.Code, e.Note
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// logBuffer keeps the newest output of a background process, addressed by
// absolute byte offsets so a reader can page through it while it grows.
// Writes come from exec's single copying goroutine; reads from tool calls.
type logBuffer struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int64 // bytes discarded from the front
}

func newLogBuffer(max int) *logBuffer { return &logBuffer{max: max} }

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	// Trim only once twice the cap has built up, so a chatty process
	// costs one copy per max bytes rather than one per write.
	if len(l.buf) > 2*l.max {
		over := len(l.buf) - l.max
		l.buf = append(l.buf[:0], l.buf[over:]...)
		l.dropped += int64(over)
	}
	return len(p), nil
}

// read returns up to limit bytes from offset, the offset after them, the
// total written so far, and whether bytes before offset were already
// dropped.
func (l *logBuffer) read(offset int64, limit int) (text string, next, total int64, lost bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	total = l.dropped + int64(len(l.buf))
	if offset < l.dropped {
		offset, lost = l.dropped, true
	}
	if offset > total {
		offset = total
	}
	start := int(offset - l.dropped)
	end := min(len(l.buf), start+limit)
	return strings.ToValidUTF8(string(l.buf[start:end]), "\uFFFD"), l.dropped + int64(end), total, lost
}

// pidNote is " (pid N)", or nothing where the backend has no local
// process id to give (a command in a container or on another host).
func pidNote(pid int) string {
	if pid <= 0 {
		return ""
	}
	return fmt.Sprintf(" (pid %d)", pid)
}
