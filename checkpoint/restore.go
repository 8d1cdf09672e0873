package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ChangeKind is how a file differs from a checkpoint.
type ChangeKind string

// Change kinds, from the checkpoint to the workspace as it is now.
const (
	Added    ChangeKind = "added"    // in the workspace, not in the checkpoint
	Modified ChangeKind = "modified" // content, mode or symlink target differ
	Deleted  ChangeKind = "deleted"  // in the checkpoint, gone from the workspace
)

// Change is one file that differs from a checkpoint.
type Change struct {
	Path string     `json:"path"`
	Kind ChangeKind `json:"kind"`
}

// Diff lists what changed in the workspace since the checkpoint id (or a
// unique prefix of it), sorted by path. Ignored files are not compared.
func (s *Store) Diff(ctx context.Context, id string) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.find(id)
	if err != nil {
		return nil, err
	}
	prev, err := s.newest()
	if err != nil {
		return nil, err
	}
	cur, err := s.scan(ctx, prev, false)
	if err != nil {
		return nil, err
	}
	return diff(m.entries, cur), nil
}

// diff compares two sorted entry lists.
func diff(old, cur []entry) []Change {
	var out []Change
	i, j := 0, 0
	for i < len(old) || j < len(cur) {
		switch {
		case j == len(cur) || i < len(old) && old[i].Path < cur[j].Path:
			out = append(out, Change{Path: old[i].Path, Kind: Deleted})
			i++
		case i == len(old) || cur[j].Path < old[i].Path:
			out = append(out, Change{Path: cur[j].Path, Kind: Added})
			j++
		default:
			if !old[i].same(cur[j]) {
				out = append(out, Change{Path: old[i].Path, Kind: Modified})
			}
			i++
			j++
		}
	}
	return out
}

// Restore puts the workspace back as the checkpoint id (or a unique
// prefix of it) saw it: changed files get their content and mode back,
// deleted ones are recreated and files created since are removed.
// Ignored files are left alone. It first checkpoints the current state
// (reason "before restore of <id>") and returns that checkpoint, so the
// restore can be undone by restoring it.
func (s *Store) Restore(ctx context.Context, id string) (Checkpoint, []Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	target, err := s.find(id)
	if err != nil {
		return Checkpoint{}, nil, err
	}
	before, err := s.snapshot(ctx, "before restore of "+target.ID, target.Turn)
	if err != nil {
		return Checkpoint{}, nil, fmt.Errorf("checkpoint of the current state before the restore: %w", err)
	}
	cur := s.last.entries
	changes := diff(target.entries, cur)
	want := make(map[string]entry, len(target.entries))
	for _, e := range target.entries {
		want[e.Path] = e
	}
	// Removals first, deepest first, so a file may take a directory's
	// place and the other way round.
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		if c.Kind != Added {
			continue
		}
		if err := os.Remove(s.abs(c.Path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return before, nil, fmt.Errorf("checkpoint: restore: %w", err)
		}
		s.pruneDirs(filepath.Dir(s.abs(c.Path)))
	}
	for _, c := range changes {
		if c.Kind == Added {
			continue
		}
		if err := ctx.Err(); err != nil {
			return before, nil, err
		}
		if err := s.put(want[c.Path]); err != nil {
			return before, nil, fmt.Errorf("checkpoint: restore %s: %w", c.Path, err)
		}
	}
	return before, changes, nil
}

func (s *Store) abs(rel string) string { return filepath.Join(s.workspace, filepath.FromSlash(rel)) }

// pruneDirs removes dir and its parents up to the workspace while they
// are empty (a directory holding ignored files stays).
func (s *Store) pruneDirs(dir string) {
	for dir != s.workspace && strings.HasPrefix(dir, s.workspace+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// put writes one entry into the workspace: the blob's bytes with the
// entry's mode, or the symlink, replacing what is there.
func (s *Store) put(e entry) error {
	dst := s.abs(e.Path)
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if fi, err := os.Lstat(dst); err == nil && fi.IsDir() {
		if err := os.Remove(dst); err != nil {
			return fmt.Errorf("a directory is in the way: %w", err)
		}
	}
	if e.Link != "" {
		if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return os.Symlink(e.Link, dst)
	}
	src, err := s.openBlob(e.Hash)
	if err != nil {
		return fmt.Errorf("blob %s: %w", e.Hash, err)
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, ".hermes-restore-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = io.Copy(tmp, src)
	err = errors.Join(err, tmp.Chmod(fs.FileMode(e.Mode)), tmp.Close())
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}
