// Package discord connects the gateway to Discord through
// github.com/bwmarrin/discordgo: a bot account's gateway websocket brings
// messages, button presses and slash commands, its REST API sends, edits
// and uploads, and registers the command menu.
//
// # Where requests go
//
// discordgo names Discord's endpoints in package variables and has no
// URL option, so the adapter gives its session an HTTP client whose
// transport sends every request for discord.com to Options.APIURL
// instead; the websocket's URL comes from that server's answer to GET
// /api/v9/gateway. The fake in discordtest is such a server.
//
// # Messages
//
// Every MESSAGE_CREATE from a person becomes an Inbound: the bot's own
// messages, other bots', webhooks' and system messages are dropped. A
// message without a guild is a DM (always Addressed); in a guild it is
// Addressed when it mentions the bot (<@id> or <@!id>, removed from the
// text) or replies to one of the bot's messages. A thread is a channel of
// its own on Discord: a message in one belongs to ChatRef{ChatID: the
// channel the thread started in, ThreadID: the thread}; the adapter
// learns threads from THREAD_CREATE and GUILD_CREATE and looks up a
// channel it has not heard of once (GET /channels/{id}), remembering at
// most 4,096 channels. MessageID is the message's snowflake, unique on
// Discord. Attachments download from their URL through the same client.
//
// # Sending
//
// Send, Edit, Upload and Typing post to the thread when ChatRef has one.
// Messages notify only the person they reply to: @everyone, @here, role
// and user mentions in the text notify nobody (allowed_mentions parse is
// empty). Buttons become action rows (five buttons a row, five rows a
// message) with custom_id = Data; Deny buttons are red, Once green.
//
// Every refusal Discord answers is a *gateway.SendError: 429 carries
// RetryAfter from the body's retry_after, else the Retry-After header;
// 401, 403 (50001 missing access, 50007 cannot message this user, 50013),
// 404 (10003 unknown channel, 10008 unknown message) and 413 are
// Permanent. discordgo neither retries nor sleeps: a 429 comes back at
// once, and a call whose rate limit bucket discordgo knows to be spent
// is refused with the bucket's wait instead of sleeping until it resets,
// so the gateway's ledger does all the waiting. Failures to reach Discord
// are plain errors.
//
// # Button presses
//
// A press (INTERACTION_CREATE, a message component) is acknowledged at
// once with a deferred update (type 6), then handed to Handler.Click with
// Data = custom_id and UserID = the member's (or DM user's) id.
// Click.Answer posts an ephemeral followup (flags 64) through the
// interaction's webhook: only the clicker sees it.
//
// # The command menu
//
// SetCommands (gateway.Commands) fills Discord's menu of slash commands:
// the list becomes the application's global commands in one bulk
// overwrite (PUT /applications/{id}/commands), each a CHAT_INPUT command
// with its description (on one line, cut to 100 characters) and one
// optional string option, "text", for what follows the command. A name
// Discord would refuse (it must match ^[-_a-z0-9]{1,32}$), a name given
// twice and every command after the 100th are left out and logged, so
// one bad skill name does not cost the whole menu. The application id
// comes from READY; a list set before READY (the gateway sets it before
// Run) is kept and registered once READY arrives, retried with backoff
// while Discord cannot be reached or answers 5xx or 429, logged when
// Discord refuses it. After READY, SetCommands registers at once and
// returns Discord's refusal as a *gateway.SendError.
//
// Using a command (INTERACTION_CREATE, an APPLICATION_COMMAND) is a
// message to the gateway: Text "/name text", UserID the member's (or DM
// user's) id, the chat and thread as for messages, a DM when there is no
// guild, always Addressed, MessageID "interaction:<id>" (so a replayed
// interaction is dropped as a duplicate). Discord shows "the application
// did not respond" unless an interaction is answered within three
// seconds, so the adapter answers as soon as Handler.Message returns,
// without waiting for the gateway's reply: with a message the channel
// sees (type 4) echoing the command as typed ("/title my plans"), or,
// when Message returned an error, an ephemeral one (flags 64) saying
// "could not take this command: ..." to its user alone. The gateway then
// replies in the channel as to any message; a Send or Upload to the
// channel waits (at most three seconds) until the echo is posted, so a
// quick command's answer never shows above the command.
//
// # The connection
//
// Run checks the token (GET /users/@me), then opens the gateway. It
// reports connected, as "@name", on READY and RESUMED, and not connected,
// with the reason, whenever a socket closes. discordgo's own reconnecting
// is off: Run reconnects, resuming the session so Discord replays the
// events the socket missed, waiting Backoff (doubling after each failed
// attempt, up to MaxBackoff). A socket that stops acknowledging
// heartbeats is a zombie: the adapter sends a heartbeat of its own every
// HeartbeatTimeout and, when the previous one went unanswered, reports
// "heartbeat not acknowledged: reconnecting", cuts the socket and
// resumes on a new one. Run returns an error only when Discord refuses
// the bot for good: a 401 token, or gateway close codes 4004 and
// 4010-4014 (4014: the Message Content intent is not enabled for the
// bot).
//
// # Catching up
//
// Discord replays missed events only to a session that still lives.
// After a restart, or when Discord ended the session, the adapter reads
// the history of the 50 channels most recently active (their last
// handed-over message ids are kept in Options.KV) and hands over what
// was said since, oldest first, up to a day old and 100 messages a
// channel. The gateway drops a message it gets twice by its id.
//
// # Concurrency
//
// Handler methods are called from discordgo's reading goroutine, in the
// order events arrive (catching up, and registering a command menu that
// waited for READY, run beside it). Send, Edit, Upload
// and Typing may be called from any goroutine. Run runs once at a time.
package discord
