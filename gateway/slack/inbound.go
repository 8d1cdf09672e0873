package slack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	slackapi "github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/internal/lazyre"
)

// onEvent handles one event_callback payload. Its error means the message
// was not stored: the event must not be confirmed to Slack.
func (a *Adapter) onEvent(ctx context.Context, h gateway.Handler, payload json.RawMessage) error {
	ev, err := slackevents.ParseEvent(payload, slackevents.OptionNoVerifyToken())
	if err != nil {
		// Event types slack-go does not know are not ours to handle.
		a.log.Debug("event not parsed", "type", ev.Type, "err", err)
		return nil
	}
	switch e := ev.InnerEvent.Data.(type) {
	case *slackevents.MessageEvent:
		return a.onMessage(ctx, h, e)
	case *slackevents.AppMentionEvent:
		return a.onMention(ctx, h, e)
	}
	return nil
}

// onMessage hands a person's new message to h. Edits, deletions, joins
// and the other subtypes are not new messages, and bots' messages (the
// bot's own above all) are not people's.
func (a *Adapter) onMessage(ctx context.Context, h gateway.Handler, e *slackevents.MessageEvent) error {
	switch e.SubType {
	case "", "file_share", "thread_broadcast":
	default:
		return nil
	}
	me := a.me()
	if e.User == "" || e.BotID != "" || e.User == me.userID {
		return nil
	}
	in := gateway.Inbound{
		Platform:  a.Platform(),
		Chat:      gateway.ChatRef{ChatID: e.Channel, ThreadID: e.ThreadTimeStamp},
		ChatType:  gateway.Group,
		MessageID: e.Channel + ":" + e.TimeStamp,
		UserID:    e.User,
	}
	var mentioned bool
	in.Text, mentioned = stripMention(e.Text, me.userID)
	var parentUser string
	if e.Message != nil {
		in.Attachments = a.attachments(e.Message.Files)
		parentUser = e.Message.ParentUserId
	}
	if e.ChannelType == slackevents.ChannelTypeIM {
		in.ChatType, in.Addressed = gateway.DM, true
	} else {
		in.Addressed = mentioned || a.botThread(ctx, e.Channel, e.ThreadTimeStamp, parentUser)
	}
	return a.deliver(ctx, h, in)
}

// onMention hands an app_mention to h. Slack sends it besides the message
// event of the same message; whichever comes first is handled.
func (a *Adapter) onMention(ctx context.Context, h gateway.Handler, e *slackevents.AppMentionEvent) error {
	me := a.me()
	if e.User == "" || e.BotID != "" || e.User == me.userID || e.Edited != nil {
		return nil
	}
	in := gateway.Inbound{
		Platform:    a.Platform(),
		Chat:        gateway.ChatRef{ChatID: e.Channel, ThreadID: e.ThreadTimeStamp},
		ChatType:    gateway.Group,
		MessageID:   e.Channel + ":" + e.TimeStamp,
		UserID:      e.User,
		Addressed:   true,
		Attachments: a.attachments(e.Files),
	}
	in.Text, _ = stripMention(e.Text, me.userID)
	return a.deliver(ctx, h, in)
}

// botThread says whether a thread is the bot's: it started it, or it
// has replied in it.
func (a *Adapter) botThread(ctx context.Context, channel, threadTS, parentUser string) bool {
	if threadTS == "" {
		return false
	}
	return parentUser == a.me().userID || a.threads.Has(ctx, channel, threadTS)
}

// deliver hands a message to h once: Slack sends the same message as a
// message and an app_mention event, and sends again what was not
// confirmed in time. A message h failed to store may come again.
func (a *Adapter) deliver(ctx context.Context, h gateway.Handler, in gateway.Inbound) error {
	if !a.seen.Claim(in.MessageID) {
		return nil
	}
	in.UserName = a.userName(ctx, in.UserID)
	if err := h.Message(ctx, in); err != nil {
		a.seen.Forget(in.MessageID)
		return fmt.Errorf("slack message %s: %w", in.MessageID, err)
	}
	return nil
}

// userName is a person's display name (users.info, remembered), or ""
// when Slack does not say.
func (a *Adapter) userName(ctx context.Context, id string) string {
	if name, ok := a.names.Get(id); ok {
		return name
	}
	u, err := a.api.GetUserInfoContext(ctx, id)
	if err != nil {
		a.log.Warn("users.info failed; the message goes on without the sender's name", "user", id, "err", err)
		return ""
	}
	name := u.Profile.DisplayName
	if name == "" {
		name = u.RealName
	}
	if name == "" {
		name = u.Name
	}
	a.names.Put(id, name)
	return name
}

// mentionRE matches a user mention and the blanks after it.
var mentionRE = lazyre.New(`<@([A-Z0-9]+)(?:\|[^>]*)?>[ \t]*`)

// stripMention removes the mentions of the bot from a message's text and
// says whether there was one.
func stripMention(text, botUserID string) (string, bool) {
	if botUserID == "" {
		return text, false
	}
	found := false
	out := mentionRE.Get().ReplaceAllStringFunc(text, func(m string) string {
		if mentionRE.Get().FindStringSubmatch(m)[1] != botUserID {
			return m
		}
		found = true
		return ""
	})
	if !found {
		return text, false
	}
	return strings.TrimSpace(out), true
}

// attachments turns a message's files into attachments that download
// with the bot token. Files deleted since, and external files (stored
// outside Slack), are left out.
func (a *Adapter) attachments(files []slackapi.File) []gateway.Attachment {
	var out []gateway.Attachment
	for _, f := range files {
		u := f.URLPrivateDownload
		if u == "" {
			u = f.URLPrivate
		}
		if f.Mode == "tombstone" || f.IsExternal || u == "" {
			a.log.Info("file not attached", "file", f.ID, "mode", f.Mode, "external", f.IsExternal)
			continue
		}
		out = append(out, gateway.Attachment{
			Kind: kindOf(f.Mimetype), Name: f.Name, MIME: f.Mimetype, Size: int64(f.Size), Open: a.opener(f.Name, u),
		})
	}
	return out
}

// opener streams a file from its url_private. slack-go sends the bot
// token only to Slack's hosts and to the API URL's host, and reports a
// redirect to the sign-in page (a file the token cannot read) as an
// error. Errors come with the first Read; close the reader when done.
func (a *Adapter) opener(name, u string) func(context.Context) (io.ReadCloser, error) {
	return func(ctx context.Context) (io.ReadCloser, error) {
		pr, pw := io.Pipe()
		go func() {
			if err := a.api.GetFileContext(ctx, u, pw); err != nil {
				pw.CloseWithError(fmt.Errorf("slack: downloading %s: %w", name, err))
				return
			}
			_ = pw.Close()
		}()
		return pr, nil
	}
}

func kindOf(mime string) string {
	switch {
	case strings.HasPrefix(mime, "image/"):
		return "image"
	case strings.HasPrefix(mime, "audio/"):
		return "audio"
	case strings.HasPrefix(mime, "video/"):
		return "video"
	}
	return "file"
}
