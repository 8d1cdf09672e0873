//go:build linux

package session

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// On Linux a session lock is an open-file-description lock (F_OFD_SETLK)
// on one byte of sessions/locks, the byte the session id hashes to: no
// file is created or removed per session, and taking or dropping a lock
// is one system call. OFD locks belong to the open file, like flock, so
// two Stores in one process exclude each other, and the kernel drops them
// when the holder's process ends. The holder writes "pid unix-nanos hash"
// into a 64-byte record the hash also picks, so that a refused writer can
// name it; two live sessions may share a record (4,096 of them), and a
// record whose hash is not the session's names nobody.
const (
	fOFDSetlk   = 37 // F_OFD_SETLK, the same on every Linux architecture
	lockBase    = 1 << 40
	lockSpan    = 1 << 40
	recordSize  = 64
	recordSlots = 4096
)

// ofdLocks is a Store's lock file and the sessions it holds through it.
type ofdLocks struct {
	mu       sync.Mutex
	f        *os.File
	held     map[string]time.Time
	closed   bool // the Store closed: the file closes with its last lock
	disabled bool // the file system has no OFD locks: use lock files
}

// acquireOFD takes id's lock; ok is false when this Store uses lock files
// (the file system lacks OFD locks, or a test asked for them).
func (s *Store) acquireOFD(id string) (release func() error, ok bool, err error) {
	if s.fileLocks {
		return nil, false, nil
	}
	l := &s.ofd
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.disabled {
		return nil, false, nil
	}
	if since, held := l.held[id]; held {
		return nil, true, &BusyError{ID: id, PID: os.Getpid(), Since: since}
	}
	if l.f == nil {
		dir := filepath.Join(filepath.Dir(s.path), "sessions")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, true, fmt.Errorf("session: acquire %s: %w", id, readOnlyErr(err))
		}
		f, err := os.OpenFile(filepath.Join(dir, "locks"), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, true, fmt.Errorf("session: acquire %s: %w", id, readOnlyErr(err))
		}
		l.f = f
		if l.held == nil {
			l.held = map[string]time.Time{}
		}
	}
	h := hashID(id)
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: lockBase + int64(h%lockSpan), Len: 1}
	for {
		err = syscall.FcntlFlock(l.f.Fd(), fOFDSetlk, &lk)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	switch {
	case err == nil:
	case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EACCES):
		return nil, true, readRecord(l.f, id, h)
	case errors.Is(err, syscall.EINVAL), errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP):
		l.disabled = true
		if len(l.held) == 0 {
			l.f.Close()
			l.f = nil
		}
		return nil, false, nil
	default:
		return nil, true, fmt.Errorf("session: acquire %s: lock: %w", id, err)
	}
	now := s.now()
	rec := fmt.Sprintf("%d %d %d", os.Getpid(), now.UnixNano(), h)
	buf := make([]byte, recordSize)
	copy(buf, rec)
	buf[recordSize-1] = '\n'
	if _, err := l.f.WriteAt(buf, recordOffset(h)); err != nil {
		l.unlock(h)
		return nil, true, fmt.Errorf("session: acquire %s: record the holder: %w", id, err)
	}
	l.held[id] = now
	var once sync.Once
	return func() error {
		var err error
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			err = l.unlock(h)
			delete(l.held, id)
			if l.closed && len(l.held) == 0 && l.f != nil {
				err = errors.Join(err, l.f.Close())
				l.f = nil
			}
			if err != nil {
				err = fmt.Errorf("session: release %s: %w", id, err)
			}
		})
		return err
	}, true, nil
}

func (l *ofdLocks) unlock(h uint64) error {
	lk := syscall.Flock_t{Type: syscall.F_UNLCK, Whence: 0, Start: lockBase + int64(h%lockSpan), Len: 1}
	for {
		err := syscall.FcntlFlock(l.f.Fd(), fOFDSetlk, &lk)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// closeOFD closes the lock file once no lock is held through it.
func (s *Store) closeOFD() error {
	l := &s.ofd
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.f == nil || len(l.held) > 0 {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

func hashID(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

func recordOffset(h uint64) int64 { return int64(h%recordSlots) * recordSize }

// readRecord names the holder of id's lock, when its record is id's.
func readRecord(f *os.File, id string, h uint64) *BusyError {
	e := &BusyError{ID: id}
	buf := make([]byte, recordSize)
	if _, err := f.ReadAt(buf, recordOffset(h)); err != nil {
		return e
	}
	fields := strings.Fields(strings.TrimRight(string(buf), "\x00\n"))
	if len(fields) != 3 || fields[2] != strconv.FormatUint(h, 10) {
		return e
	}
	e.PID, _ = strconv.Atoi(fields[0])
	if n, err := strconv.ParseInt(fields[1], 10, 64); err == nil && n > 0 {
		e.Since = time.Unix(0, n)
	}
	return e
}
