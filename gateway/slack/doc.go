// Package slack is the gateway's Slack adapter, on github.com/slack-go/slack.
//
// # Receiving
//
// Run identifies the bot with auth.test (a token Slack refuses ends Run
// with an error), then receives events one of two ways:
//
//   - Socket Mode (the default, Options.AppToken): apps.connections.open
//     gives a websocket URL; every envelope is acknowledged with its
//     envelope_id once handled. A message the Handler could not store is
//     not acknowledged, so Slack delivers it again. A disconnect envelope
//     opens a new socket at once; a dropped socket, or one silent for
//     PingTimeout, is reopened after a backoff (Backoff doubled per
//     failure in a row, up to MaxBackoff). Each change is reported
//     through Handler.State with its reason.
//   - the Events API (Mode "events"): an HTTP endpoint on EventsListen
//     serves EventsPath and InteractivePath. Every request must carry a
//     valid X-Slack-Signature made with the signing secret and a
//     timestamp within 5 minutes of the wall clock (slack-go's
//     SecretsVerifier); any other is answered 401 and nothing is handled.
//     The url_verification challenge is answered; an event is answered 200
//     once handled, 500 when its message could not be stored.
//
// A person's new message (no subtype, file_share or thread_broadcast)
// becomes an Inbound: a DM in an "im" channel, else a Group message that
// is Addressed when it mentions the bot (the mention is taken out of the
// text) or replies in a thread the bot started or posted in. Edits,
// deletions, other subtypes and every bot's messages are ignored. The
// MessageID is "channel:ts"; ChatRef is the channel and the thread_ts.
// Slack sends a message that mentions the bot twice, as a message and an
// app_mention event: the adapter hands the first one on and drops the
// second (it remembers the last 4096 message ids handed on; the gateway's
// own deduplication covers the rest). Files become Attachments that
// download url_private with the bot token, which slack-go sends only to
// Slack's hosts or the API URL's host.
//
// A press of one of the bot's buttons (block_actions) becomes a Click
// whose Data is the button's value and MessageID the ts of its message;
// Answer posts an ephemeral message to the presser alone
// (chat.postEphemeral), in the button's thread.
//
// # Sending
//
// Send posts with chat.postMessage (in ChatRef's thread when it has one)
// and returns the message's ts, which Edit (chat.update) takes. Text is
// mrkdwn, or escaped with formatting off when Plain. Buttons become
// Block Kit: the text in section blocks of at most 3,000 characters, then
// one actions block per row whose buttons carry Data as their value and
// an action_id unique in the message. An edit without buttons removes the
// old ones. Upload runs slack-go's files.uploadV2 flow and returns the
// file's id. Typing does nothing: Slack shows no typing for bots.
//
// Failures Slack answered are *gateway.SendError: a 429 carries its
// Retry-After; channel_not_found, not_in_channel, is_archived,
// account_inactive, invalid_auth and the like are Permanent;
// invalid_blocks is Format. Transport failures, 5xx answers and other
// error codes are plain errors, with the method named.
//
// The threads the bot posted in are kept in Options.KV (when set) so that
// replies in them stay addressed to the bot after a restart. Slack has
// no native command menu for a Socket Mode bot without changing its app
// manifest, so the adapter does not implement gateway.Commands.
package slack
