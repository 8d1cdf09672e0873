-- Responses the OpenAI-compatible API server returned (POST /v1/responses),
-- so a later request can continue from one (previous_response_id) and a
-- client can read or delete it; and the named conversations it keeps.
-- Both point into sessions: the transcript itself stays in messages.

CREATE TABLE api_responses (
    id          TEXT PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    -- message_count is how many messages the session held when the
    -- response was complete: continuing from an older response branches.
    message_count INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    body        TEXT NOT NULL
);

CREATE INDEX idx_api_responses_session ON api_responses(session_id);

CREATE TABLE api_conversations (
    name       TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    updated_at INTEGER NOT NULL
);

CREATE INDEX idx_api_conversations_session ON api_conversations(session_id);
