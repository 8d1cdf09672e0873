package gateway

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is the gateway's database, $HERMES_HOME/gateway/gateway.db: the
// adapters' resume state (KV), the inbound messages already seen, the
// busy queue, the chat → session mapping, the delivery ledger and
// pairing. Everything the gateway promises to remember across a restart
// is a row here before the promise is made.
//
// A Store is safe for concurrent use and may be shared with other
// processes (`hermes pairing` writes to it while the gateway runs): every
// write goes through one connection with BEGIN IMMEDIATE and SQLite's busy
// timeout, reads go through a pool of read-only connections (WAL).
type Store struct {
	path string
	now  func() time.Time
	w    *sql.DB // one connection: every write
	r    *sql.DB // read pool, query_only

	pruneMu   sync.Mutex
	lastPrune time.Time

	// pid is this process's id, written on the rows it sends; alive
	// says whether another process still runs.
	pid   int
	alive func(pid int) bool
}

// Errors callers branch on; each is returned wrapped with the file's name.
var (
	// ErrStoreCorrupt: the file is not a readable SQLite database.
	ErrStoreCorrupt = errors.New("not a valid SQLite database")
	// ErrStoreTooNew: the file was written by a newer schema.
	ErrStoreTooNew = errors.New("gateway database schema is newer than this build")
	// ErrStoreForeign: the file is a SQLite database hermes did not create.
	ErrStoreForeign = errors.New("database was not created by the hermes gateway")
)

// storeRetention is how long seen message ids and finished deliveries are
// kept; storePruneEvery how often they are pruned.
const (
	storeRetention  = 7 * 24 * time.Hour
	storePruneEvery = time.Hour
)

// StorePath is where the gateway keeps its database under HERMES_HOME.
func StorePath(home string) string {
	return filepath.Join(home, "gateway", "gateway.db")
}

// OpenStore opens (creating when missing) the gateway database at path
// and brings its schema up to date. A missing directory is created 0700
// and a new file 0600: it holds pairing codes and message text. An
// existing file is first inspected read-only, so a file that is not a
// SQLite database (ErrStoreCorrupt), one hermes did not create
// (ErrStoreForeign) or one with a newer schema (ErrStoreTooNew) is refused
// and left exactly as it was, never overwritten. now is the clock (nil:
// time.Now).
func OpenStore(path string, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	if path == "" {
		return nil, errors.New("gateway store: open: empty path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("gateway store: open %s: the path may not contain '?' or '#'", path)
	}
	if err := createStoreFile(path); err != nil {
		return nil, err
	}
	s := &Store{path: path, now: now, pid: os.Getpid(), alive: processAlive}
	if err := s.inspect(); err != nil {
		return nil, err
	}
	const common = "_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	w, err := sql.Open("sqlite", path+"?"+common+"&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("gateway store: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	s.w = w
	if err := s.migrate(); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", path+"?"+common+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("gateway store: open %s for reading: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(4)
	s.r = r
	if err := s.pruneIfDue(context.Background()); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// createStoreFile creates the directory (0700) and an empty file (0600) when
// missing; SQLite gives its -wal and -shm files the database's mode. An
// existing file is not touched.
func createStoreFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("gateway store: open %s: cannot create its directory: %w", path, err)
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("gateway store: open %s: is a directory", path)
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("gateway store: open %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil // another process created it meanwhile
	}
	if err != nil {
		return fmt.Errorf("gateway store: open %s: cannot create the file: %w", path, err)
	}
	return f.Close()
}

// Path returns the database file.
func (s *Store) Path() string { return s.path }

// Close releases the database. Every write is committed when its call
// returns, so Close loses nothing.
func (s *Store) Close() error {
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("gateway store: close %s: %w", s.path, err)
	}
	return nil
}

// inTx runs f in one write transaction (BEGIN IMMEDIATE) and commits it
// when f returns nil.
func (s *Store) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// wrapOpen turns a failure while opening into an error naming the file
// and saying what to do.
func (s *Store) wrapOpen(err error) error {
	if isCorruptDB(err) {
		return fmt.Errorf("gateway store: open %s: the file is not a valid SQLite database (corrupt or another kind of file); it was left untouched; move it aside to start a new gateway database: %w: %w", s.path, ErrStoreCorrupt, err)
	}
	return fmt.Errorf("gateway store: open %s: %w", s.path, err)
}

func isCorruptDB(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqlite3.SQLITE_NOTADB || c == sqlite3.SQLITE_CORRUPT
}

// pruneIfDue deletes, at most once an hour, the seen message ids and the
// finished deliveries (delivered or failed) older than seven days.
func (s *Store) pruneIfDue(ctx context.Context) error {
	now := s.now()
	s.pruneMu.Lock()
	defer s.pruneMu.Unlock()
	if !s.lastPrune.IsZero() && now.Sub(s.lastPrune) < storePruneEvery {
		return nil
	}
	cut := now.Add(-storeRetention).UnixNano()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM seen WHERE seen_at < ?`, cut); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM deliveries WHERE state IN ('delivered', 'failed') AND updated_at < ?`, cut)
		return err
	})
	if err != nil {
		return fmt.Errorf("gateway store: prune %s: %w", s.path, err)
	}
	s.lastPrune = now
	return nil
}

func storeNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func storeTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// ReleaseMemory hands back what the store's connections cached while
// busy: the writer's page cache is shrunk and idle readers are closed.
// The gateway calls it when it goes quiet.
func (s *Store) ReleaseMemory(ctx context.Context) error {
	_, err := s.w.ExecContext(ctx, `PRAGMA shrink_memory`)
	s.r.SetMaxIdleConns(0)
	s.r.SetMaxIdleConns(4)
	if err != nil {
		return fmt.Errorf("gateway store: release memory: %w", err)
	}
	return nil
}
