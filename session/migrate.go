package session

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations ordered by version. File
// names are NNNN_description.sql.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and '_'", e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the newest schema this build knows.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		return 0
	}
	return len(ms)
}

// migrate brings the schema up to date inside one IMMEDIATE transaction.
// Taking the write lock even when nothing is pending is deliberate: it is
// how Open finds out, at once and with a clear error, that the file is
// read-only, locked, or not a database. The checks of inspect are made
// again under the lock, for a file another process changed meanwhile.
func (s *Store) migrate() error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("session: open %s: %w", s.path, err)
	}
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil) // BEGIN IMMEDIATE (_txlock)
	if err != nil {
		return s.wrapOpen(err)
	}
	defer tx.Rollback()

	current, err := s.checkSchema(ctx, tx, len(ms))
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return s.wrapOpen(err)
	}
	for _, m := range ms[current:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("session: open %s: apply migration %s: %w", s.path, m.name, err)
		}
	}
	if current < len(ms) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM schema_version`); err != nil {
			return s.wrapOpen(err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version(version) VALUES (?)`, len(ms)); err != nil {
			return s.wrapOpen(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.wrapOpen(err)
	}
	return nil
}

// queryer is what checkSchema reads through: a connection pool or a
// transaction.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// checkSchema returns the file's schema version (0 for an empty
// database), refusing a schema newer than known and a database that holds
// tables but no schema_version: it was not created by hermes, and adding
// tables to it would be wrong.
func (s *Store) checkSchema(ctx context.Context, q queryer, known int) (int, error) {
	var ours, others int
	if err := q.QueryRowContext(ctx, `SELECT
		count(*) FILTER (WHERE name = 'schema_version'),
		count(*) FILTER (WHERE name NOT IN ('schema_version', 'sqlite_sequence'))
		FROM sqlite_master WHERE type = 'table'`).Scan(&ours, &others); err != nil {
		return 0, s.wrapOpen(err)
	}
	var current int
	if ours > 0 {
		if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&current); err != nil {
			return 0, s.wrapOpen(err)
		}
	}
	if current > known {
		return 0, fmt.Errorf("session: open %s: schema version %d, this build knows up to %d; the file was left untouched; use a newer hermes or another HERMES_HOME: %w", s.path, current, known, ErrSchemaTooNew)
	}
	if current == 0 && others > 0 {
		return 0, fmt.Errorf("session: open %s: the database holds tables but no schema version; it was not created by hermes and was left untouched: %w", s.path, ErrForeign)
	}
	return current, nil
}
