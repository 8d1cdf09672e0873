package gateway

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// storeMigrations are the schema's versions, applied in order at open;
// the database's version is the number applied. Never edit one that has
// shipped: add the next.
var storeMigrations = []string{
	// 1: every table of the first gateway.
	`
CREATE TABLE kv (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE seen (
	platform   TEXT NOT NULL,
	message_id TEXT NOT NULL,
	seen_at    INTEGER NOT NULL,
	PRIMARY KEY (platform, message_id)
) WITHOUT ROWID;
CREATE INDEX seen_by_time ON seen (seen_at);

CREATE TABLE queue (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	key       TEXT NOT NULL,
	message   TEXT NOT NULL,
	queued_at INTEGER NOT NULL
);
CREATE INDEX queue_by_key ON queue (key, seq);

CREATE TABLE chat_sessions (
	key        TEXT PRIMARY KEY,
	session_id TEXT NOT NULL,
	updated_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE deliveries (
	id          INTEGER PRIMARY KEY AUTOINCREMENT,
	platform    TEXT NOT NULL,
	chat_id     TEXT NOT NULL,
	thread_id   TEXT NOT NULL DEFAULT '',
	session_key TEXT NOT NULL DEFAULT '',
	reply_to    TEXT NOT NULL DEFAULT '',
	text        TEXT NOT NULL DEFAULT '',
	plain       INTEGER NOT NULL DEFAULT 0,
	edit_of     TEXT NOT NULL DEFAULT '',
	buttons     TEXT NOT NULL DEFAULT '',
	file        TEXT NOT NULL DEFAULT '',
	state       TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'delivered', 'failed')),
	attempts    INTEGER NOT NULL DEFAULT 0,
	not_before  INTEGER NOT NULL DEFAULT 0,
	recovered   INTEGER NOT NULL DEFAULT 0,
	last_error  TEXT NOT NULL DEFAULT '',
	sent_id     TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
);
CREATE INDEX deliveries_open ON deliveries (platform, state, id);
CREATE INDEX deliveries_by_time ON deliveries (state, updated_at);

CREATE TABLE pairing_requests (
	platform     TEXT NOT NULL,
	user_id      TEXT NOT NULL,
	user_name    TEXT NOT NULL,
	code         TEXT NOT NULL,
	requested_at INTEGER NOT NULL,
	expires_at   INTEGER NOT NULL,
	PRIMARY KEY (platform, user_id)
);
CREATE UNIQUE INDEX pairing_codes ON pairing_requests (platform, code);

CREATE TABLE paired_users (
	platform    TEXT NOT NULL,
	user_id     TEXT NOT NULL,
	user_name   TEXT NOT NULL,
	approved_at INTEGER NOT NULL,
	PRIMARY KEY (platform, user_id)
);

CREATE TABLE pairing_lockouts (
	platform     TEXT PRIMARY KEY,
	failures     INTEGER NOT NULL,
	locked_until INTEGER NOT NULL
);
`,
	// 2: the process sending a row, so a row another live process is
	// sending is not taken for one a crash left behind.
	`ALTER TABLE deliveries ADD COLUMN sender INTEGER NOT NULL DEFAULT 0;`,
}

// inspect checks, through a read-only connection, that an existing file
// is one this build may open before the writer switches it to WAL and
// migrates it: a refused file is left as it was, with no -wal or -shm
// beside it. An empty file is a new database.
func (s *Store) inspect() error {
	fi, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("gateway store: open %s: %w", s.path, err)
	}
	if fi.Size() == 0 {
		return nil
	}
	// Without a -wal file no connection has the database open in WAL
	// mode, so immutable reads the main file alone, creating nothing.
	params := "mode=ro"
	if _, err := os.Lstat(s.path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		params += "&immutable=1"
	}
	db, err := sql.Open("sqlite", "file:"+strings.ReplaceAll(s.path, "%", "%25")+"?"+params+"&_pragma=busy_timeout(5000)")
	if err != nil {
		return fmt.Errorf("gateway store: open %s for inspection: %w", s.path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = s.checkSchema(context.Background(), db)
	return err
}

// migrate applies the missing migrations inside one IMMEDIATE
// transaction, checking the schema again under the write lock.
func (s *Store) migrate() error {
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.wrapOpen(err)
	}
	defer tx.Rollback()
	current, err := s.checkSchema(ctx, tx)
	if err != nil {
		return err
	}
	if current == len(storeMigrations) {
		// Nothing to apply; the transaction only proved the file can be
		// written.
		if err := tx.Commit(); err != nil {
			return s.wrapOpen(err)
		}
		return nil
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return s.wrapOpen(err)
	}
	for i, m := range storeMigrations[current:] {
		if _, err := tx.ExecContext(ctx, m); err != nil {
			return fmt.Errorf("gateway store: open %s: apply migration %d: %w", s.path, current+i+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
		return s.wrapOpen(err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, len(storeMigrations)); err != nil {
		return s.wrapOpen(err)
	}
	if err := tx.Commit(); err != nil {
		return s.wrapOpen(err)
	}
	return nil
}

type schemaQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// checkSchema returns the file's schema version (0 for an empty
// database), refusing a newer schema and a database that holds tables
// but no schema_version.
func (s *Store) checkSchema(ctx context.Context, q schemaQueryer) (int, error) {
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
	if current > len(storeMigrations) {
		return 0, fmt.Errorf("gateway store: open %s: schema version %d, this build knows up to %d; the file was left untouched; use a newer hermes: %w", s.path, current, len(storeMigrations), ErrStoreTooNew)
	}
	if current == 0 && others > 0 {
		return 0, fmt.Errorf("gateway store: open %s: the database holds tables but no schema version; it was not created by the hermes gateway and was left untouched: %w", s.path, ErrStoreForeign)
	}
	return current, nil
}
