// Package mattermosttest is a fake Mattermost server for tests: a real
// HTTP server on 127.0.0.1 serving the REST API v4 endpoints a bot uses
// and the websocket, with what a test needs to script the server's
// failures and read what the bot did.
//
//	srv := mattermosttest.NewServer(t)
//	srv.AddUser("alice...", "alice")
//	srv.AddChannel("dm-alice", "D")
//	// point the adapter at srv.URL() with mattermosttest.Token
//	p := srv.Say("dm-alice", "alice...", "", "hello") // pushed as a posted event
//	_ = srv.Wait(ctx, func() bool { return len(srv.BotPosts("dm-alice")) > 0 })
//
// # REST API
//
// GET /users/me, /users/{id}, /users/me/channels (the channels with
// their last_post_at), POST /users/me/typing, POST /posts (root_id must
// name a post; a message over 16,383 characters is refused 400; a
// channel the bot is not in is refused 403), GET /posts/{id}, PUT /posts/{id}/patch (props
// replace the post's, so a patch without attachments removes the
// buttons; History keeps every version), POST /posts/ephemeral, GET
// /channels/{id}/posts?since= ({order, posts}, newest first), POST
// /files and GET /files/{id}. Every request must carry "Authorization:
// Bearer "+Token (else 401). Fail scripts an endpoint's next answers (a
// 429 with Retry-After and X-RateLimit-Reset, or any status); an
// enforced 429 keeps the channel limited until it passes, and
// EarlyRetries counts the writes that came sooner. Hold keeps an
// endpoint's calls in flight until Release; a held call whose client
// goes away changes nothing. Calls lists every request with its channel,
// status and time.
//
// # Websocket
//
// /api/v4/websocket waits for an authentication_challenge with the token,
// answers {"status":"OK","seq_reply":N} (FAIL for a wrong token), says
// hello, then carries a posted event (the post as a JSON string in
// data.post, with channel_type and mentions) for each post, the bot's
// own included, in order. Disconnect drops the sockets without a close frame and holds new
// ones until Reconnect: posts made meanwhile are only in their channels,
// for the bot to read with the REST API. Redeliver sends a post's event
// again.
//
// Say, Mention and SayWithFiles (with files made by AddFile, whose
// metadata the post carries) record a person's post.
//
// # Buttons
//
// A post's props.attachments[].actions are its Buttons. Click presses
// one as a person: the server posts {user_id, channel_id, post_id,
// context} to the button's integration URL, shows the answer's
// ephemeral_text to the presser alone (Ephemerals) and applies an
// update. Wait blocks until a condition on the fake holds, waking on
// every change. Unknown paths are listed and fail the test at cleanup
// unless AllowUnexpected was called. A Server is safe for concurrent use.
package mattermosttest
