package file

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/hermes-go/hermes/backend"
)

// Only regular files are read or written. A FIFO blocks a reader until a
// writer comes (for ever, in a tool call), a device such as /dev/zero
// never ends, and an atomic write would replace a device or a socket by a
// regular file. So device nodes, FIFOs and sockets are refused, with a
// result that says what the path is.

// kindOf names what a non-regular file is.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// notRegular is the error for a path that exists but is no regular file.
func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s; only regular files can be read or written", path, kindOf(m))
}

// openRegular opens path for reading only when it is a regular file. The
// open does not block on a FIFO (O_NONBLOCK), and the check is made again
// on the opened file, so a path swapped after the stat is still caught.
func openRegular(fsys backend.FS, path string) (backend.File, fs.FileInfo, error) {
	// A socket cannot even be opened: name what it is first.
	if st, err := fsys.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, st, notRegular(path, st.Mode())
	}
	f, err := fsys.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, st, notRegular(path, st.Mode())
	}
	return f, st, nil
}

// readRegular reads a whole regular file, at most limit bytes (limit <= 0:
// no limit); a larger file is an error.
func readRegular(fsys backend.FS, path string, limit int64) ([]byte, error) {
	f, st, err := openRegular(fsys, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if limit <= 0 {
		return io.ReadAll(f)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit", path, st.Size(), limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("%s grew past the %d-byte limit while it was read", path, limit)
	}
	return b, err
}

// writeTarget is where a write to path lands: the file a symbolic link
// points to (the link is kept, as editors keep it), or path itself. It
// refuses a target that exists and is not a regular file.
func writeTarget(fsys backend.FS, path string) (string, error) {
	target := path
	if resolved, err := fsys.EvalSymlinks(path); err == nil {
		target = resolved
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	st, err := fsys.Lstat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, nil
	case err != nil:
		return "", err
	case !st.Mode().IsRegular():
		return "", notRegular(path, st.Mode())
	}
	return target, nil
}
