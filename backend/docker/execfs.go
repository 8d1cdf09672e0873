package docker

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/backend"
)

// fsTimeout bounds one file operation in the container.
const fsTimeout = 2 * time.Minute

// execFS is the container's file system outside the workspace, through
// docker exec of the image's own tools (stat, cat, mkdir, mv, rm,
// chmod). Paths travel as arguments of fixed scripts, never inside a
// shell command line, so no file name can inject a command.
//
// backend.FS carries no session: where several conversations share the
// workspace, paths outside it are those of the container of the
// conversation that ran a command, or opened, last (UseSession).
type execFS struct{ b *Backend }

// execIn runs argv in the session's container with stdin and returns its
// stdout; a failure's error carries the tool's message, and satisfies
// fs.ErrNotExist when it says the file is missing.
func (e execFS) execIn(stdin io.Reader, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), fsTimeout)
	defer cancel()
	ct, err := e.b.container(ctx, e.b.lastSession())
	if err != nil {
		return nil, err
	}
	args := []string{"exec"}
	if stdin != nil {
		args = append(args, "-i")
	}
	if e.b.opts.User != "" {
		args = append(args, "--user", e.b.opts.User)
	}
	out, err := e.b.cli.run(ctx, stdin, append(append(args, ct.id), argv...)...)
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "No such file or directory") || strings.Contains(msg, "can't stat") || strings.Contains(msg, "cannot stat") {
			return nil, fmt.Errorf("%w: %s", fs.ErrNotExist, msg)
		}
		if strings.Contains(msg, "File exists") || strings.Contains(msg, "cannot overwrite existing file") {
			return nil, fmt.Errorf("%w: %s", fs.ErrExist, msg)
		}
		return nil, err
	}
	return out, nil
}

// statFormat prints raw mode (hex), size, mtime and name; the name last,
// so that spaces in it survive.
const statFormat = "%f %s %Y %n"

func (e execFS) Stat(p string) (fs.FileInfo, error) {
	out, err := e.execIn(nil, "stat", "-L", "-c", statFormat, "--", p)
	if err != nil {
		return nil, pathErr("stat", p, err)
	}
	return parseStat(strings.TrimSuffix(string(out), "\n"))
}

func (e execFS) Lstat(p string) (fs.FileInfo, error) {
	out, err := e.execIn(nil, "stat", "-c", statFormat, "--", p)
	if err != nil {
		return nil, pathErr("lstat", p, err)
	}
	return parseStat(strings.TrimSuffix(string(out), "\n"))
}

// Open reads the whole file (the file tools cap sizes by Stat first); a
// FIFO or device is refused rather than read, so it never blocks.
func (e execFS) Open(p string) (backend.File, error) {
	st, err := e.Stat(p)
	if err != nil {
		return nil, err
	}
	f := &memFile{info: st}
	if st.Mode().IsRegular() {
		b, err := e.execIn(nil, "cat", "--", p)
		if err != nil {
			return nil, pathErr("open", p, err)
		}
		f.r = bytes.NewReader(b)
	} else {
		f.r = bytes.NewReader(nil)
	}
	return f, nil
}

// readDirScript lists $1's entries, hidden ones too, one stat line each.
const readDirScript = `for f in "$1"/* "$1"/.[!.]* "$1"/..?*; do
[ -e "$f" ] || [ -L "$f" ] || continue; stat -c '` + statFormat + `' -- "$f"; done`

func (e execFS) ReadDir(p string) ([]fs.DirEntry, error) {
	if st, err := e.Stat(p); err != nil {
		return nil, err
	} else if !st.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: errors.New("not a directory")}
	}
	out, err := e.execIn(nil, "sh", "-c", readDirScript, "sh", p)
	if err != nil {
		return nil, pathErr("readdir", p, err)
	}
	var ents []fs.DirEntry
	for _, line := range strings.Split(string(out), "\n") {
		if fi, err := parseStat(line); err == nil {
			ents = append(ents, fs.FileInfoToDirEntry(fi))
		}
	}
	return ents, nil
}

