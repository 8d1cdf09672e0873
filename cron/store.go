package cron

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is the cron database, $HERMES_HOME/cron/cron.db: the jobs and
// the history of their fires. It is safe for concurrent use, and several
// processes may share the file (hermes cron add while a daemon runs):
// every write is one IMMEDIATE transaction under SQLite's busy timeout.
type Store struct {
	path string
	db   *sql.DB
}

// Errors Open returns, wrapped with the file's name.
var (
	// ErrCorrupt: the file is not a readable SQLite database.
	ErrCorrupt = errors.New("not a valid SQLite database")
	// ErrTooNew: the file was written by a newer schema.
	ErrTooNew = errors.New("cron database schema is newer than this build")
	// ErrForeign: the file is a SQLite database hermes did not create.
	ErrForeign = errors.New("database was not created by hermes cron")
	// ErrNotFound: no job has that id or name.
	ErrNotFound = errors.New("no such cron job")
)

// StorePath is where the cron database lives under HERMES_HOME.
func StorePath(home string) string { return filepath.Join(home, "cron", "cron.db") }

// migrations are the schema's versions, applied in order; never edit one
// that has shipped.
var migrations = []string{
	`
CREATE TABLE jobs (
	id              TEXT PRIMARY KEY,
	name            TEXT NOT NULL UNIQUE,
	schedule        TEXT NOT NULL,
	kind            TEXT NOT NULL,
	spec            TEXT NOT NULL,
	prompt          TEXT NOT NULL,
	skills          TEXT NOT NULL DEFAULT '',
	deliver         TEXT NOT NULL DEFAULT 'local',
	model           TEXT NOT NULL DEFAULT '',
	provider        TEXT NOT NULL DEFAULT '',
	base_url        TEXT NOT NULL DEFAULT '',
	api_key         TEXT NOT NULL DEFAULT '',
	toolsets        TEXT NOT NULL DEFAULT '',
	workdir         TEXT NOT NULL DEFAULT '',
	timeout_ms      INTEGER NOT NULL DEFAULT 0,
	repeat          INTEGER NOT NULL DEFAULT 0,
	remaining       INTEGER NOT NULL DEFAULT 0,
	enabled         INTEGER NOT NULL DEFAULT 1,
	state           TEXT NOT NULL DEFAULT 'scheduled',
	next_run_at     INTEGER NOT NULL DEFAULT 0,
	last_run_at     INTEGER NOT NULL DEFAULT 0,
	last_status     TEXT NOT NULL DEFAULT '',
	last_error      TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL
);
CREATE INDEX jobs_due ON jobs (enabled, next_run_at);

CREATE TABLE runs (
	id           TEXT PRIMARY KEY,
	job_id       TEXT NOT NULL,
	scheduled_at INTEGER NOT NULL DEFAULT 0,
	started_at   INTEGER NOT NULL DEFAULT 0,
	ended_at     INTEGER NOT NULL DEFAULT 0,
	status       TEXT NOT NULL,
	error        TEXT NOT NULL DEFAULT '',
	output       TEXT NOT NULL DEFAULT '',
	session_id   TEXT NOT NULL DEFAULT '',
	delivery     TEXT NOT NULL DEFAULT '',
	pid          INTEGER NOT NULL DEFAULT 0,
	created_at   INTEGER NOT NULL
);
CREATE INDEX runs_by_job ON runs (job_id, created_at);
`,
}

// Open opens (creating when missing) the cron database at path and
// brings its schema up to date. A new directory is 0700 and a new file
// 0600 (jobs may hold an API key). An existing file that is not a SQLite
// database (ErrCorrupt), one hermes did not create (ErrForeign) or one
// with a newer schema (ErrTooNew) is refused and left exactly as it was.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("cron store: open: empty path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("cron store: open %s: the path may not contain '?' or '#'", path)
	}
	if err := createFile(path); err != nil {
		return nil, err
	}
	s := &Store{path: path}
	if err := s.inspect(); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("cron store: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s.db = db
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func createFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cron store: open %s: cannot create its directory: %w", path, err)
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("cron store: open %s: is a directory", path)
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cron store: open %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cron store: open %s: cannot create the file: %w", path, err)
	}
	return f.Close()
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close releases the database; every write was committed when its call
// returned.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("cron store: close %s: %w", s.path, err)
	}
	return nil
}

// inspect checks an existing file read-only before the writer switches
// it to WAL and migrates it, so a refused file stays as it was.
func (s *Store) inspect() error {
	fi, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("cron store: open %s: %w", s.path, err)
	}
	if fi.Size() == 0 {
		return nil
	}
	params := "mode=ro"
	if _, err := os.Lstat(s.path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		params += "&immutable=1"
	}
	db, err := sql.Open("sqlite", "file:"+strings.ReplaceAll(s.path, "%", "%25")+"?"+params+"&_pragma=busy_timeout(5000)")
	if err != nil {
		return fmt.Errorf("cron store: open %s for inspection: %w", s.path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = s.checkSchema(context.Background(), db)
	return err
}

func (s *Store) migrate() error {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.wrapOpen(err)
	}
	defer tx.Rollback()
	current, err := s.checkSchema(ctx, tx)
	if err != nil {
		return err
	}
	if current < len(migrations) {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
			return s.wrapOpen(err)
		}
		for i, m := range migrations[current:] {
			if _, err := tx.ExecContext(ctx, m); err != nil {
				return fmt.Errorf("cron store: open %s: apply migration %d: %w", s.path, current+i+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
			return s.wrapOpen(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, len(migrations)); err != nil {
			return s.wrapOpen(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.wrapOpen(err)
	}
	return nil
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) checkSchema(ctx context.Context, q queryer) (int, error) {
	var ours, others int
	if err := q.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE name = 'schema_version'),
		count(*) FILTER (WHERE name NOT IN ('schema_version', 'sqlite_sequence'))
		FROM sqlite_master WHERE type = 'table'`).Scan(&ours, &others); err != nil {
		return 0, s.wrapOpen(err)
	}
	current := 0
	if ours > 0 {
		if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
			return 0, s.wrapOpen(err)
		}
	}
	if current > len(migrations) {
		return 0, fmt.Errorf("cron store: open %s: schema version %d, this build knows up to %d; the file was left untouched; use a newer hermes: %w", s.path, current, len(migrations), ErrTooNew)
	}
	if current == 0 && others > 0 {
		return 0, fmt.Errorf("cron store: open %s: the database holds tables but no schema version; it was not created by hermes cron and was left untouched: %w", s.path, ErrForeign)
	}
	return current, nil
}

func (s *Store) wrapOpen(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		if c := se.Code() & 0xff; c == sqlite3.SQLITE_NOTADB || c == sqlite3.SQLITE_CORRUPT {
			return fmt.Errorf("cron store: open %s: the file is not a valid SQLite database (corrupt or another kind of file); it was left untouched; move it aside to start a new cron database: %w: %w", s.path, ErrCorrupt, err)
		}
	}
	return fmt.Errorf("cron store: open %s: %w", s.path, err)
}

// inTx runs f in one write transaction and commits it when f returns nil.
func (s *Store) inTx(ctx context.Context, f func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMillis(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.UnixMilli(n)
}
