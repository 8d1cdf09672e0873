// Package matrix is the gateway's Matrix platform, on the client-server
// API (maunium.net/go/mautrix): a bot account logged in by access token.
//
// Receiving: Run asks whoami who the bot is and long-polls /sync. A
// batch's next_batch token is stored in the gateway's KV only once every
// message of the batch was taken, so a restart resumes where the last
// process stopped: no event is skipped, and one a sync brings again is
// dropped by its event id (here and by the gateway's deduplication). A
// sync that leaves events out (its timeline limited: more came than it
// holds) is filled in with /messages back to the last token. The
// account's very first sync only learns the token: history from before
// the bot ran is not answered. /sync failures back off (doubling, up to
// a minute, or the homeserver's retry_after_ms) and State reports each
// change of the connection.
//
// Rooms: the bot joins a room it is invited to when the inviter is an
// allowed user (Options.Inviters) and logs other invites. A room of the
// bot and one person is a DM; any other is a group, where a message is
// addressed to the bot when it mentions it (m.mentions, its user id or
// display name), replies to one of its messages, or is a command. A
// thread (m.thread) is a ChatRef's ThreadID. Rooms with end-to-end
// encryption (m.room.encryption, or m.room.encrypted events) cannot be
// read: the bot says so once in the room (EncryptedNotice, remembered in
// the KV) and logs it, never ignoring the room silently.
//
// Sending: markdown is sent as a plain body with its HTML rendering in
// formatted_body; replies use m.in_reply_to, threads m.thread, edits
// m.replace. Every send carries a transaction id; a send whose request
// failed in transit keeps its id for the gateway's retry of it, and the
// homeserver answers a repeated transaction with the event it already
// made, so a retried send never posts twice. M_LIMIT_EXCEEDED is a
// SendError with the homeserver's retry_after_ms; M_FORBIDDEN (the bot
// was removed or may not speak) and an unknown room are permanent.
//
// Buttons: Matrix has none. A message's buttons are reactions the bot
// adds to it, their keys the buttons' labels ("Once ✅", "Deny ❌"), and
// a person's reaction with one of those keys is a Click with the
// button's data; the gateway checks who may answer. A Click's Answer is a
// notice (m.notice) in the room replying to the card and mentioning the
// person, as Matrix has no message only one member reads. An edit that
// drops the buttons redacts the bot's reactions. A reply "/approve" or
// "/deny" works as on every platform.
package matrix
