//go:build unix

package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// lockModes runs f with stores that lock sessions as this system does,
// and with stores that use a lock file each (the fallback).
func lockModes(t *testing.T, f func(t *testing.T, open func(path string) *Store)) {
	for _, files := range []bool{false, true} {
		name := "native"
		if files {
			name = "files"
		}
		t.Run(name, func(t *testing.T) {
			f(t, func(path string) *Store {
				t.Helper()
				s, err := Open(path)
				if err != nil {
					t.Fatal(err)
				}
				s.fileLocks = files
				t.Cleanup(func() { s.Close() })
				return s
			})
		})
	}
}

func TestASessionHasOneWriterAtATime(t *testing.T) {
	lockModes(t, testOneWriterAtATime)
}

func testOneWriterAtATime(t *testing.T, open func(string) *Store) {
	s := open(filepath.Join(t.TempDir(), "home", "state.db"))
	ctx := context.Background()
	release, err := s.Acquire(ctx, "20261130_091500_abcdef")
	if err != nil {
		t.Fatal(err)
	}
	// Refused for this Store, for another Store on the same file (another
	// runtime in this process), and with the holder named.
	other := open(s.Path())
	for _, st := range []*Store{s, other} {
		_, err := st.Acquire(ctx, "20261130_091500_abcdef")
		var busy *BusyError
		if !errors.Is(err, ErrBusy) || !errors.As(err, &busy) || busy.PID != os.Getpid() || busy.Since.IsZero() {
			t.Fatalf("second Acquire: %v", err)
		}
		if msg := err.Error(); !strings.Contains(msg, "20261130_091500_abcdef") || !strings.Contains(msg, "process "+strconv.Itoa(os.Getpid())) {
			t.Fatalf("the refusal does not name the session and its holder: %s", msg)
		}
	}
	// Another session is independent.
	releaseOther, err := other.Acquire(ctx, "20261130_091500_012345")
	if err != nil {
		t.Fatal(err)
	}
	defer releaseOther()

	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatalf("second release: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.Path()), "sessions", "20261130_091500_abcdef.lock")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file left after release: %v", err)
	}
	again, err := other.Acquire(ctx, "20261130_091500_abcdef")
	if err != nil {
		t.Fatalf("Acquire after release: %v", err)
	}
	again()
}

// Any session id has a lock of its own, all held at once; none makes a
// file outside the lock directory.
func TestAnySessionIDHasItsOwnLock(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	ids := []string{"../escape", "a/b", "a%2Fb", ".hidden", "api:user 7", "日本", "contended", "20261130_091500_abcdef"}
	for _, id := range ids {
		release, err := s.Acquire(ctx, id)
		if err != nil {
			t.Fatalf("Acquire(%q): %v", id, err)
		}
		defer release()
	}
	entries, _ := os.ReadDir(filepath.Join(filepath.Dir(s.Path()), "sessions"))
	if runtime.GOOS == "linux" && len(entries) != 1 {
		t.Fatalf("%d files in the lock directory, want the one lock file: %v", len(entries), entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.Path()), "escape.lock")); err == nil {
		t.Fatal("an id escaped the lock directory")
	}
}

// With lock files, any session id makes one plain file in the lock
// directory, and two ids never share a lock.
func TestAnySessionIDLocksItsOwnFile(t *testing.T) {
	s, _ := openTest(t)
	s.fileLocks = true
	ctx := context.Background()
	ids := []string{"../escape", "a/b", "a%2Fb", ".hidden", "api:user 7", "日本"}
	for _, id := range ids {
		release, err := s.Acquire(ctx, id)
		if err != nil {
			t.Fatalf("Acquire(%q): %v", id, err)
		}
		defer release()
	}
	dir := filepath.Join(filepath.Dir(s.Path()), "sessions")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(ids) {
		t.Fatalf("%d lock files for %d ids", len(entries), len(ids))
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
			t.Fatalf("lock file %q", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.lock")); err == nil {
		t.Fatal("an id escaped the lock directory")
	}
}

// The kernel drops a holder's lock when its process dies: a SIGKILLed
// writer never blocks its session.
func TestAKilledHolderDoesNotBlockTheSession(t *testing.T) {
	if spec := os.Getenv("HERMES_SESSION_TEST_HOLD"); spec != "" {
		holdUntilKilled(t, spec)
		return
	}
	lockModes(t, testKilledHolder)
}

func testKilledHolder(t *testing.T, open func(string) *Store) {
	s := open(filepath.Join(t.TempDir(), "home", "state.db"))
	ctx := context.Background()
	const id = "20261130_091500_c0ffee"
	cmd := exec.Command(os.Args[0], "-test.run=^TestAKilledHolderDoesNotBlockTheSession$")
	cmd.Env = append(os.Environ(), "HERMES_SESSION_TEST_HOLD="+s.Path()+"\n"+id+"\n"+strconv.FormatBool(s.fileLocks))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe() // kept open: the holder waits on it
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}
	_, err = s.Acquire(ctx, id)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != cmd.Process.Pid {
		t.Fatalf("Acquire while the holder lives: %v (holder pid %d)", err, cmd.Process.Pid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	release, err := s.Acquire(ctx, id)
	if err != nil {
		t.Fatalf("Acquire after the holder was killed: %v", err)
	}
	release()
}

// holdUntilKilled is the holder process: it takes the lock, says so, and
// waits for its stdin to close.
func holdUntilKilled(t *testing.T, spec string) {
	parts := strings.Split(spec, "\n")
	path, id := parts[0], parts[1]
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.fileLocks = len(parts) > 2 && parts[2] == "true"
	if _, err := s.Acquire(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	fmt.Println("held")
	bufio.NewReader(os.Stdin).ReadString('\n')
}

// Writers racing for one session, each taking and releasing it over and
// over (release removes the lock file under the others), never hold it
// two at a time.
func TestRacingWritersNeverHoldASessionTogether(t *testing.T) {
	lockModes(t, testRacingWriters)
}

func testRacingWriters(t *testing.T, open func(string) *Store) {
	path := filepath.Join(t.TempDir(), "home", "state.db")
	stores := []*Store{open(path), open(path)} // two runtimes in one process
	ctx := context.Background()
	const writers, rounds = 4, 25
	var (
		holders atomic.Int32
		wg      sync.WaitGroup
		errs    = make(chan error, writers)
	)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := stores[w%len(stores)]
			for done := 0; done < rounds; {
				release, err := s.Acquire(ctx, "contended")
				if errors.Is(err, ErrBusy) {
					runtime.Gosched()
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				holders.Add(1)
				for range 20 { // hold it a while, letting the others run
					runtime.Gosched()
				}
				if n := holders.Load(); n != 1 {
					errs <- fmt.Errorf("%d writers hold the session", n)
					release()
					return
				}
				holders.Add(-1)
				if err := release(); err != nil {
					errs <- err
					return
				}
				done++
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
