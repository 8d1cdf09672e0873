package cron

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// LockPath is the scheduler lock of a HERMES_HOME.
func LockPath(home string) string { return filepath.Join(home, "cron", "scheduler.lock") }

// tryLock takes the scheduler lock without waiting: ok false when
// another process (or another Scheduler of this one) holds it. The lock
// is an flock on the open file, so it goes with the process that holds
// it, however that process ends.
func tryLock(path string) (unlock func(), ok bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, false, fmt.Errorf("cron: scheduler lock: %w", err)
	}
	fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("cron: scheduler lock: %w", err)
	}
	if err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		fh.Close()
		if err == syscall.EWOULDBLOCK {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("cron: scheduler lock %s: %w", path, err)
	}
	fh.Truncate(0)
	fh.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { fh.Close() }, true, nil
}

// LockHolder is the pid written in the lock file by the scheduler that
// holds (or last held) it; "" when none is written.
func LockHolder(home string) string {
	b, _ := os.ReadFile(LockPath(home))
	return string(trimNL(b))
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// waitLock takes the lock, trying again every poll until ctx ends.
func waitLock(ctx context.Context, path string, clock Clock, poll time.Duration, waiting func()) (func(), error) {
	told := false
	for {
		unlock, ok, err := tryLock(path)
		if err != nil {
			return nil, err
		}
		if ok {
			return unlock, nil
		}
		if !told && waiting != nil {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-clock.After(poll):
		}
	}
}
