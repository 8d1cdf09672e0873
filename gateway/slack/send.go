package slack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"github.com/hermes-go/hermes/gateway"
)

// Block Kit's limits.
const (
	maxSectionText  = 3000
	maxButtonLabel  = 75
	maxButtonsInRow = 25
)

// Send posts a message (chat.postMessage), in the thread of m.Chat when it
// has one, and returns its ts. Slack has no replies outside threads:
// m.ReplyTo is not used.
func (a *Adapter) Send(ctx context.Context, m gateway.Outbound) (gateway.Sent, error) {
	opts := messageOptions(m, false)
	if m.Chat.ThreadID != "" {
		opts = append(opts, slackapi.MsgOptionTS(m.Chat.ThreadID))
	}
	_, ts, err := a.api.PostMessageContext(ctx, m.Chat.ChatID, opts...)
	if err != nil {
		return gateway.Sent{}, classify("chat.postMessage", err)
	}
	if m.Chat.ThreadID != "" {
		a.threads.Add(ctx, m.Chat.ChatID, m.Chat.ThreadID)
	}
	return gateway.Sent{MessageID: ts}, nil
}

// Edit replaces a message's text and buttons (chat.update); messageID is
// the ts Send returned.
func (a *Adapter) Edit(ctx context.Context, chat gateway.ChatRef, messageID string, m gateway.Outbound) error {
	if _, _, _, err := a.api.UpdateMessageContext(ctx, chat.ChatID, messageID, messageOptions(m, true)...); err != nil {
		return classify("chat.update", err)
	}
	return nil
}

// Upload shares a file in the chat (files.getUploadURLExternal, the
// upload, files.completeUploadExternal) with the caption as its comment,
// and returns the file's id: Slack does not say at once which message
// shows it.
func (a *Adapter) Upload(ctx context.Context, chat gateway.ChatRef, f gateway.File) (gateway.Sent, error) {
	file, err := os.Open(f.Path)
	if err != nil {
		return gateway.Sent{}, fmt.Errorf("slack upload: %w", err)
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return gateway.Sent{}, fmt.Errorf("slack upload: %w", err)
	}
	if st.Size() == 0 {
		return gateway.Sent{}, &gateway.SendError{Permanent: true, Err: fmt.Errorf("slack upload %s: the file is empty, and Slack takes no empty files", f.Path)}
	}
	name := f.Name
	if name == "" {
		name = filepath.Base(f.Path)
	}
	sum, err := a.api.UploadFileContext(ctx, slackapi.UploadFileParameters{
		Reader: file, FileSize: int(st.Size()), Filename: name, Title: name,
		InitialComment: f.Caption, Channel: chat.ChatID, ThreadTimestamp: chat.ThreadID,
	})
	if err != nil {
		return gateway.Sent{}, classify("files upload", err)
	}
	if chat.ThreadID != "" {
		a.threads.Add(ctx, chat.ChatID, chat.ThreadID)
	}
	return gateway.Sent{MessageID: sum.ID}, nil
}

// messageOptions are the text and blocks of a message. Plain text is
// escaped and sent with mrkdwn off. Buttons need blocks: the text goes in
// sections and stays as the notification text. An edit always sends
// blocks, empty when there are no buttons, because chat.update keeps the
// old blocks otherwise.
func messageOptions(m gateway.Outbound, edit bool) []slackapi.MsgOption {
	opts := []slackapi.MsgOption{slackapi.MsgOptionText(m.Text, m.Plain)}
	if m.Plain {
		opts = append(opts, slackapi.MsgOptionDisableMarkdown())
	}
	if len(m.Buttons) > 0 {
		opts = append(opts, slackapi.MsgOptionBlocks(blocks(m)...))
	} else if edit {
		opts = append(opts, slackapi.MsgOptionBlocks())
	}
	return opts
}

// blocks lays a message out as section blocks of its text then one
// actions block per row of buttons. Each button's action_id is unique in
// the message; its value is the Button's Data.
func blocks(m gateway.Outbound) []slackapi.Block {
	var out []slackapi.Block
	kind := slackapi.MarkdownType
	if m.Plain {
		kind = slackapi.PlainTextType
	}
	for _, part := range sections(m.Text, maxSectionText) {
		out = append(out, slackapi.NewSectionBlock(slackapi.NewTextBlockObject(kind, part, false, false), nil, nil))
	}
	for r, row := range m.Buttons {
		var elems []slackapi.BlockElement
		for c, b := range row {
			if c == maxButtonsInRow {
				break
			}
			label := slackapi.NewTextBlockObject(slackapi.PlainTextType, truncate(b.Label, maxButtonLabel), true, false)
			elems = append(elems, slackapi.NewButtonBlockElement(fmt.Sprintf("hermes_button_%d_%d", r, c), b.Data, label))
		}
		if len(elems) > 0 {
			out = append(out, slackapi.NewActionBlock(fmt.Sprintf("hermes_buttons_%d", r), elems...))
		}
	}
	return out
}

// sections cuts text into pieces of at most limit characters, at the last
// line break of each piece when there is one in its second half.
func sections(text string, limit int) []string {
	var out []string
	for strings.TrimSpace(text) != "" {
		if utf8.RuneCountInString(text) <= limit {
			out = append(out, text)
			break
		}
		cut := len(string([]rune(text)[:limit]))
		if nl := strings.LastIndexByte(text[:cut], '\n'); nl > cut/2 {
			cut = nl + 1
		}
		if strings.TrimSpace(text[:cut]) != "" {
			out = append(out, text[:cut])
		}
		text = text[cut:]
	}
	return out
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
