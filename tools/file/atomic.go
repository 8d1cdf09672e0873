package file

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/hermes-go/hermes/backend"
)

// writeVerified writes data to path atomically (a temporary file in the
// same directory renamed over the target), creating parent directories,
// keeping an existing file's mode, then reads the file back and compares.
// Only a nil error means the bytes are on disk at path.
//
// A symbolic link is written through (the link stays); a target that
// exists and is not a regular file (a device, a FIFO, a socket, a
// directory) is never replaced. The write guard sees the path and, for a
// link, the file it points to.
func (t *Tools) writeVerified(path string, data []byte) error {
	if t.opts.WriteGuard != nil {
		if err := t.opts.WriteGuard(path); err != nil {
			return fmt.Errorf("write to %s refused: %w", path, err)
		}
	}
	target, err := writeTarget(t.fs, path)
	if err != nil {
		return err
	}
	if target != path && t.opts.WriteGuard != nil {
		if err := t.opts.WriteGuard(target); err != nil {
			return fmt.Errorf("write to %s (the file %s links to) refused: %w", target, path, err)
		}
	}
	path = target
	mode := fs.FileMode(0o644)
	if st, err := t.fs.Lstat(path); err == nil {
		mode = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := t.fs.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	tmp, err := t.fs.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary file in %s: %w", dir, err)
	}
	tmpName := tmp.Name()
	defer t.fs.Remove(tmpName) // no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmpName, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("sync %s: %w", tmpName, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmpName, err)
	}
	if err := t.fs.Chmod(tmpName, mode); err != nil {
		return fmt.Errorf("chmod %s: %w", tmpName, err)
	}
	if err := t.fs.Rename(tmpName, path); err != nil {
		return fmt.Errorf("rename into %s: %w", path, err)
	}
	return verify(t.fs, path, data)
}

// verify re-reads path and checks it holds exactly data.
func verify(fsys backend.FS, path string, data []byte) error {
	got, err := readRegular(fsys, path, 0)
	if err != nil {
		return fmt.Errorf("verify %s: read back: %w", path, err)
	}
	if !bytes.Equal(got, data) {
		return fmt.Errorf("verify %s: file holds %d bytes after the write, expected %d: the write did not take effect", path, len(got), len(data))
	}
	return nil
}

// guardRead asks the read guard about path.
func (t *Tools) guardRead(path string) error {
	if t.opts.ReadGuard == nil {
		return nil
	}
	return t.opts.ReadGuard(path)
}

// guardWrite asks the write guard about path, before anything is written.
func (t *Tools) guardWrite(path string) error {
	if t.opts.WriteGuard == nil {
		return nil
	}
	if err := t.opts.WriteGuard(path); err != nil {
		return fmt.Errorf("write to %s refused: %w", path, err)
	}
	return nil
}

// removeVerified deletes path and checks it is gone.
func (t *Tools) removeVerified(path string) error {
	if t.opts.WriteGuard != nil {
		if err := t.opts.WriteGuard(path); err != nil {
			return fmt.Errorf("delete of %s refused: %w", path, err)
		}
	}
	if err := t.fs.Remove(path); err != nil {
		return fmt.Errorf("delete %s: %w", path, err)
	}
	if _, err := t.fs.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("verify delete %s: file still exists", path)
	}
	return nil
}

// readText loads a file for editing, refusing directories, binary files and
// files over the size cap.
func (t *Tools) readText(path string) ([]byte, error) {
	if err := t.guardRead(path); err != nil {
		return nil, err
	}
	b, err := readRegular(t.fs, path, t.opts.MaxFileSize)
	if err != nil {
		return nil, err
	}
	if isBinary(b) {
		return nil, fmt.Errorf("%s is a binary file", path)
	}
	return b, nil
}

// isBinary uses git's and grep's rule: a NUL byte in the first 8000 bytes.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}
