-- Sessions, messages and the full-text index over message content.
-- Times are unix nanoseconds (INTEGER) so they round-trip exactly.

CREATE TABLE sessions (
    id                TEXT PRIMARY KEY,
    source            TEXT NOT NULL,
    model             TEXT NOT NULL DEFAULT '',
    provider          TEXT NOT NULL DEFAULT '',
    -- cwd is the working directory (workspace) the session ran in.
    cwd               TEXT NOT NULL DEFAULT '',
    title             TEXT,
    parent_session_id TEXT REFERENCES sessions(id),
    started_at        INTEGER NOT NULL,
    last_active       INTEGER NOT NULL,
    ended_at          INTEGER,
    end_reason        TEXT,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
    api_calls         INTEGER NOT NULL DEFAULT 0,
    message_count     INTEGER NOT NULL DEFAULT 0,
    -- child_count counts sessions whose parent is this one (triggers below).
    child_count       INTEGER NOT NULL DEFAULT 0,
    -- preview is the start of the first user message, kept here so that
    -- listing sessions never touches the messages table.
    preview           TEXT NOT NULL DEFAULT ''
);

CREATE TRIGGER sessions_child_insert AFTER INSERT ON sessions
WHEN NEW.parent_session_id IS NOT NULL BEGIN
    UPDATE sessions SET child_count = child_count + 1 WHERE id = NEW.parent_session_id;
END;

CREATE TRIGGER sessions_child_delete AFTER DELETE ON sessions
WHEN OLD.parent_session_id IS NOT NULL BEGIN
    UPDATE sessions SET child_count = child_count - 1 WHERE id = OLD.parent_session_id;
END;

CREATE TRIGGER sessions_child_move AFTER UPDATE OF parent_session_id ON sessions
WHEN OLD.parent_session_id IS NOT NEW.parent_session_id BEGIN
    UPDATE sessions SET child_count = child_count - 1 WHERE id = OLD.parent_session_id;
    UPDATE sessions SET child_count = child_count + 1 WHERE id = NEW.parent_session_id;
END;

-- The large per-session documents live apart from the counters: every
-- appended message updates the sessions row, and SQLite rewrites a whole
-- row (overflow pages included) when it changes.
CREATE TABLE session_state (
    session_id    TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    system_prompt TEXT,
    todo          TEXT
);

CREATE INDEX idx_sessions_last_active ON sessions(last_active DESC, id DESC);
CREATE INDEX idx_sessions_source ON sessions(source, last_active DESC, id DESC);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_cwd ON sessions(cwd, last_active DESC);
CREATE UNIQUE INDEX idx_sessions_title ON sessions(title) WHERE title IS NOT NULL;

CREATE TABLE messages (
    id                INTEGER PRIMARY KEY,
    session_id        TEXT NOT NULL REFERENCES sessions(id),
    seq               INTEGER NOT NULL,
    role              TEXT NOT NULL,
    content           TEXT NOT NULL DEFAULT '',
    tool_calls        TEXT,
    tool_call_id      TEXT,
    name              TEXT,
    reasoning         TEXT,
    reasoning_details TEXT,
    reasoning_items   TEXT,
    finish_reason     TEXT,
    timestamp         INTEGER NOT NULL,
    -- token_count is an estimate (about 4 characters per token) made when
    -- the row is written; provider-reported usage lives on the session.
    token_count       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (session_id, seq)
);

-- Keeps the session's counters and preview current in the same statement
-- that appends a message, so an append is one write.
CREATE TRIGGER messages_session_counters AFTER INSERT ON messages BEGIN
    UPDATE sessions SET
        message_count = message_count + 1,
        last_active = max(last_active, NEW.timestamp),
        preview = CASE WHEN preview = '' AND NEW.role = 'user'
                       THEN substr(NEW.content, 1, 200) ELSE preview END
    WHERE id = NEW.session_id;
END;

CREATE VIRTUAL TABLE messages_fts USING fts5(
    content,
    content = 'messages',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (NEW.id, NEW.content);
END;

CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', OLD.id, OLD.content);
END;

CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', OLD.id, OLD.content);
    INSERT INTO messages_fts(rowid, content) VALUES (NEW.id, NEW.content);
END;
