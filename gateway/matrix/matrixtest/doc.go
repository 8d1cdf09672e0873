// Package matrixtest is a fake Matrix homeserver for tests: the part of
// the client-server API the gateway's Matrix adapter uses (whoami,
// profile, /sync with since tokens and long-poll timeouts, join, room
// state and members, send with transaction ids, redact, typing, media
// upload and download), on an httptest server on 127.0.0.1.
//
// A test plays the people: Say posts a message as one, React reacts,
// Invite invites the bot, Encrypt turns encryption on in a room, and
// Redeliver hands an event to the bot again in a later sync, as a
// homeserver may after a lost response. It reads what the bot did with
// Messages (each message's current text, its history of edits and the
// reactions on it) and Requests, and injects faults: Hold keeps the
// bot's new messages in flight, RateLimitNextSend answers the next one
// with M_LIMIT_EXCEEDED (EarlyRetries counts writes to the room before
// the limit passed), SetDown hangs up on every request, open long polls
// included. A repeated transaction id is answered with the event it
// first made, as a homeserver does.
package matrixtest
