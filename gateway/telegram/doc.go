// Package telegram is the gateway's Telegram platform: a gateway.Adapter
// (and gateway.Commands) on the Bot API, through
// github.com/go-telegram/bot pointed at Options.APIURL.
//
// Receiving. By default the adapter long-polls getUpdates (after
// deleteWebhook); with Options.WebhookURL it registers a webhook with a
// secret token and serves Telegram's posts instead, refusing any post
// without the token. Private chats are DMs; groups and supergroups are
// Groups, where a message is Addressed when it mentions @bot (the mention
// is taken out of the text), replies to one of the bot's messages, or
// starts with a command that is not another bot's (/cmd or /cmd@bot).
// A forum topic is ChatRef.ThreadID; MessageID is "chat:message". Photos
// (largest size), voice notes, audio, video and documents are
// attachments, fetched by getFile and the file URL; a caption is the
// Text. Button presses are Clicks.
//
// Nothing skipped, nothing handled twice. An update is confirmed to
// Telegram (by asking for the next offset) only after Handler.Message
// returned nil for it, or Handler.Click returned; an update the handler
// refused is asked for again after a backoff. The next offset is saved in
// Options.KV under "telegram:<bot id>:offset" after every update, so a
// new process resumes exactly there. In webhook mode an update the
// handler refused is answered 500 and Telegram posts it again.
//
// Connection state. Handler.State says connected ("@username") only
// after getMe and a getUpdates that succeeded (after a 409, one that
// brought updates or held its full long poll; in webhook mode, after
// setWebhook); every failure reports not connected with the reason —
// "409 conflict: another getUpdates is running with this token" when
// another process polls with the same token — and is retried after a
// backoff (Options.Backoff doubling to Options.MaxBackoff, or Telegram's
// retry_after), on a timer that ctx ends. Run returns an error only when
// Telegram refuses the token or the webhook cannot listen.
//
// Sending. Send is sendMessage in HTML parse mode (unless Plain) with
// reply parameters, forum topic and an inline keyboard; Edit is
// editMessageText; Upload is sendPhoto for images up to 10 MB and
// sendDocument otherwise; Typing is sendChatAction. Refusals are
// *gateway.SendError: 429 carries retry_after; 403 (blocked, removed) and
// every 400 are Permanent except "can't parse entities" (Format) and
// "message is not modified" (NotModified). Button data over 64 bytes, a
// missing file or one over 50 MB are Permanent SendErrors found before
// any request. Network failures and 5xx answers are plain errors.
//
// Button presses. Every press is answered exactly once, because
// Telegram shows a spinner on the button until it is: with the text the
// handler passes to Click.Answer if it calls it within
// Options.AnswerTimeout, otherwise with an empty answer when that time is
// up or Run ends. An Answer after that returns an error.
//
// Concurrency: Run runs once at a time and calls the handler from one
// goroutine (long polling) or from the webhook's requests (Telegram is
// asked for one connection at a time). Send, Edit, Upload, Typing and
// SetCommands may be called from any goroutine, also while Run runs.
package telegram
