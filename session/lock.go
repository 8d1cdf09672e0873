package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// BusyError is Acquire's answer when another writer holds the session.
// errors.Is(err, ErrBusy) holds for it.
type BusyError struct {
	ID string
	// PID is the holding process; 0 when it could not be read (the holder
	// was just taking the lock).
	PID int
	// Since is when the holder took the lock; zero when unknown.
	Since time.Time
}

func (e *BusyError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = "process " + strconv.Itoa(e.PID)
	}
	if !e.Since.IsZero() {
		who += " since " + e.Since.Local().Format("2006-01-02 15:04:05")
	}
	return fmt.Sprintf("session %s is in use by %s; wait for it to finish, or start a new session", e.ID, who)
}

// Is makes errors.Is(err, ErrBusy) hold.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// maxLockAttempts bounds how often Acquire retries when holders remove
// lock files under it.
const maxLockAttempts = 8

// Acquire makes this process the one writer of session id until release
// is called, so that two processes (or two runtimes in one process)
// resuming a session never interleave their messages. A session another
// writer holds is refused at once with a *BusyError naming the holder.
// The session need not exist yet: a new one is acquired before its first
// write.
//
// On Linux the lock is a byte of sessions/locks (lock_ofd_linux.go).
// Elsewhere, and where the file system lacks such locks, it is an
// advisory lock (flock) on sessions/<id>.lock beside the database file,
// which records the holder's pid, and release removes the file. Either
// way the kernel drops the lock when the holder's process ends, however
// it ends, so a killed process never blocks a session. release is safe
// to call more than once, before or after Close.
func (s *Store) Acquire(ctx context.Context, id string) (release func() error, err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("session: acquire %s: %w", id, err)
	}
	if id == "" {
		return nil, errors.New("session: acquire: empty session id")
	}
	if release, ok, err := s.acquireOFD(id); ok {
		return release, err
	}
	dir := filepath.Join(filepath.Dir(s.path), "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("session: acquire %s: %w", id, readOnlyErr(err))
	}
	path := filepath.Join(dir, lockName(id))
	for range maxLockAttempts {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("session: acquire %s: %w", id, readOnlyErr(err))
		}
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("session: acquire %s: lock %s: %w", id, path, err)
		}
		if !ok {
			busy := readHolder(f, id)
			f.Close()
			return nil, busy
		}
		// A holder releasing meanwhile removed the file it had locked; only
		// a lock on the file the path names now counts.
		if !namesFile(path, f) {
			f.Close()
			continue
		}
		if err := writeHolder(f, s.now()); err != nil {
			f.Close()
			return nil, fmt.Errorf("session: acquire %s: %w", id, err)
		}
		return releaser(f, path), nil
	}
	return nil, fmt.Errorf("session: acquire %s: %s keeps being replaced", id, path)
}

func releaser(f *os.File, path string) func() error {
	var (
		once sync.Once
		err  error
	)
	return func() error {
		once.Do(func() {
			// Removed while still locked: a process that opens the path
			// later creates a new file, and one that opened this file
			// meanwhile sees it is gone.
			rerr := os.Remove(path)
			if errors.Is(rerr, fs.ErrNotExist) {
				rerr = nil
			}
			err = errors.Join(rerr, f.Close())
			if err != nil {
				err = fmt.Errorf("session: release %s: %w", path, err)
			}
		})
		return err
	}
}

// namesFile reports whether path still names the open file f.
func namesFile(path string, f *os.File) bool {
	a, err := os.Stat(path)
	if err != nil {
		return false
	}
	b, err := f.Stat()
	return err == nil && os.SameFile(a, b)
}

// writeHolder records this process in the lock file: "pid unix-nanos".
func writeHolder(f *os.File, now time.Time) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(fmt.Sprintf("%d %d\n", os.Getpid(), now.UnixNano())), 0)
	return err
}

// readHolder reads who holds a lock file into a BusyError.
func readHolder(f *os.File, id string) *BusyError {
	e := &BusyError{ID: id}
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 64))
	if err != nil {
		return e
	}
	fields := strings.Fields(string(b))
	if len(fields) >= 1 {
		e.PID, _ = strconv.Atoi(fields[0])
	}
	if len(fields) >= 2 {
		if n, err := strconv.ParseInt(fields[1], 10, 64); err == nil && n > 0 {
			e.Since = time.Unix(0, n)
		}
	}
	return e
}

// lockName is the lock file's name for a session id: letters, digits,
// '-', '_' and inner dots are kept, other bytes are escaped as %XX, so
// any id makes one plain file name.
func lockName(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.' && i > 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String() + ".lock"
}
