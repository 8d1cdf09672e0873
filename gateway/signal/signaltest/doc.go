// Package signaltest is a fake signal-cli daemon's HTTP interface
// (signal-cli daemon --http) for tests: JSON-RPC 2.0 at POST
// /api/v1/rpc and server-sent events at GET /api/v1/events, on an
// httptest server at 127.0.0.1.
//
// People (Person: a number, a UUID, a name) write to the bot's account
// in direct chats and groups: Say, SayWithAttachment and React push a
// receive event as signal-cli would, with the envelope it would build
// (sourceNumber, sourceUuid, sourceName, dataMessage with groupInfo,
// mentions as U+FFFC placeholders, quote, attachments, reaction).
// Redeliver pushes a message said before once more.
//
// Events are kept as the daemon keeps them: each has an id
// "<start>-<sequence>"; a stream opened with a Last-Event-ID header first
// gets the kept events after it (all of them for an id it does not know),
// one opened without gets only new events. Disconnect drops every open
// stream and refuses new ones (503) until Reconnect; events pushed
// meanwhile wait in the buffer.
//
// The bot's sends are answered as signal-cli answers them ({timestamp,
// results}) and kept per chat with their history of edits (send with
// editTimestamp). Faults: HoldSends keeps new sends (not edits)
// unanswered until ReleaseSends (a send whose client goes away is
// dropped, as one that never reached Signal); FailNextSend answers the
// next send with a JSON-RPC error, RateLimit with signal-cli's rate limit
// error (-5) and retryAfterSeconds, and every send or edit before that
// time has passed counts in EarlyRetries. getAttachment serves the
// people's attachments by id; sendTyping is accepted.
package signaltest
