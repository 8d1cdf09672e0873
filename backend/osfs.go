package backend

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// OSFS is this machine's file system.
type OSFS struct{}

func (OSFS) Stat(path string) (fs.FileInfo, error)  { return os.Stat(path) }
func (OSFS) Lstat(path string) (fs.FileInfo, error) { return os.Lstat(path) }

// Open opens path read-only without blocking on a FIFO (O_NONBLOCK).
func (OSFS) Open(path string) (File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err // a nil *os.File must not become a non-nil File
	}
	return f, nil
}

func (OSFS) EvalSymlinks(path string) (string, error)     { return filepath.EvalSymlinks(path) }
func (OSFS) MkdirAll(path string, perm fs.FileMode) error { return os.MkdirAll(path, perm) }
func (OSFS) Chmod(path string, mode fs.FileMode) error    { return os.Chmod(path, mode) }
func (OSFS) Rename(oldpath, newpath string) error         { return os.Rename(oldpath, newpath) }
func (OSFS) Remove(path string) error                     { return os.Remove(path) }

// ReadDir lists path in directory order, unsorted (a search lists many
// directories and needs no order).
func (OSFS) ReadDir(path string) ([]fs.DirEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (OSFS) CreateTemp(dir, pattern string) (TempFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (OSFS) Home() string {
	h, _ := os.UserHomeDir()
	return h
}
