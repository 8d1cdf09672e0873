// Package signal is the gateway's Signal platform: a gateway.Adapter on
// the HTTP interface of a signal-cli daemon (signal-cli -a NUMBER daemon
// --http), with nothing but net/http: JSON-RPC 2.0 calls at POST
// Options.HTTPURL/api/v1/rpc, server-sent events at GET /api/v1/events.
//
// Receiving. Run keeps the event stream open and reads each event's
// envelope. A person's dataMessage is an Inbound: in a direct chat the
// ChatID is the person's number (their UUID when they hide it); in a
// group it is the group's id (base64, as signal-cli's listGroups shows
// it; no chat id holds a colon, so any can be a home channel or a
// delivery target signal:CHAT), and the message is Addressed when
// it mentions the bot's number (the mention is taken out of the text;
// other mentions read @name), quotes one of the bot's messages, or
// starts with a command (/new). UserID is the sender's number, or their
// UUID only when they hide their number: allowed_users and admin_users
// list people by number, and by UUID those whose number Signal does not
// show. MessageID is "sender:timestamp", unique
// on Signal, the gateway's deduplication key. Attachments are fetched
// from the daemon by getAttachment (base64, with the sender or group
// signal-cli asks for); a voice note is an audio file without a name.
// Receipts, typing notices, syncs from the account's other devices and
// edits of a person's message are passed over.
//
// Nothing skipped, nothing handled twice. Each event the handler took is
// remembered by its id, in Options.KV under "signal:<account>:event";
// the stream is opened with that id as Last-Event-ID, and the daemon
// first sends the events it kept after it (signal-cli's HTTP daemon
// keeps its last 1,000; for an id of an earlier daemon run it sends them
// all, and the gateway's deduplication drops those already answered; a
// daemon too old to keep events sends only new ones). An event the
// handler refuses ends the stream, which is opened again from the event
// before it. Messages that came while the stream was down, or while the
// gateway was stopped, arrive so when the daemon kept running.
//
// Connection state. Handler.State says connected (the account's number)
// once the daemon answers the event stream, and not connected, with the
// reason, when it cannot be reached, refuses the stream or drops it;
// the stream is opened again after Options.Backoff, doubling up to
// Options.MaxBackoff, on a timer that ctx ends. Run returns only when
// ctx ends.
//
// Sending. Send is send with recipient or groupId, quoting the message
// it replies to (quoteTimestamp and quoteAuthor); its id is the
// timestamp signal-cli answers. Edit is send with editTimestamp: Signal
// shows the new text as an edit of the same message, so answers stream
// by edits (Signal's apps may refuse edits of a message older than a
// day). Upload sends the file inline as a data URI
// (data:<type>;filename=<name>;base64,...), so the daemon need not share
// the bot's disk, up to Signal's 100 MB. Typing is sendTyping. Errors:
// signal-cli's rate limit error (-5), or a send whose recipients all
// failed with RATE_LIMIT_FAILURE, is a SendError with the longest
// retryAfterSeconds (30s when none is given); a user error (-1: no such
// group, a number not on Signal), a changed safety number (-4), invalid
// parameters, or recipients that are unregistered or untrusted are
// Permanent; an I/O error (-3), an internal error and transport failures
// are plain errors the gateway retries.
//
// Buttons. Signal has none: a message's buttons are listed under its
// text after "React to choose:", each after a keycap emoji (1️⃣, 2️⃣, ...,
// at most ten). A reaction with that emoji on the message is a
// gateway.Click with the button's data from the person who reacted, so
// the gateway's rule that only the requester's answer counts holds; its
// Answer is a direct message to that person alone. An edit without
// buttons forgets them, and only the last 256 messages with buttons are
// remembered. Approvals may also be answered with /approve and /deny.
//
// Concurrency: Run runs once at a time and calls the handler from one
// goroutine. Send, Edit, Upload and Typing may be called from any
// goroutine, also while Run runs.
package signal
