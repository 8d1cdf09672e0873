package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Options tune a Store. The zero value is ready to use.
type Options struct {
	// Redact rewrites text before it is stored: message content, reasoning,
	// tool-call arguments and the system prompt. Nil stores text as given.
	Redact func(string) string
	// BusyTimeout is how long a write waits for another process holding
	// the database. Default 5s.
	BusyTimeout time.Duration
	// Now is the clock for session start and end times and for messages
	// without a timestamp. Default time.Now.
	Now func() time.Time
	// Readers is the size of the read pool. Default 4.
	Readers int
}

// Store is an open session database.
type Store struct {
	path   string
	w      *sql.DB // one connection: every write goes through it
	r      *sql.DB // read pool, query_only
	redact func(string) string
	now    func() time.Time

	appendStmt *sql.Stmt
	existsStmt *sql.Stmt // on the read pool
	otherStmt  *sql.Stmt // on the read pool
	batch      *batcher  // groups concurrent small writes (batch.go)
	stmts      batchStmts
	readers    int

	ofd       ofdLocks // session locks (lock_ofd_linux.go)
	fileLocks bool     // lock sessions with a file each, even on Linux (tests)
}

// Open opens (creating when missing) the session database at path, with
// at most one Options. Missing parent directories are created (0700) and
// a new file is created with mode 0600, since transcripts may hold secrets.
// An existing file is first inspected read-only: one that is not a SQLite
// database (ErrCorrupt), a database hermes did not create (ErrForeign) or
// one with a newer schema (ErrSchemaTooNew) is refused before anything in
// it changes.
func Open(path string, opts ...Options) (*Store, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Readers <= 0 {
		o.Readers = 4
	}
	if path == "" {
		return nil, errors.New("session: open: empty path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("session: open %s: the path may not contain '?' or '#'", path)
	}
	if err := prepareFile(path); err != nil {
		return nil, err
	}

	s := &Store{path: path, redact: o.Redact, now: o.Now}
	if err := s.inspect(o.BusyTimeout); err != nil {
		return nil, err
	}

	busy := o.BusyTimeout.Milliseconds()
	// temp_store(MEMORY): the savepoints the batcher wraps each write in
	// journal to memory, not to a temporary file.
	common := fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)", busy)
	w, err := sql.Open("sqlite", path+"?"+common+"&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("session: open %s: %w", path, err)
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
		return nil, fmt.Errorf("session: open %s for reading: %w", path, err)
	}
	r.SetMaxOpenConns(o.Readers)
	r.SetMaxIdleConns(o.Readers)
	s.r, s.readers = r, o.Readers

	s.appendStmt, err = w.Prepare(appendSQL)
	if err != nil {
		s.Close()
		return nil, s.wrapOpen(err)
	}
	if s.existsStmt, err = r.Prepare(existsSQL); err != nil {
		s.Close()
		return nil, s.wrapOpen(err)
	}
	if s.otherStmt, err = r.Prepare(otherSQL); err != nil {
		s.Close()
		return nil, s.wrapOpen(err)
	}
	if err := s.prepareBatch(); err != nil {
		s.Close()
		return nil, s.wrapOpen(err)
	}
	s.startBatcher()
	return s, nil
}

// prepareFile creates the directory and an empty 0600 file when missing,
// so the database (and the WAL files SQLite derives from it) are private.
// An existing file is only checked, never modified.
func prepareFile(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		// MkdirAll names the directory it failed on, which may be an
		// ancestor of dir.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			dir, err = pe.Path, pe.Err
		}
		return fmt.Errorf("session: open %s: cannot create directory %s: %w", path, dir, readOnlyErr(err))
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil:
		if fi.IsDir() {
			return fmt.Errorf("session: open %s: is a directory", path)
		}
		return nil
	case !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("session: open %s: %w", path, causeOf(err))
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil // another process created it meanwhile
		}
		return fmt.Errorf("session: open %s: cannot create the file: %w", path, readOnlyErr(causeOf(err)))
	}
	return f.Close()
}

// causeOf drops the path an *fs.PathError repeats: the message around it
// names the file already.
func causeOf(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readOnlyErr marks permission and read-only-filesystem errors with
// ErrReadOnly.
func readOnlyErr(err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	return err
}

// wrapOpen turns a failure during Open into an error that names the file
// and says what to do.
func (s *Store) wrapOpen(err error) error {
	switch classify(err) {
	case ErrCorrupt:
		return fmt.Errorf("session: open %s: the file is not a valid SQLite database (corrupt or another kind of file); it was left untouched; move it aside to start a new session store: %w: %w", s.path, ErrCorrupt, err)
	case ErrReadOnly:
		return fmt.Errorf("session: open %s: the database or its directory cannot be written (check permissions and free space): %w: %w", s.path, ErrReadOnly, err)
	case ErrLocked:
		return fmt.Errorf("session: open %s: another process holds the database lock: %w: %w", s.path, ErrLocked, err)
	}
	return fmt.Errorf("session: open %s: %w", s.path, err)
}

// Path returns the database file.
func (s *Store) Path() string { return s.path }

// Close releases the database. Pending writes are already committed.
func (s *Store) Close() error {
	s.stopBatcher()
	errs := []error{s.stmts.close()}
	for _, st := range []*sql.Stmt{s.appendStmt, s.existsStmt, s.otherStmt} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	errs = append(errs, s.closeOFD())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("session: close %s: %w", s.path, err)
	}
	return nil
}

// clean applies the redaction function.
func (s *Store) clean(text string) string {
	if s.redact == nil || text == "" {
		return text
	}
	return s.redact(text)
}

// wrap adds the operation and the session id to err and, for storage
// failures, the matching sentinel.
func wrap(op, id string, err error) error {
	if err == nil {
		return nil
	}
	if c := classify(err); c != nil && !errors.Is(err, c) {
		return fmt.Errorf("session: %s %s: %w: %w", op, id, c, err)
	}
	return fmt.Errorf("session: %s %s: %w", op, id, err)
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid || n.Int64 == 0 {
		return time.Time{}
	}
	return time.Unix(0, n.Int64)
}

// exec runs one write statement and reports ErrNotFound when it matched
// no session row.
func (s *Store) execOne(ctx context.Context, op, id, query string, args ...any) error {
	res, err := s.w.ExecContext(ctx, query, args...)
	if err != nil {
		return wrap(op, id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return wrap(op, id, err)
	}
	if n == 0 {
		return fmt.Errorf("session: %s %s: %w", op, id, ErrNotFound)
	}
	return nil
}

// batchedOne runs a prepared statement through the batcher and reports
// ErrNotFound when it matched no session row.
func (s *Store) batchedOne(op, id string, stmt *sql.Stmt, args ...any) error {
	var n int64
	err := s.inTx(func(tx *sql.Tx) error {
		res, err := tx.Stmt(stmt).Exec(args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return wrap(op, id, err)
	}
	if n == 0 {
		return fmt.Errorf("session: %s %s: %w", op, id, ErrNotFound)
	}
	return nil
}
