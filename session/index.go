package session

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
)

// indexSQL adds messages, by id, to the full-text index. Messages are
// indexed by the store, not by a trigger (migration 0004): each write
// transaction indexes all the messages it added in this one statement,
// its last, so FTS5 writes one segment per commit, not one per message.
// The content is read back from the rows, so the index holds exactly
// what is stored.
const indexSQL = `INSERT INTO messages_fts(rowid, content)
	SELECT id, content FROM messages WHERE id IN (SELECT value FROM json_each(?))`

// indexMessages indexes the messages ids names, in tx.
func (s *Store) indexMessages(ctx context.Context, tx *sql.Tx, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	list := make([]byte, 0, 2+len(ids)*8)
	list = append(list, '[')
	for i, id := range ids {
		if i > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, id, 10)
	}
	list = append(list, ']')
	if _, err := tx.StmtContext(ctx, s.stmts.index).ExecContext(ctx, string(list)); err != nil {
		return fmt.Errorf("index for search: %w", err)
	}
	return nil
}

// indexSessionSQL indexes every message of a session (a fork's copy).
const indexSessionSQL = `INSERT INTO messages_fts(rowid, content)
	SELECT id, content FROM messages WHERE session_id = ?`
