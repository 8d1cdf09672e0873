package mattermost

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/gateway"
)

// outPost is the body of POST /posts.
type outPost struct {
	ChannelID string         `json:"channel_id"`
	RootID    string         `json:"root_id,omitempty"`
	Message   string         `json:"message"`
	Props     map[string]any `json:"props,omitempty"`
	FileIDs   []string       `json:"file_ids,omitempty"`
}

// Send posts a message (POST /posts), in the thread of m.Chat when it
// has one (root_id), and returns the post's id. Mattermost's replies are
// threads: m.ReplyTo is not used.
func (a *Adapter) Send(ctx context.Context, m gateway.Outbound) (gateway.Sent, error) {
	body := outPost{ChannelID: m.Chat.ChatID, RootID: m.Chat.ThreadID, Message: text(m)}
	if att := a.attachmentsFor(m.Buttons, m.Chat.ThreadID); att != nil {
		body.Props = map[string]any{"attachments": att}
	}
	var created post
	if err := a.call(ctx, http.MethodPost, "/api/v4/posts", body, &created); err != nil {
		return gateway.Sent{}, err
	}
	a.inThread(ctx, m.Chat, created.ID)
	return gateway.Sent{MessageID: created.ID}, nil
}

// inThread remembers the thread the bot posted in. A reply to one of
// its top-level posts is recognised by the root's author instead (see
// botRoot), so that not every post the bot makes is stored.
func (a *Adapter) inThread(ctx context.Context, chat gateway.ChatRef, _ string) {
	if chat.ThreadID != "" {
		a.threads.Add(ctx, chat.ChatID, chat.ThreadID)
	}
}

// Edit replaces a post's text and buttons (PUT /posts/{id}/patch). The
// props are replaced whole: an edit without buttons removes them.
func (a *Adapter) Edit(ctx context.Context, chat gateway.ChatRef, messageID string, m gateway.Outbound) error {
	props := map[string]any{}
	if att := a.attachmentsFor(m.Buttons, chat.ThreadID); att != nil {
		props["attachments"] = att
	}
	body := map[string]any{"message": text(m), "props": props}
	return a.call(ctx, http.MethodPut, "/api/v4/posts/"+url.PathEscape(messageID)+"/patch", body, nil)
}

// Upload sends a file (POST /files, then a post holding it with the
// caption as its text) and returns the post's id.
func (a *Adapter) Upload(ctx context.Context, chat gateway.ChatRef, f gateway.File) (gateway.Sent, error) {
	file, err := os.Open(f.Path)
	if err != nil {
		return gateway.Sent{}, fmt.Errorf("mattermost upload: %w", err)
	}
	defer file.Close()
	name := f.Name
	if name == "" {
		name = filepath.Base(f.Path)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("channel_id", chat.ChatID)
	part, err := mw.CreateFormFile("files", name)
	if err != nil {
		return gateway.Sent{}, fmt.Errorf("mattermost upload: %w", err)
	}
	if _, err := io.Copy(part, file); err != nil {
		return gateway.Sent{}, fmt.Errorf("mattermost upload: reading %s: %w", f.Path, err)
	}
	if err := mw.Close(); err != nil {
		return gateway.Sent{}, fmt.Errorf("mattermost upload: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/api/v4/files", &buf)
	if err != nil {
		return gateway.Sent{}, fmt.Errorf("mattermost upload: %w", err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	var up struct {
		FileInfos []fileInfo `json:"file_infos"`
	}
	if err := a.do(req, &up); err != nil {
		return gateway.Sent{}, err
	}
	if len(up.FileInfos) == 0 {
		return gateway.Sent{}, fmt.Errorf("mattermost upload %s: the server answered no file", name)
	}
	body := outPost{ChannelID: chat.ChatID, RootID: chat.ThreadID, Message: escape(f.Caption), FileIDs: []string{up.FileInfos[0].ID}}
	var created post
	if err := a.call(ctx, http.MethodPost, "/api/v4/posts", body, &created); err != nil {
		return gateway.Sent{}, err
	}
	a.inThread(ctx, chat, created.ID)
	return gateway.Sent{MessageID: created.ID}, nil
}

// text is an Outbound's text as Markdown: plain text is escaped so that
// it shows as written, unless the backslashes would make the post too
// long (then it goes as it is: some characters may show as markup).
func text(m gateway.Outbound) string {
	if !m.Plain {
		return m.Text
	}
	if e := escape(m.Text); utf8.RuneCountInString(e) <= maxPost {
		return e
	}
	return m.Text
}

// escape puts a backslash before the characters Mattermost's Markdown
// would take as markup.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_~[]#>|<", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// attachmentsFor lays buttons out as one message attachment holding an
// action per button, in order (Mattermost wraps them into rows). Each
// action's integration leads to the button endpoint, with the button's
// Data, the thread and the run's secret in its context; the server keeps
// the integration to itself (clients never see the context). Without
// an endpoint (a send from outside Run, such as hermes cron run) there
// are no buttons: nothing could answer them.
func (a *Adapter) attachmentsFor(rows [][]gateway.Button, thread string) []any {
	if len(rows) == 0 {
		return nil
	}
	a.mu.Lock()
	target := a.actionsURL
	a.mu.Unlock()
	if target == "" {
		a.log.Warn("buttons left out: the button endpoint runs only while the adapter runs")
		return nil
	}
	var actions []any
	for r, row := range rows {
		for c, b := range row {
			actions = append(actions, map[string]any{
				"id":   fmt.Sprintf("hermes%dx%d", r, c),
				"name": b.Label,
				"type": "button",
				"integration": map[string]any{
					"url":     target,
					"context": map[string]string{"data": b.Data, "root": thread, "secret": a.secret},
				},
			})
		}
	}
	return []any{map[string]any{"actions": actions}}
}
