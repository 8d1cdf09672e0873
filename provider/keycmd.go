package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// keyCmdTimeout bounds a key command: a secret manager that hangs (waiting
// for an unlock prompt nobody sees) must not hang the agent.
const keyCmdTimeout = 30 * time.Second

// RunKeyCmd runs command through the shell and returns the first line it
// prints, trimmed, within 30 seconds. It is what a Resolver without its own
// RunKeyCmd uses.
func RunKeyCmd(ctx context.Context, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, keyCmdTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A background child keeping the pipes open must not block Wait.
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if msg := firstLine(stderr.String()); msg != "" {
			return "", fmt.Errorf("key command %q: %w: %s", command, err, msg)
		}
		return "", fmt.Errorf("key command %q: %w", command, err)
	}
	key := firstLine(stdout.String())
	if key == "" {
		return "", fmt.Errorf("key command %q: %w", command, errors.New("printed nothing"))
	}
	return key, nil
}

func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if t := strings.TrimSpace(line); t != "" {
			if len(t) > 300 {
				t = t[:300]
			}
			return t
		}
	}
	return ""
}
