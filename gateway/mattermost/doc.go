// Package mattermost is the gateway's Mattermost adapter, over the
// server's REST API v4 and its websocket, with net/http and
// gorilla/websocket.
//
// # Receiving
//
// Run identifies the bot with GET /api/v4/users/me (a token the server
// refuses, 401, ends Run with an error), opens the button endpoint, then
// opens the websocket (/api/v4/websocket), authenticates it with an
// authentication_challenge carrying the token and reports the platform
// connected once the server answers OK. A dropped socket, one the
// server closes, or one silent for PingTimeout is opened again after a
// backoff (Backoff doubled per failure in a row, up to MaxBackoff); each
// change is reported through Handler.State with its reason.
//
// A person's new post (a posted event; the post is JSON inside
// data.post) becomes an Inbound: a DM in a channel of type "D", else a
// Group message that is Addressed when it mentions the bot (data.mentions
// names it, or the text holds @username, which is taken out of the text)
// or is in a thread the bot posted in (kept in Options.KV) or started
// (the root post's author, read with GET /posts/{id}). System posts, deleted
// posts and bots' posts (the bot's own above all) are ignored. The
// MessageID is the post's id; ChatRef is the channel and the root_id.
// Files become Attachments downloaded from GET /api/v4/files/{id} with
// the token.
//
// Nothing posted while the socket was down is lost: every post handed on
// records its channel (with its type) and its creation time in
// Options.KV, and each (re)connect first reads, for the channels seen
// and the bot's channels with a post since (GET /users/me/channels), the
// posts made since the last one read (GET /channels/{id}/posts?since=),
// oldest first, before the socket's events. A post read twice (by the
// catch-up and by the socket) is handed on once: the adapter remembers
// the last 4096 post ids, and the gateway's store deduplicates across
// restarts. A post the Handler could not store ends the session, so the
// catch-up of the next one reads it again.
//
// # Buttons
//
// An Outbound's Buttons become interactive message buttons: one message
// attachment whose actions each carry an integration {url, context}.
// The url is the adapter's endpoint (ActionsPath), listening on
// Options.ActionsListen (a free loopback port by default, which a server
// on the same host reaches once 127.0.0.1 is among its
// AllowedUntrustedInternalConnections) and named to the server as
// Options.ActionsURL when set (a public URL for a server elsewhere). The
// context holds the button's Data, its thread and a secret made for the
// run: the server sends the context back with a press, and never shows
// it to clients. A press whose secret does not match (compared in
// constant time) is answered 403 and changes nothing; the others become
// a Click whose Answer is the response's ephemeral_text, seen by the
// presser alone (after ClickWait, an ephemeral post instead). The post is
// left as it is: a refused click leaves the card, and the gateway edits
// the card to close it. Buttons of a previous run are refused.
//
// # Sending
//
// Send posts with POST /api/v4/posts (root_id for a thread, so replies
// go in it) and returns the post's id, which Edit takes (PUT
// /posts/{id}/patch, whose props replace the old ones: an edit without
// buttons removes them). Text is Markdown; plain text is escaped. Upload
// sends the file (POST /files) then a post holding it, with the caption.
// Typing posts /users/me/typing.
//
// Failures the server answered are *gateway.SendError: a 429 carries its
// Retry-After (or X-RateLimit-Reset); 400, 401, 403, 404 and 413 are
// Permanent (the channel is gone or closed to the bot). Transport
// failures and 5xx answers are plain errors, retried by the gateway.
//
// The threads the bot replied in are kept in Options.KV so that replies
// in them stay addressed to it after a restart.
package mattermost
