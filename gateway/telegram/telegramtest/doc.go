// Package telegramtest is a fake Telegram Bot API for tests: a real
// HTTP server on 127.0.0.1 that serves one bot at
// URL()/bot<token>/<method> and its files at URL()/file/bot<token>/<path>,
// written from the Bot API's documentation.
//
//	srv := telegramtest.NewServer(t, telegramtest.Options{})
//	alice := telegramtest.User{ID: 1001, FirstName: "Alice"}
//	dm := srv.DM(alice)
//	srv.SendText(alice, dm, "hello")   // queued for the bot's getUpdates
//	// ... run the bot against srv.URL() with srv.Token() ...
//	srv.WaitFor(5*time.Second, func() bool { return len(srv.BotMessages(dm)) == 1 })
//	reply := srv.BotMessages(dm)[0]    // as alice reads it, after edits
//
// Methods: getMe, getUpdates, setWebhook, deleteWebhook, getWebhookInfo,
// sendMessage, editMessageText, sendPhoto, sendDocument (multipart
// uploads or a file_id), sendChatAction, answerCallbackQuery,
// setMyCommands, getMyCommands, getFile. Parameters are read from JSON,
// urlencoded and multipart bodies. A wrong token gets 401.
//
// Telegram's rules the fake keeps, so a bot that breaks them fails here:
//   - getUpdates forgets every update below the offset asked for, for
//     good; it holds the request until an update arrives or its timeout
//     passes; one poller at a time: another getUpdates while one is held
//     gets 409 "Conflict: terminated by other getUpdates request", and
//     getUpdates while a webhook is set gets 409 as well;
//   - with a webhook set, updates are posted to it one at a time with
//     X-Telegram-Bot-Api-Secret-Token, and posted again (after
//     Options.WebhookRetry) until it answers 2xx;
//   - HTML parse mode is parsed: an unknown tag, an end tag closing
//     nothing open or a tag left open is 400 "can't parse entities"; a
//     text empty or over 4,096 characters after parsing is refused;
//   - editMessageText that changes neither text, entities nor keyboard is
//     400 "message is not modified";
//   - callback_data must be 1 to 64 bytes (BUTTON_DATA_INVALID);
//   - a press is answered at most once;
//   - command names are [a-z0-9_]{1,32}.
//
// Scripting: Fail queues error answers for a method (RetryAfter(n),
// Blocked, Kicked, ChatNotFound, ParseEntities, NotModified, Conflict,
// BadGateway, or any APIError); a 429 also starts a flood wait for its
// chat, during which every message sent to or edited in the chat gets
// 429 and is counted by EarlyRetries. Block and Kick make sends to a
// chat fail with 403 as Telegram's do. StartConflict/EndConflict play
// another process polling with the token; DropPolls hangs up on held
// polls and SetDown on every request, as a broken network does. Hold
// keeps a method's calls in flight, unanswered, until Release (a held
// call whose client goes away changes nothing).
//
// People: DM, Group and Forum make chats; SendText, SendPhoto, SendVoice
// and SendDocument post a person's message (with @mention and /command
// entities, as Telegram marks them; ReplyTo and InTopic options) and
// queue its update; Redeliver queues a message again under a new
// update_id; Press presses a button of the bot's message.
//
// Reading: Messages and BotMessages show a chat as its members see it
// now; Answer is the bot's answer to a press; Commands its menu; Calls
// every request with its parameters, uploads, time and answer (file
// downloads as method "file"); Pending and Delivered tell which updates
// were confirmed and how often each was handed out; WaitFor waits for a
// condition, woken by every change.
package telegramtest
