// Package gateway runs the agent in chat platforms: one process serves
// every platform config.yaml enables, each through an Adapter (one
// package per platform: gateway/telegram, gateway/slack,
// gateway/discord), and every chat is a conversation of one app.Runtime.
//
// Who may talk: a platform's Access (allowed users, admins, allow-all)
// and the users approved by pairing. Anyone else writing in a direct
// chat gets one reply holding a pairing code (`hermes pairing approve`),
// and nothing they send reaches the model; in a group they are ignored.
// Admins may use every slash command; other allowed users get the safe
// set (help, new, stop, retry, undo, compress, usage, title, context,
// status, approve, deny and the skills); /sethome is an admin's. /yolo
// does not exist here. In groups the bot answers when addressed
// (mentioned or replied to) unless Access says otherwise for the chat.
//
// Chats: direct chats are keyed by user, groups by chat, thread and
// (unless GroupSessionsPerUser is off) user. The store maps each chat to
// its session, so a chat continues across messages and restarts; /new
// starts another. A conversation is opened for a turn (or a command) and
// closed after it: nothing of it stays in memory between turns, and an
// idle chat is forgotten. Before a turn the conversation is compressed
// once it is 85% full. At most MaxConcurrentTurns turns run at once; the
// other chats' messages wait in their queues.
//
// Messages: each is deduplicated by its platform id (Store.Seen, kept in
// SQLite across restarts), then stored in its chat's queue before the
// adapter may confirm it, and taken off the queue when its turn starts
// (a crash during a turn never runs its tools twice). While a turn runs,
// BusyMode decides: interrupt stops it at its next tool boundary and the
// message is the next turn; queue keeps every message in order and says
// so once stored; steer adds it to the running turn at its next model
// call (or, when the turn ended first, runs it next).
//
// Questions: a dangerous command posts the command, why it was flagged
// and the deadline with buttons (Once, Session, Always for admins, Deny);
// only the person whose message started the turn may answer, by button
// or /approve and /deny (which skip the busy queue); anyone else is told
// so privately and nothing changes; no answer within ApprovalTimeout
// denies. Clarify questions post their choices as buttons the same way;
// the requester's next message answers too.
//
// Replies: the answer streams into one message edited at most once per
// EditInterval with its complete paragraphs (package format), so each
// edit is a prefix of the next, and the final text replaces the draft by
// an edit. Long answers are cut at paragraph or code-block boundaries
// under the platform's limit, in its markup; a platform that refuses
// the markup gets plain text. A status line lists the tools a turn
// called. Images go to the model (or, when it cannot see, are saved for
// vision_analyze); other files are saved under CacheDir and named to the
// model; a MEDIA:/path line in an answer attaches a file from the
// workspace or the cache.
//
// Delivery: every reply is a row of the delivery ledger (Store, Sender)
// written before it is sent. A reply caught between sending and
// delivered by a crash is sent once on restart, marked "(recovered)"; a
// rate limit is waited out by the ledger, per chat, in order; a chat that
// is gone or blocked the bot is failed, never retried.
//
// Run drains when its context ends: the adapters stop, running turns get
// DrainTimeout, their replies are delivered. Once no chat has worked for
// IdleAfter, the stores' caches are handed back (ReleaseMemory).
//
// Messages that answer no chat (a cron job's answer, a webhook run's)
// go out through an Outbox: to a named chat, or to the platform's home
// channel (home_channel in config.yaml, or the chat where an admin sent
// /sethome). They are rows of the same ledger. The gateway's Outbox uses
// its senders; a process beside it (hermes cron daemon) makes its own,
// whose senders deliver only the rows it wrote. The ledger is shared
// safely: a row is claimed before it is sent, so two processes never send
// it twice, and with LedgerPoll the gateway sends what another process
// left owed.
package gateway
