package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/sandbox"
)

// runnerTransport starts a stdio server through a sandbox.Runner, so
// that the Runner's helper, restricted once, forks it as it forks the
// terminal's commands (a Runner without a helper wraps it, see
// Runner.Start). It speaks to the server over pipes, as the SDK's
// CommandTransport does, and ends it the same way.
type runnerTransport struct {
	runner    *sandbox.Runner
	cmd       *exec.Cmd // Stderr set; Stdin and Stdout are the pipes
	terminate time.Duration
}

func (t *runnerTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	t.cmd.Stdin, t.cmd.Stdout = inR, outW
	// The server lives as long as its session, not the connect timeout:
	// Close ends it.
	wait, err := t.runner.Start(context.WithoutCancel(ctx), t.cmd, sandbox.StartOptions{})
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		if !strings.HasPrefix(err.Error(), "sandbox") {
			err = fmt.Errorf("sandbox: %w", err)
		}
		return nil, err
	}
	p := &serverProcess{cmd: t.cmd, stdin: inW, stdout: outR, wait: wait, terminate: t.terminate}
	// The connection is closed by closing the server's input (p.Close),
	// not its output, which is closed once it has exited.
	return (&sdk.IOTransport{Reader: io.NopCloser(outR), Writer: p}).Connect(ctx)
}

// serverProcess is the hermes side of a server started by runnerTransport:
// writes go to its input, and Close ends and reaps it.
type serverProcess struct {
	cmd       *exec.Cmd
	stdin     *os.File
	stdout    *os.File
	wait      func() error
	terminate time.Duration

	once sync.Once
	err  error
}

func (p *serverProcess) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close ends the server as the MCP specification asks: its input is
// closed, and a server that does not exit within the grace period gets
// SIGTERM, then SIGKILL, each sent to its process group (what it started
// ends with it). The wait reaps it; its result is Close's.
func (p *serverProcess) Close() error {
	p.once.Do(func() { p.err = p.end() })
	return p.err
}

func (p *serverProcess) end() error {
	defer p.stdout.Close() // unblocks the reader should a grandchild hold the pipe
	p.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- p.wait() }()
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			signalGroup(p.cmd.Process, sig)
		}
		timer := time.NewTimer(p.terminate)
		select {
		case err := <-exited:
			timer.Stop()
			return err
		case <-timer.C:
		}
	}
	return errors.New("the server did not exit after SIGKILL")
}

// signalGroup sends sig to the process group proc leads, or to proc
// alone when there is no such group.
func signalGroup(proc *os.Process, sig syscall.Signal) {
	if err := syscall.Kill(-proc.Pid, sig); err != nil {
		proc.Signal(sig)
	}
}
