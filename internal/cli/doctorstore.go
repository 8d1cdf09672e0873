package cli

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" driver, linked already by package session
)

// openExisting opens the SQLite file at path without creating it (mode
// rw: a database in WAL mode is not readable read-only once its -shm is
// gone). The caller closes it.
func openExisting(path string) (*sql.DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=rw&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// integrityCheck runs PRAGMA integrity_check on the database at path:
// nil when SQLite answers "ok", else an error with what it found.
func integrityCheck(ctx context.Context, path string) error {
	db, err := openExisting(path)
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		found = append(found, s)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(found) == 1 && found[0] == "ok" {
		return nil
	}
	if len(found) > 5 {
		found = append(found[:5], "...")
	}
	return fmt.Errorf("%s: integrity check failed: %s", path, strings.Join(found, "; "))
}

// countSessions counts the sessions in home's session database without
// creating it (0 when there is none yet).
func countSessions(home string) (int, error) {
	db, err := openExisting(filepath.Join(home, "state.db"))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM sessions").Scan(&n); err != nil {
		return 0, fmt.Errorf("counting sessions: %w", err)
	}
	return n, nil
}
