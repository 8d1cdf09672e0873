// Package email is the gateway's email platform: a gateway.Adapter that
// reads the bot's mailbox over IMAP (github.com/emersion/go-imap/v2) and
// answers over SMTP (github.com/emersion/go-smtp).
//
// Receiving. Run logs in, selects the folder (Options.Folder, INBOX) read
// only, and waits in IDLE for new mail, or, on a server without IDLE,
// asks every PollInterval. Each mail after the cursor is fetched whole
// (up to 32 MB; past that its headers alone) and handed to the handler,
// oldest first. The cursor — the folder's UIDVALIDITY and the last UID
// handed over — is saved in Options.KV after every mail, once
// Handler.Message returned nil for it (a mail the handler refused ends
// the connection and is read again after the backoff): after a restart
// nothing is skipped and nothing handed over twice. On the first start
// the mail already in the folder is left alone; when UIDVALIDITY changed
// (the folder was rebuilt) reading starts again at its end, with a
// warning. Inbound.MessageID is the mail's Message-ID, so the gateway's
// deduplication also drops a mail delivered twice under two UIDs.
//
// Threads are chats. A mail's chat is its thread's root Message-ID
// ("<id@host>": the first of References, else In-Reply-To, else its
// own). A thread whose only other person is the sender is a DM (a
// stranger there gets the gateway's pairing reply by mail); a thread
// with more people on To or Cc is a Group, where a mail is Addressed
// (as a mention would be) when the bot is on its To line or it answers
// one of the bot's mails: a bot only on Cc of a discussion answers
// nothing there unless require_mention is off. Every thread is a
// conversation of its own (Limits.DMPerChat: a person's one-to-one
// threads do not continue each other). Answers go to everyone on the thread: whoever a sender puts
// on Cc reads the bot's answers there. The thread's people, subject and latest ids are
// kept in the KV ("email:thread:<root>", one small record per thread,
// never dropped). Text is the text/plain part,
// or the text/html part reduced to text (paragraphs, list items and
// links kept); quoted lines ("> ", with their "On ... wrote:" line), a
// quoted original and the signature are taken out. A new mail with no
// text is its subject. Attachments and inline images are
// gateway.Attachments holding their content (images of kind "image",
// so they go to vision).
//
// Senders. The gateway checks the From address against the allowlist
// (allowed_users are addresses). Before that, the adapter drops, with a
// log line, mail it must not answer: mail whose Authentication-Results
// headers (added by the receiving server) show spf=fail, dkim=fail or
// dmarc=fail — its From may be forged, so an allowed address there is
// not trusted, and a pairing reply would go to whoever was
// impersonated; a fail in any such header counts, so a "pass" forged by
// the sender hides nothing. Forwarded mail that fails SPF is dropped
// too. The SPF, DKIM and DMARC results of every mail are logged with it
// ("email received ... auth=spf=pass dkim=pass dmarc=pass"). Mail from
// the bot's own address and automatic mail (Auto-Submitted: a vacation
// notice, a bounce) are skipped, so two bots never answer each other.
//
// Sending. Send mails the text from the bot's address (Options.Address,
// else User) to the thread's people (reply-all), with In-Reply-To (the
// Outbound's ReplyTo, else the thread's latest mail), References from
// the root and a "Re: " subject, as text/plain UTF-8. A chat that is not
// a Message-ID is one or more addresses ("ops@example.org,
// alice@example.org", a home channel), which starts a thread; a thread
// this process never read (`hermes cron run` delivering to a home
// channel) is looked up in the folder. Mail cannot be edited: Limits
// has Edits false, so answers are sent whole and an approval's decision
// is a new mail. Upload attaches the file. An SMTP 4xx is a
// SendError with RetryAfter (the wait the server names, "retry after 30
// seconds", else DefaultTempFailWait); a 5xx is Permanent; a network
// failure is retried by the gateway.
//
// Approvals. An Outbound's Buttons become a last line, "Reply with one
// word: once, session, always (admins only) or deny.": each button's
// word is its label's first word (or its number). A reply to that mail
// whose first word is one of them ("approve" standing for "once") is a
// gateway.Click with the button's Data, from the reply's sender (the
// gateway lets only the requester's count), each reply clicking once.
// Click.Answer mails the sender alone, in reply to their mail. The
// cards are remembered in memory (the newest 256): a question does not
// outlive a restart of the gateway anyway.
//
// Connections. imaps:// and smtps:// speak TLS from the start; imap://
// and smtp:// are upgraded with STARTTLS, and a server that offers none
// is refused before any password is sent — except on a loopback host
// (127.0.0.1, ::1, localhost), where nothing crosses a network. Run
// reconnects with a doubling backoff (Options.Backoff up to MaxBackoff)
// and reports each change through Handler.State: connected as "<address>
// <folder>", or why not; a login the server refuses ends Run with an
// error. IDLE is renewed every IdleRestart (25 minutes).
package email