func (e execFS) EvalSymlinks(p string) (string, error) {
	if _, err := e.Lstat(p); err != nil {
		return "", err
	}
	out, err := e.execIn(nil, "readlink", "-f", "--", p)
	if err != nil {
		return "", pathErr("evalsymlinks", p, err)
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

func (e execFS) MkdirAll(p string, perm fs.FileMode) error {
	_, err := e.execIn(nil, "mkdir", "-p", "-m", strconv.FormatUint(uint64(perm.Perm()), 8), "--", p)
	return pathErr("mkdir", p, err)
}

// writeScript writes stdin to $1, which must not exist yet.
const writeScript = `set -C; cat > "$1"`

// CreateTemp returns a file kept in memory and written to the container
// when closed, under a name that did not exist (noclobber).
func (e execFS) CreateTemp(dir, pattern string) (backend.TempFile, error) {
	var r [6]byte
	rand.Read(r[:])
	name := strings.Replace(pattern, "*", hex.EncodeToString(r[:]), 1)
	if !strings.Contains(pattern, "*") {
		name = pattern + hex.EncodeToString(r[:])
	}
	t := &tempFile{fs: e, name: path.Join(dir, name)}
	// Claimed now, as os.CreateTemp does, so that a missing directory
	// fails here and not at Close.
	if _, err := e.execIn(bytes.NewReader(nil), "sh", "-c", writeScript, "sh", t.name); err != nil {
		return nil, pathErr("createtemp", t.name, err)
	}
	return t, nil
}

func (e execFS) Chmod(p string, mode fs.FileMode) error {
	_, err := e.execIn(nil, "chmod", strconv.FormatUint(uint64(mode.Perm()), 8), "--", p)
	return pathErr("chmod", p, err)
}

func (e execFS) Rename(oldpath, newpath string) error {
	_, err := e.execIn(nil, "mv", "-f", "--", oldpath, newpath)
	return pathErr("rename", oldpath, err)
}

// removeScript removes $1 as os.Remove does: a file, or an empty directory.
const removeScript = `if [ -d "$1" ] && [ ! -L "$1" ]; then rmdir -- "$1"; else rm -- "$1"; fi`

func (e execFS) Remove(p string) error {
	_, err := e.execIn(nil, "sh", "-c", removeScript, "sh", p)
	return pathErr("remove", p, err)
}

func (e execFS) Home() string {
	ctx, cancel := context.WithTimeout(context.Background(), fsTimeout)
	defer cancel()
	ct, err := e.b.container(ctx, e.b.lastSession())
	if err != nil {
		return ""
	}
	return ct.home
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

// tempFile collects what is written and puts it in the container on
// Close: the claimed empty file is replaced.
type tempFile struct {
	fs     execFS
	name   string
	buf    bytes.Buffer
	closed bool
}

func (t *tempFile) Write(p []byte) (int, error) { return t.buf.Write(p) }
func (t *tempFile) Name() string                { return t.name }
func (t *tempFile) Sync() error                 { return nil }

// tmpWriteScript writes stdin to $1 through a sibling and renames it over.
const tmpWriteScript = `cat > "$1.part" && mv -f -- "$1.part" "$1"`

func (t *tempFile) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	_, err := t.fs.execIn(bytes.NewReader(t.buf.Bytes()), "sh", "-c", tmpWriteScript, "sh", t.name)
	return pathErr("write", t.name, err)
}

// memFile is a file read from the container.
type memFile struct {
	r    *bytes.Reader
	info fs.FileInfo
}

func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }

// fileInfo is a stat line's file.
type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return i.mode }
func (i fileInfo) ModTime() time.Time { return i.mod }
func (i fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fileInfo) Sys() any           { return nil }

// parseStat reads a statFormat line.
func parseStat(line string) (fs.FileInfo, error) {
	f := strings.SplitN(line, " ", 4)
	if len(f) != 4 {
		return nil, fmt.Errorf("unexpected stat output %q", line)
	}
	raw, err1 := strconv.ParseUint(f[0], 16, 32)
	size, err2 := strconv.ParseInt(f[1], 10, 64)
	mtime, err3 := strconv.ParseInt(f[2], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, fmt.Errorf("unexpected stat output %q: %w", line, err)
	}
	return fileInfo{name: path.Base(f[3]), size: size, mode: unixMode(uint32(raw)), mod: time.Unix(mtime, 0)}, nil
}

// unixMode converts st_mode to an fs.FileMode.
func unixMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & 0o170000 {
	case 0o040000:
		mode |= fs.ModeDir
	case 0o120000:
		mode |= fs.ModeSymlink
	case 0o010000:
		mode |= fs.ModeNamedPipe
	case 0o140000:
		mode |= fs.ModeSocket
	case 0o020000:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case 0o060000:
		mode |= fs.ModeDevice
	}
	if m&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
