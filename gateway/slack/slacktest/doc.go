// Package slacktest is a fake Slack for tests: a real HTTP server on
// 127.0.0.1 that serves the Web API methods a bot uses, Socket Mode's
// websocket, the files a bot downloads and uploads, and that can deliver
// events to an Events API endpoint the way Slack does, signed with the
// app's signing secret.
//
//	srv := slacktest.NewServer(t)
//	// point the adapter at srv.APIURL() with slacktest.BotToken and slacktest.AppToken
//	p := srv.DM("U1", "hello")       // a direct message, pushed on the socket
//	_ = srv.Wait(ctx, func() bool { return srv.Acked(p.Envelopes[0]) })
//	msgs := srv.Messages(p.Channel)  // the channel as its members see it
//
// # Web API
//
// Requests go to APIURL()+method: auth.test, apps.connections.open,
// chat.postMessage, chat.update, chat.postEphemeral, users.info,
// files.getUploadURLExternal and files.completeUploadExternal (with the
// upload URL in between), and GET on a file's url_private. Tokens are
// checked as Slack checks them (BotToken for the bot's methods, AppToken
// for apps.connections.open; a wrong one is answered invalid_auth or
// not_allowed_token_type), and so are the limits a bot can hit: a text
// over 40,000 characters (msg_too_long), a section over 3,000 characters,
// a button label over 75, a value over 2,000 or an action_id used twice
// in a message (invalid_blocks). chat.update keeps a message's blocks
// unless the request sends blocks, as Slack does; an empty list removes
// them. Fail scripts an answer for a method's next calls: an HTTP 429
// with a Retry-After header, an error code such as channel_not_found or
// invalid_blocks, or a bare HTTP status such as 503. An enforced 429
// (Failure.Enforce) keeps its channel rate limited until Retry-After has
// passed, and EarlyRetries counts the posts that came sooner. Hold keeps
// a method's calls in flight, unanswered, until Release (a held call
// whose client goes away changes nothing). Calls lists every request
// with its parameters and time.
//
// # Socket Mode
//
// apps.connections.open answers a ws://127.0.0.1 URL with a one-time
// ticket. A socket gets a hello, then every envelope not yet
// acknowledged; envelopes pushed later go to the newest socket. An
// envelope stays pending until the client answers {"envelope_id": ...};
// when a new socket opens, the pending ones are delivered again with
// retry_attempt increased and retry_reason "timeout", as Slack re-delivers
// what a client did not acknowledge. (Slack also re-delivers on the same
// socket after a few seconds; the fake does only on a new socket, so a
// test decides when, or with Redeliver, which sends an envelope's event
// again as a retry.) DropSocket closes the socket without a close frame;
// Disconnect sends a disconnect envelope and sends nothing more on that
// socket. The server pings every socket (Options.PingInterval).
//
// # People
//
// DM, Say, Mention, Reply and Post record a person's message in its
// channel and deliver its events: a message event, and for a mention of
// the bot outside a DM an app_mention event as well, as Slack sends both.
// Click presses one of the bot's buttons (a block_actions interaction);
// PushEvent delivers any other event as given.
// Without UseEventsAPI events are envelopes on the socket; with it, each
// is a signed POST to the adapter's endpoints, answered before the helper
// returns. AddFile makes a file a person can attach.
//
// # Reading what the bot did
//
// Messages and Message show a channel as its members see it, after every
// chat.update (and History, every version they saw); Ephemerals the messages only one person saw; Uploads the
// files the bot shared. Wait blocks until a condition on the fake holds
// or the context ends, waking on every change, so tests do not sleep.
//
// Unknown methods and paths are answered as Slack answers them and listed
// by Unexpected; the test fails at cleanup unless AllowUnexpected was
// called. A Server is safe for concurrent use.
package slacktest
