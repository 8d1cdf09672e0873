package session

import (
	"errors"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors callers branch on. Each is wrapped with context (the file, the
// session id, the title) before it is returned.
var (
	// ErrNotFound: no session has the given id, title or reference.
	ErrNotFound = errors.New("session not found")
	// ErrExists: a session with the same id already exists.
	ErrExists = errors.New("session already exists")
	// ErrTitleTaken: another session already uses the title.
	ErrTitleTaken = errors.New("title already in use")
	// ErrCorrupt: the file is not a readable SQLite database.
	ErrCorrupt = errors.New("not a valid SQLite database")
	// ErrReadOnly: the database or its directory cannot be written.
	ErrReadOnly = errors.New("database is read-only")
	// ErrLocked: another process held the database longer than the busy timeout.
	ErrLocked = errors.New("database is locked")
	// ErrEmptyQuery: a search query with no words to search for.
	ErrEmptyQuery = errors.New("the query has no words to search for")
	// ErrSchemaTooNew: the file was written by a newer schema than this build knows.
	ErrSchemaTooNew = errors.New("database schema is newer than this build")
	// ErrForeign: the file is a SQLite database that hermes did not create.
	ErrForeign = errors.New("database was not created by hermes")
	// ErrBusy: another writer holds the session (Acquire; a *BusyError
	// names it).
	ErrBusy = errors.New("session is in use by another process")
)

// sqliteCode returns the primary SQLite result code of err, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// classify maps SQLite result codes to the package's sentinel errors, or
// returns nil when the code has no sentinel.
func classify(err error) error {
	switch sqliteCode(err) {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		return ErrCorrupt
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
		return ErrReadOnly
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return ErrLocked
	}
	return nil
}

// isConstraint reports whether err is a constraint violation (unique,
// foreign key).
func isConstraint(err error) bool {
	return sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT
}
