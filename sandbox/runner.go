package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"

	"github.com/hermes-go/hermes/tool/approval"
)

// Runner starts the commands of one Policy. Where the helper can hold the
// whole policy (Enforcement Full), the Runner keeps a lane of the shared
// helper for its life (see zygote): a thread restricted once, which
// forks each command, so that a command costs a fork and an exec, not
// the start of this program. Otherwise, and for a command the lane
// cannot take (a side file outside the writable roots, a request too
// large for its socket), the command goes through Wrap. A lane that stops
// is opened again once; a command that finds it stopped fails with that
// error and does not run, and never runs with less than the policy.
//
// Concurrency: a Runner's methods are safe for concurrent use.
type Runner struct {
	policy Policy

	once     sync.Once
	ready    chan struct{} // closed when the first helper started, or failed to
	mu       sync.Mutex
	h        *helper // nil: commands go through Wrap
	why      error   // why h is nil
	restarts int
	closed   bool
}

// How many times a Runner starts its helper again after it stopped.
const maxRestarts = 1

// NewRunner returns a Runner for p, its lane opening in the background:
// the first command waits for it only if it is not ready yet. Close the
// Runner to end the lane.
func (p Policy) NewRunner() *Runner {
	r := &Runner{policy: p, ready: make(chan struct{})}
	go r.init()
	return r
}

func (r *Runner) init() {
	r.once.Do(func() {
		defer close(r.ready)
		h, err := r.newHelper()
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.closed {
			if h != nil {
				h.close()
			}
			return
		}
		r.h, r.why = h, err
	})
}

// newHelper starts a helper for the policy, or says why there is none.
func (r *Runner) newHelper() (*helper, error) {
	if _, err := ParseMode(string(r.policy.Mode)); err != nil {
		return nil, err
	}
	if r.policy.Mode == FullAccess {
		return nil, errors.New("full access: nothing to enforce")
	}
	st := Probe()
	if e := st.Enforcement(r.policy); e.Level != Full {
		return nil, fmt.Errorf("not enforced fully: %s", e)
	}
	return startHelper(r.policy, st)
}

// StartOptions are what one command adds to the Runner's policy.
type StartOptions struct {
	// Files are single files the command may write whatever the mode (see
	// Wrap).
	Files []string
	// NetworkAsk replaces the policy's NetworkAsk for this command.
	NetworkAsk func(ctx context.Context, host string) (approval.Choice, error)
	// EndWithCommand kills, when the wait returns, every process the
	// command started and left running: those of its cgroup where
	// processes are limited (Status.ProcessLimit), else of its process
	// group. Without it they run on (still limited), unless ctx ends
	// first.
	EndWithCommand bool
}

// Start starts cmd under the Runner's policy and returns the function to
// wait for it with, which behaves as cmd.Wait: it sets cmd.ProcessState,
// returns an *exec.ExitError for a non-zero exit and exec.ErrWaitDelay
// when output pipes outlived cmd.WaitDelay. cmd.Process is set once it
// has started. The command runs in a session and process group of its
// own; when ctx ends before it exits, cmd.Cancel is called (the default
// kills the process). cmd must not have been started, and cmd's own
// context (exec.CommandContext) is not watched: pass it as ctx.
func (r *Runner) Start(ctx context.Context, cmd *exec.Cmd, o StartOptions) (wait func() error, err error) {
	p := r.policy
	if o.NetworkAsk != nil {
		p.NetworkAsk = o.NetworkAsk
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if _, err := ParseMode(string(p.Mode)); err != nil {
		return nil, err
	}
	if h := r.helperFor(p, o.Files); h != nil {
		wait, err := h.start(ctx, cmd, p, o.EndWithCommand)
		if !errors.Is(err, errTooLarge) {
			if errors.Is(err, errHelperStopped) {
				r.stopped(h)
			}
			return wait, err
		}
	}
	if p.Mode == FullAccess {
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		return cmd.Wait, nil
	}
	return startWrapped(ctx, p, cmd, o.Files, o.EndWithCommand)
}

// helperFor is the helper to start a command of p with files through, or
// nil for Wrap.
func (r *Runner) helperFor(p Policy, files []string) *helper {
	if p.Mode == FullAccess || !r.policy.holds(files) {
		return nil
	}
	<-r.ready
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.h == nil {
		return nil
	}
	if r.h.exited() {
		r.h.close()
		r.h = nil
		if r.restarts >= maxRestarts {
			r.why = errors.New("the sandbox helper stopped again")
			return nil
		}
		r.restarts++
		r.h, r.why = r.newHelper()
	}
	return r.h
}

// stopped notes that h was found stopped: the next command starts
// another.
func (r *Runner) stopped(h *helper) {
	h.kill()
}

// holds reports whether the helper's restrictions already let a command
// write files: each lies beneath a writable root, outside every path that
// stays read-only or hidden there.
func (p Policy) holds(files []string) bool {
	for _, f := range files {
		if p.Mode == ReadOnly || p.CheckWrite(f) != nil {
			return false
		}
	}
	return true
}

// Close stops the helper; commands it started run on. Later commands go
// through Wrap.
func (r *Runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.h != nil {
		r.h.close()
		r.h = nil
	}
	return nil
}
