package terminal

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/tool"
)

func (t *Terminal) resolveDir(task, workdir string) (string, error) {
	cur := t.dirs.get(task)
	if workdir == "" {
		return cur, nil
	}
	if !filepath.IsAbs(workdir) {
		workdir = filepath.Join(cur, workdir)
	}
	st, err := t.be.FS().Stat(workdir)
	if err != nil {
		return "", fmt.Errorf("workdir %s: %w", workdir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("workdir %s is not a directory", workdir)
	}
	return filepath.Clean(workdir), nil
}

// notice is, for the first command only, the backend's notice (the
// sandbox is not enforced or only partly); "" otherwise.
func (t *Terminal) notice() string {
	var note string
	t.noteOnce.Do(func() { note = t.be.Notice() })
	return note
}

func (t *Terminal) runForeground(ctx context.Context, session, task, command, dir string, timeout time.Duration) tool.Result {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stdout, stderr := newHeadTail(t.opts.MaxOutput), newHeadTail(t.opts.MaxOutput)
	exit, err := t.be.Run(runCtx, backend.Command{Line: command, Dir: dir, Session: session, Task: task, Stdout: stdout, Stderr: stderr})
	if err != nil {
		return tool.Error("terminal: " + err.Error())
	}

	note := exit.Note
	switch {
	case ctx.Err() != nil:
		note = "cancelled: the command and its child processes were killed"
	case runCtx.Err() != nil:
		note = fmt.Sprintf("timed out after %s: the command and its child processes were killed; pass a larger timeout or use background: true", timeout)
	}
	if final := exit.Dir; final != "" && final != dir {
		t.dirs.set(task, final)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "exit code: %d\n", exit.Code)
	if note != "" {
		fmt.Fprintf(&b, "note: %s\n", note)
	}
	if sn := t.notice(); sn != "" {
		fmt.Fprintf(&b, "note: %s\n", sn)
	}
	fmt.Fprintf(&b, "cwd: %s\n", t.dirs.get(task))
	writeStream(&b, "stdout", stdout)
	writeStream(&b, "stderr", stderr)
	res := tool.Result{Content: t.opts.Redact(b.String())}
	// A command that ran and exited non-zero is an answer, not a tool
	// failure; a command that could not finish is.
	res.IsError = runCtx.Err() != nil
	return res
}

func writeStream(b *strings.Builder, name string, h *headTail) {
	if h.total == 0 {
		fmt.Fprintf(b, "%s: (empty)\n", name)
		return
	}
	s := h.String()
	fmt.Fprintf(b, "--- %s ---\n%s", name, s)
	if !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}
