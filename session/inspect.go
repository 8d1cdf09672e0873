package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// inspect checks, through a read-only connection, that an existing file
// is a database this build may open (SQLite, created by hermes, a schema
// it knows) before Open switches it to WAL and migrates it: a file that
// is refused is left exactly as it was, down to the absence of -wal and
// -shm files beside it. An empty file is a new database.
func (s *Store) inspect(busy time.Duration) error {
	fi, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("session: open %s: %w", s.path, err)
	}
	if fi.Size() == 0 {
		return nil
	}
	// A read-only connection to a WAL database creates the -wal and -shm
	// files (and leaves them). Without a -wal file no connection has the
	// database open in WAL mode, so the main file alone holds all of it
	// and immutable reads it with no locks and no files of its own.
	params := "mode=ro"
	if _, err := os.Lstat(s.path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		params += "&immutable=1"
	}
	uri := "file:" + strings.ReplaceAll(s.path, "%", "%25") + "?" + params +
		fmt.Sprintf("&_pragma=busy_timeout(%d)", busy.Milliseconds())
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		return fmt.Errorf("session: open %s for inspection: %w", s.path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = s.checkSchema(context.Background(), db, SchemaVersion())
	return err
}
