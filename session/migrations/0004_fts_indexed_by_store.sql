-- Messages are indexed for search by the store at the end of each write
-- transaction, all of its messages in one statement, instead of by a
-- trigger per message: FTS5 writes its pending rows to disk at every
-- statement that opens a savepoint, so a trigger made one index segment
-- per message, and a transaction of many messages rewrote the index
-- once per message. The delete and update triggers stay. Rows already
-- indexed stay indexed.
DROP TRIGGER messages_fts_insert;
