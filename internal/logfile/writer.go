package logfile

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Writer appends whole lines to a log file and rotates it by size. See
// the package doc for how it shares the file with other processes.
type Writer struct {
	path     string
	maxSize  int64
	maxFiles int

	mu sync.Mutex
	f  *os.File
}

// NewWriter opens (creating it and its directory) the log file at path,
// to be rotated past maxSize bytes, keeping maxFiles rotated files.
func NewWriter(path string, maxSize int64, maxFiles int) (*Writer, error) {
	if maxSize < 1 || maxFiles < 1 {
		return nil, fmt.Errorf("log %s: size cap %d and rotated files %d must be at least 1", path, maxSize, maxFiles)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	w := &Writer{path: path, maxSize: maxSize, maxFiles: maxFiles}
	if err := w.reopen(); err != nil {
		return nil, err
	}
	return w, nil
}

// Write appends p, which should be one or more whole lines, with a
// single write, rotating first when p would take the file past the cap.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return 0, fmt.Errorf("log %s: closed", w.path)
	}
	st, err := w.followRotation()
	if err != nil {
		return 0, err
	}
	if st.Size() > 0 && st.Size()+int64(len(p)) > w.maxSize {
		if err := w.rotate(int64(len(p))); err != nil {
			return 0, err
		}
	}
	n, err := w.f.Write(p)
	if err != nil {
		return n, fmt.Errorf("log %s: %w", w.path, err)
	}
	return n, nil
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

func (w *Writer) reopen() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	if w.f != nil {
		w.f.Close()
	}
	w.f = f
	return nil
}

// followRotation reopens the path when the open file is no longer the
// one there (another process rotated it), and returns the open file's
// information, which Write reads the size from.
func (w *Writer) followRotation() (os.FileInfo, error) {
	cur, err := os.Stat(w.path)
	if err == nil {
		if mine, err := w.f.Stat(); err == nil && os.SameFile(cur, mine) {
			return mine, nil
		}
	}
	if err := w.reopen(); err != nil {
		return nil, err
	}
	st, err := w.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("log %s: %w", w.path, err)
	}
	return st, nil
}

// rotate shifts the files up under the lock, unless another process has
// already made room for the next write of n bytes.
func (w *Writer) rotate(n int64) error {
	unlock, err := lockFile(w.path + ".lock")
	if err != nil {
		return fmt.Errorf("log %s: rotation lock: %w", w.path, err)
	}
	defer unlock()
	if st, err := os.Stat(w.path); err == nil && (st.Size() == 0 || st.Size()+n <= w.maxSize) {
		return w.reopen()
	}
	os.Remove(rotated(w.path, w.maxFiles))
	for i := w.maxFiles - 1; i >= 1; i-- {
		if err := os.Rename(rotated(w.path, i), rotated(w.path, i+1)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("log rotation: %w", err)
		}
	}
	if err := os.Rename(w.path, rotated(w.path, 1)); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("log rotation: %w", err)
	}
	return w.reopen()
}

// rotated is the name of the i-th rotated file: hermes.log.1 is the
// newest.
func rotated(path string, i int) string { return fmt.Sprintf("%s.%d", path, i) }
