package ssh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/hermes-go/hermes/backend"
	"github.com/pkg/sftp"
)

// sftpFS is the remote host's file system, over SFTP on the backend's
// connection: the file tools never go through a shell command.
type sftpFS struct{ b *Backend }

var _ backend.FS = sftpFS{}

// do runs f with the SFTP client, once more on a new connection when the
// connection turns out to have dropped.
func (s sftpFS) do(f func(*sftp.Client) error) error {
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var cn *conn
		if cn, err = s.b.connect(context.Background()); err != nil {
			return err
		}
		var sc *sftp.Client
		if sc, err = cn.files(); err != nil {
			s.b.drop(cn)
			continue
		}
		if err = f(sc); err == nil || !lost(err) || cn.alive() && attempt > 0 {
			return err
		}
		s.b.drop(cn)
	}
	return err
}

func pathErr(op, p string, err error) error {
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

func (s sftpFS) Stat(p string) (fi fs.FileInfo, err error) {
	err = s.do(func(c *sftp.Client) (e error) { fi, e = c.Stat(p); return })
	return fi, pathErr("stat", p, err)
}

func (s sftpFS) Lstat(p string) (fi fs.FileInfo, err error) {
	err = s.do(func(c *sftp.Client) (e error) { fi, e = c.Lstat(p); return })
	return fi, pathErr("lstat", p, err)
}

// Open opens p for reading. The file tools stat it first and open only
// regular files, so a FIFO does not block the server.
func (s sftpFS) Open(p string) (backend.File, error) {
	var f *sftp.File
	err := s.do(func(c *sftp.Client) (e error) { f, e = c.Open(p); return })
	if err != nil {
		return nil, pathErr("open", p, err)
	}
	return f, nil
}

func (s sftpFS) ReadDir(p string) ([]fs.DirEntry, error) {
	var infos []os.FileInfo
	err := s.do(func(c *sftp.Client) (e error) { infos, e = c.ReadDir(p); return })
	out := make([]fs.DirEntry, len(infos))
	for i, fi := range infos {
		out[i] = fs.FileInfoToDirEntry(fi)
	}
	return out, pathErr("readdir", p, err)
}

// EvalSymlinks resolves the links in p component by component, as
// filepath.EvalSymlinks does (an SFTP server's realpath need not follow
// links); p must exist.
func (s sftpFS) EvalSymlinks(p string) (string, error) {
	p = path.Clean(p)
	if !path.IsAbs(p) {
		return "", &fs.PathError{Op: "evalsymlinks", Path: p, Err: errors.New("not an absolute path")}
	}
	resolved := "/"
	rest := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for links := 0; len(rest) > 0; {
		part := rest[0]
		rest = rest[1:]
		if part == "" || part == "." {
			continue
		}
		if part == ".." {
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, part)
		fi, err := s.Lstat(next)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > 40 {
			return "", &fs.PathError{Op: "evalsymlinks", Path: p, Err: errors.New("too many links")}
		}
		var target string
		if err := s.do(func(c *sftp.Client) (e error) { target, e = c.ReadLink(next); return }); err != nil {
			return "", pathErr("readlink", next, err)
		}
		if path.IsAbs(target) {
			resolved = "/"
		}
		rest = append(strings.Split(strings.Trim(target, "/"), "/"), rest...)
	}
	return resolved, nil
}

func (s sftpFS) MkdirAll(p string, _ fs.FileMode) error {
	return pathErr("mkdir", p, s.do(func(c *sftp.Client) error { return c.MkdirAll(p) }))
}

// CreateTemp creates a new file, mode 0600, named after pattern (its
// last "*" replaced by a random string) in dir.
func (s sftpFS) CreateTemp(dir, pattern string) (backend.TempFile, error) {
	var rnd [8]byte
	rand.Read(rnd[:])
	name := pattern + hex.EncodeToString(rnd[:])
	if i := strings.LastIndex(pattern, "*"); i >= 0 {
		name = pattern[:i] + hex.EncodeToString(rnd[:]) + pattern[i+1:]
	}
	p := path.Join(dir, name)
	var f *sftp.File
	err := s.do(func(c *sftp.Client) (e error) {
		if f, e = c.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL); e == nil {
			e = f.Chmod(0o600)
		}
		return
	})
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, pathErr("create", p, err)
	}
	return tempFile{f}, nil
}

// tempFile is an SFTP file being written; Sync is fsync where the server
// offers it (fsync@openssh.com) and a no-op where it does not.
type tempFile struct{ *sftp.File }

func (t tempFile) Sync() error {
	err := t.File.Sync()
	var se *sftp.StatusError
	if errors.Is(err, sftp.ErrSSHFxOpUnsupported) || errors.As(err, &se) && se.FxCode() == sftp.ErrSSHFxOpUnsupported {
		return nil
	}
	return err
}

func (s sftpFS) Chmod(p string, mode fs.FileMode) error {
	return pathErr("chmod", p, s.do(func(c *sftp.Client) error { return c.Chmod(p, mode) }))
}

// Rename replaces newpath atomically (posix-rename@openssh.com).
func (s sftpFS) Rename(oldpath, newpath string) error {
	return pathErr("rename", newpath, s.do(func(c *sftp.Client) error { return c.PosixRename(oldpath, newpath) }))
}

func (s sftpFS) Remove(p string) error {
	return pathErr("remove", p, s.do(func(c *sftp.Client) error { return c.Remove(p) }))
}

// Home is the remote home directory ("" until connected).
func (s sftpFS) Home() string {
	if _, err := s.b.connect(context.Background()); err != nil {
		return ""
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return s.b.home
}
