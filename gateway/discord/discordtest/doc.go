// Package discordtest is a fake Discord for tests: the REST API a bot
// calls (under /api/v9) and the gateway websocket it listens on, served
// on 127.0.0.1 by a real HTTP server, so that a discordgo session runs
// against it unchanged once its REST calls are sent to URL().
//
//	srv := discordtest.NewServer(t)
//	// an adapter with APIURL: srv.URL(), Token: srv.Token()
//	alice := discordtest.User{ID: "2001", Username: "alice"}
//	srv.PushDM(alice, "hello")                    // MESSAGE_CREATE
//	srv.PushMention("3001", alice, "summarise")   // "<@bot> summarise"
//	sent := srv.Messages(srv.DMChannel(alice))     // what the channel shows
//
// # The gateway
//
// GET /api/v9/gateway (and /gateway/bot) answer with the fake's ws://
// URL. On a socket the fake sends op 10 HELLO with the heartbeat
// interval (SetHeartbeatInterval; Discord's 41.25 s by default), expects
// op 2 IDENTIFY with the bot token (else it closes with 4004) or op 6
// RESUME, answers op 1 heartbeats with op 11, and sends READY (with a
// session_id) then a GUILD_CREATE per guild it knows. Events are
// numbered (s) per session and kept: a RESUME naming the session gets
// every event after the sequence it names, then RESUMED, so a client
// that lost its socket loses nothing and sees nothing twice; a RESUME of
// an unknown or ended session gets op 9 INVALID SESSION. A client
// closing with 1000 or 1001 ends its session, as on Discord.
//
// Tests drive the socket with Drop (cut it without a close frame),
// HoldSockets (new sockets wait before opening until ReleaseSockets: a
// network that stays down), Reconnect (op 7), InvalidateSession (op 9),
// WithholdAcks (a zombie socket that never acknowledges a heartbeat) and
// AllowMessageContent (4014 for a bot asking for the privileged intent).
// Push, PushDM, PushMention, Redeliver (the same MESSAGE_CREATE, same
// id, once more), CreateThread (THREAD_CREATE), Click
// (INTERACTION_CREATE for a button) and SlashCommand (INTERACTION_CREATE
// for a registered slash command, with the value of its "text" option)
// send what people do; Dispatch sends any event. READY names the
// application (ApplicationID, SetApplicationID).
//
// # The REST API
//
// GET /users/@me, GET /channels/{id}, GET /channels/{id}/messages
// (after, limit), POST /channels/{id}/messages (JSON or multipart with
// payload_json and files[n]), PATCH /channels/{id}/messages/{id}, POST
// /channels/{id}/typing, POST /interactions/{id}/{token}/callback and
// POST /webhooks/{application}/{token} (followups), and PUT
// /applications/{application}/commands (the bulk overwrite of the global
// commands; Commands reads them, CommandsUpdated signals the next). The
// fake checks what Discord checks and answers with Discord's codes: the
// bot token (401), unknown channels (404 10003) and messages (10008),
// content over 2,000 characters (400 50035), empty messages (50006),
// components (at most 5 rows of 5 buttons, custom_id 1 to 100
// characters), a second response to one interaction (40060), editing
// someone else's message (50005), and commands (400 50035, and nothing
// registered, for a name not matching ^[-_a-z0-9]{1,32}$, a description
// not 1 to 100 characters, a name twice, more than 100 commands or 25
// options; it knows CHAT_INPUT commands only). HoldInteractionResponses
// keeps responses to interactions waiting until released, as a slow
// network would; Hold keeps the REST calls it matches unanswered until
// Release (Held counts them), and a held call whose client goes away is
// served not at all, as one that never reached Discord.
//
// Fail scripts refusals for the next calls to a path: RateLimit (429
// with retry_after in the body, Retry-After and X-RateLimit-* headers,
// or Cloudflare's HTML with only Retry-After; with Enforce, every write
// to the channel before the wait passed is refused too and counted by
// EarlyRetries), CannotMessageUser (403 50007), MissingAccess (403
// 50001), UnknownChannel, ServerError.
//
// # Reading what happened
//
// Requests records every REST call (method, path, headers, body, decoded
// JSON or multipart parts, the status answered); Ops every gateway
// payload clients sent; Messages a channel as its members see it (latest
// content, buttons, attachments, the bot's text after each edit in
// History, and interaction responses that are not ephemeral);
// Interactions each press and slash command with the callback types and
// the replies (ephemeral ones only its user sees), Answered signals the
// first response to one; Typing, Identifies and Resumes count. WaitFor
// waits for a condition, checking it at every change the fake sees.
//
// All methods are safe for concurrent use.
package discordtest
