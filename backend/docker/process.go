package docker

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"

	"github.com/hermes-go/hermes/backend"
)

// Start implements backend.Backend: c runs in its conversation's
// container through a docker exec that lives as long as it does; Kill
// kills it and all it started inside the container.
func (b *Backend) Start(c backend.Command) (backend.Process, error) {
	ctx := context.Background()
	ct, err := b.container(ctx, c.Session)
	if err != nil {
		return nil, err
	}
	id := newCommandID()
	cmd := b.execCommand(ctx, ct, c, id, false)
	errw := newPassWriter(c.Stderr)
	cmd.Stdout, cmd.Stderr = c.Stdout, errw
	if cmd.Stdout == nil {
		cmd.Stdout = discard{}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("docker backend: exec in container %.12s: %w", ct.id, b.cli.classify([]string{"exec"}, err, ""))
	}
	p := &process{b: b, ct: ct, id: id, cmd: cmd, done: make(chan struct{})}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		p.kill()
		return nil, errors.New("docker backend: closed")
	}
	b.procs[p] = struct{}{}
	b.mu.Unlock()
	go func() {
		waitErr := cmd.Wait()
		errw.Finish()
		ex := backend.Exit{Code: cmd.ProcessState.ExitCode()}
		if msg := errw.head(); waitErr != nil && cliFailed(msg) && goneMessage(msg) {
			ex = backend.Exit{Code: -1, Note: "the container is gone"}
		} else if waitErr != nil && cliFailed(msg) {
			ex.Note = "docker exec: " + firstLine(msg)
		}
		p.mu.Lock()
		if p.killed {
			ex = backend.Exit{Code: -1, Note: "killed"}
		}
		p.exit = ex
		p.mu.Unlock()
		b.mu.Lock()
		delete(b.procs, p)
		b.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// process is a background command in a container.
type process struct {
	b    *Backend
	ct   *container
	id   string
	cmd  *exec.Cmd
	done chan struct{}

	mu     sync.Mutex
	exit   backend.Exit
	killed bool
}

// Pid implements backend.Process: none to show (the command's pid lives
// in the container's namespace, the CLI client's means nothing there).
func (p *process) Pid() int { return 0 }

func (p *process) Done() <-chan struct{} { return p.done }

func (p *process) Exit() backend.Exit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// Kill implements backend.Process: it kills the command's processes in
// the container, then the client.
func (p *process) Kill() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	p.kill()
	return nil
}

func (p *process) kill() {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	p.b.killIn(p.ct, p.id)
	killGroup(p.cmd)
}
