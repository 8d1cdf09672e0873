package terminal

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/hermes-go/hermes/backend"
)

// StartProgram starts cmd the way a foreground command starts, when the
// backend can run a program of this machine (backend.Programs: the local
// backend, in the sandbox, in a process group of its own, with the
// environment of a command followed by env); an error naming the backend
// otherwise.
func (t *Terminal) StartProgram(ctx context.Context, session string, cmd *exec.Cmd, env ...string) (wait func() error, err error) {
	p, ok := t.be.(backend.Programs)
	if !ok {
		return nil, fmt.Errorf("the %s backend cannot run a program of this machine", t.be.Name())
	}
	return p.StartProgram(ctx, session, cmd, env...)
}

// Backend is where the terminal's commands run.
func (t *Terminal) Backend() backend.Backend { return t.be }
