package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/checkpoint"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tools/file"
)

// maxDiffFile is the most of one file WorkspaceDiff reads to compare.
const maxDiffFile = 1 << 20

// WorkspaceDiff is what changed in a conversation's workspace since its
// session began (/diff).
type WorkspaceDiff struct {
	// Since says what the workspace was compared with: a checkpoint, git's
	// HEAD, or nothing ("" with no Text).
	Since string
	// Changes are the files that differ (from a checkpoint; nil from git).
	Changes []checkpoint.Change
	// Text is the unified diff, cut to the limit asked for.
	Text string
	// Cut says Text was cut.
	Cut bool
}

// WorkspaceDiff compares the workspace with how it was when the session
// began: with the first checkpoint taken since then (the state before the
// agent's first change), or, when there is none and the workspace is a
// git repository, with git's HEAD. Text holds at most limit bytes of the
// diff (whole lines). A session continued after a compression began when
// the session it continues began.
func (c *Conversation) WorkspaceDiff(ctx context.Context, limit int) (WorkspaceDiff, error) {
	began, err := c.sessionBegan(ctx)
	if err != nil {
		return WorkspaceDiff{}, err
	}
	if st := c.Checkpoints(); st != nil {
		cp, ok, err := firstSince(st, began)
		if err != nil {
			return WorkspaceDiff{}, fmt.Errorf("diff: %w", err)
		}
		if ok {
			return checkpointDiff(ctx, st, cp, limit)
		}
	}
	return gitDiff(ctx, c.Workdir(), limit)
}

// sessionBegan is when the conversation's session started, following
// compressions back to the session they continue; now for a session not
// stored yet.
func (c *Conversation) sessionBegan(ctx context.Context) (time.Time, error) {
	st := c.rt.store
	s, err := st.Get(ctx, c.SessionID())
	if errors.Is(err, session.ErrNotFound) {
		return c.rt.opts.Now(), nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("diff: %w", err)
	}
	for range 100 { // a chain of compressions, bounded
		if s.ParentID == "" {
			break
		}
		p, err := st.Get(ctx, s.ParentID)
		if err != nil || p.EndReason != "compression" {
			break
		}
		s = p
	}
	return s.StartedAt, nil
}

// firstSince is the oldest checkpoint taken at or after t.
func firstSince(st *checkpoint.Store, t time.Time) (checkpoint.Checkpoint, bool, error) {
	list, err := st.List() // newest first
	if err != nil {
		return checkpoint.Checkpoint{}, false, err
	}
	for i := len(list) - 1; i >= 0; i-- {
		if !list[i].Time.Before(t) {
			return list[i], true, nil
		}
	}
	return checkpoint.Checkpoint{}, false, nil
}

func checkpointDiff(ctx context.Context, st *checkpoint.Store, cp checkpoint.Checkpoint, limit int) (WorkspaceDiff, error) {
	changes, err := st.Diff(ctx, cp.ID)
	if err != nil {
		return WorkspaceDiff{}, fmt.Errorf("diff: %w", err)
	}
	d := WorkspaceDiff{Since: fmt.Sprintf("checkpoint %s (%s, %s)", short(cp.ID), cp.Time.Local().Format("15:04:05"), cp.Reason), Changes: changes}
	var b strings.Builder
	for _, ch := range changes {
		var old, cur []byte
		var oldErr, curErr error
		if ch.Kind != checkpoint.Added {
			old, oldErr = st.ReadFile(cp.ID, ch.Path, maxDiffFile+1)
		}
		if ch.Kind != checkpoint.Deleted {
			cur, curErr = readCapped(filepath.Join(st.Workspace(), filepath.FromSlash(ch.Path)), maxDiffFile+1)
		}
		switch {
		case oldErr != nil || curErr != nil:
			fmt.Fprintf(&b, "%s %s (not shown: %v)\n", ch.Kind, ch.Path, errors.Join(oldErr, curErr))
		case len(old) > maxDiffFile || len(cur) > maxDiffFile:
			fmt.Fprintf(&b, "%s %s (over %d KB, not shown)\n", ch.Kind, ch.Path, maxDiffFile>>10)
		case bytes.IndexByte(old, 0) >= 0 || bytes.IndexByte(cur, 0) >= 0:
			fmt.Fprintf(&b, "%s %s (binary)\n", ch.Kind, ch.Path)
		default:
			text := file.UnifiedDiff(ch.Path, string(old), string(cur))
			if ch.Kind == checkpoint.Added {
				text = strings.Replace(text, "--- a/"+ch.Path, "--- /dev/null", 1)
			} else if ch.Kind == checkpoint.Deleted {
				text = strings.Replace(text, "+++ b/"+ch.Path, "+++ /dev/null", 1)
			}
			if text == "" { // the mode changed, not the content
				text = fmt.Sprintf("%s %s (mode or link)\n", ch.Kind, ch.Path)
			}
			b.WriteString(text)
			if !strings.HasSuffix(text, "\n") {
				b.WriteString("\n")
			}
		}
	}
	d.Text, d.Cut = cutLines(b.String(), limit)
	return d, nil
}

func readCapped(path string, n int64) ([]byte, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		return []byte("-> " + target), err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// gitDiff is the workspace against git's HEAD, with the files git does
// not track listed; nothing when dir is not in a git repository or git is
// not installed.
func gitDiff(ctx context.Context, dir string, limit int) (WorkspaceDiff, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return WorkspaceDiff{}, nil
	}
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, git, append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_PAGER=cat", "GIT_OPTIONAL_LOCKS=0")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(errb.String()))
		}
		return out.String(), nil
	}
	if inside, err := run("rev-parse", "--is-inside-work-tree"); err != nil || strings.TrimSpace(inside) != "true" {
		return WorkspaceDiff{}, nil
	}
	text, err := run("diff", "--no-color", "--no-ext-diff", "HEAD", "--", ".")
	if err != nil {
		// A repository without a commit yet has no HEAD to compare with.
		if text, err = run("diff", "--no-color", "--no-ext-diff", "--", "."); err != nil {
			return WorkspaceDiff{}, fmt.Errorf("diff: %w", err)
		}
	}
	untracked, err := run("ls-files", "--others", "--exclude-standard", "--", ".")
	if err != nil {
		return WorkspaceDiff{}, fmt.Errorf("diff: %w", err)
	}
	for _, f := range strings.Fields(untracked) {
		text += "untracked " + f + "\n"
	}
	d := WorkspaceDiff{Since: "git HEAD (no checkpoint was taken since this session began)"}
	d.Text, d.Cut = cutLines(text, limit)
	return d, nil
}

// cutLines cuts s to at most limit bytes of whole lines (0: no limit).
func cutLines(s string, limit int) (string, bool) {
	if limit <= 0 || len(s) <= limit {
		return s, false
	}
	s = s[:limit]
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i+1]
	}
	return s, true
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
