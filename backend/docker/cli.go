package docker

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
)

// The ways the engine can be unusable, each said plainly to the user and
// in the tool result of every command that needed it.
var (
	// ErrNoBinary: terminal.docker.binary is not installed.
	ErrNoBinary = errors.New("the container CLI is not installed")
	// ErrDaemon: the CLI is there but its engine does not answer.
	ErrDaemon = errors.New("the container engine does not answer")
	// ErrImage: terminal.docker.image cannot be pulled.
	ErrImage = errors.New("the image cannot be pulled")
)

// cli runs the docker (or podman) binary.
type cli struct {
	bin string
	// env is the CLI's own environment (DOCKER_HOST and the like, and
	// the values of forwarded variables, which `-e NAME` reads from it);
	// nil is hermes' environment.
	env []string
}

// command builds a CLI invocation in a process group of its own, so that
// cancelling it kills the client and nothing else.
func (c cli) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = c.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// run runs the CLI with stdin (nil: none) and returns its stdout; a
// failure carries its stderr and is classified (ErrNoBinary, ErrDaemon,
// ErrImage).
func (c cli) run(ctx context.Context, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := c.command(ctx, args...)
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil && len(args) > 0 {
			// Not the engine's failure: our deadline (a slow pull) or a cancel.
			return out.Bytes(), fmt.Errorf("%s %s: %w", c.bin, args[0], ctx.Err())
		}
		return out.Bytes(), c.classify(args, err, errb.String())
	}
	return out.Bytes(), nil
}

// classify turns a failed invocation into an error that says what to do.
func (c cli) classify(args []string, err error, stderr string) error {
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	msg := strings.TrimSpace(stderr)
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, syscall.ENOENT):
		return fmt.Errorf("%w: %q not found (terminal.docker.binary): install Docker or Podman, or set terminal.backend: local", ErrNoBinary, c.bin)
	case daemonDown(msg):
		return fmt.Errorf("%w: %s %s: %s (start it, or check DOCKER_HOST and `%s info`)", ErrDaemon, c.bin, sub, firstLine(msg), c.bin)
	case sub == "run" && pullFailed(msg):
		return fmt.Errorf("%w: %s (terminal.docker.image)", ErrImage, oneLine(msg))
	case msg != "":
		return fmt.Errorf("%s %s: %s", c.bin, sub, oneLine(msg))
	}
	return fmt.Errorf("%s %s: %w", c.bin, sub, err)
}

// daemonDown recognises the CLI's messages when it cannot reach its
// engine (docker's socket, podman's service or machine).
func daemonDown(msg string) bool {
	for _, s := range []string{
		"Cannot connect to the Docker daemon",
		"Is the docker daemon running",
		"error during connect",
		"unable to connect to Podman",
		"Cannot connect to Podman",
		"connect: connection refused",
		"permission denied while trying to connect to the Docker daemon",
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// pullFailed recognises an image `run` could neither find nor pull.
func pullFailed(msg string) bool {
	for _, s := range []string{
		"Unable to find image", "pull access denied", "manifest unknown", "not found: manifest",
		"repository does not exist", "short-name resolution", "Error: initializing source", "no such image",
		"failed to resolve reference", "Error response from daemon: Get",
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// oneLine joins the lines of a CLI message, which docker splits across
// "Unable to find image" and the daemon's error.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
