package mattermost

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/gateway"
)

// post is a Mattermost post, as events and the REST API carry it.
type post struct {
	ID        string         `json:"id"`
	CreateAt  int64          `json:"create_at"`
	DeleteAt  int64          `json:"delete_at"`
	UserID    string         `json:"user_id"`
	ChannelID string         `json:"channel_id"`
	RootID    string         `json:"root_id"`
	Message   string         `json:"message"`
	Type      string         `json:"type"`
	Props     map[string]any `json:"props,omitempty"`
	FileIDs   []string       `json:"file_ids,omitempty"`
	Metadata  struct {
		Files []fileInfo `json:"files"`
	} `json:"metadata"`
}

type fileInfo struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	MIMEType string `json:"mime_type"`
	Size     int64  `json:"size"`
}

// onPost hands a person's new post to h. System posts (joins, header
// changes), deleted posts and bots' posts (the bot's own above all) are
// not people's messages. Its error means the post was not stored.
func (a *Adapter) onPost(ctx context.Context, h gateway.Handler, p post, channelType string, mentions []string) error {
	me := a.me()
	if p.ID == "" || p.ChannelID == "" || p.DeleteAt != 0 || p.Type != "" || p.UserID == "" || p.UserID == me.id {
		return nil
	}
	if fromBot, _ := p.Props["from_bot"].(string); fromBot == "true" {
		return nil
	}
	if err := a.channels.see(ctx, p.ChannelID, channelType); err != nil {
		a.log.Warn("could not remember a channel; posts made there while disconnected may be missed", "channel", p.ChannelID, "err", err)
	}
	in := gateway.Inbound{
		Platform:  a.Platform(),
		Chat:      gateway.ChatRef{ChatID: p.ChannelID, ThreadID: p.RootID},
		ChatType:  gateway.Group,
		MessageID: p.ID,
		UserID:    p.UserID,
	}
	var mentioned bool
	in.Text, mentioned = stripMention(p.Message, me.username)
	for _, id := range mentions {
		mentioned = mentioned || id == me.id
	}
	if channelType == "D" {
		in.ChatType, in.Addressed = gateway.DM, true
	} else {
		in.Addressed = mentioned || a.botThread(ctx, p.ChannelID, p.RootID)
	}
	in.Attachments = a.attachments(p.Metadata.Files)
	if err := a.deliver(ctx, h, in); err != nil {
		return err
	}
	if err := a.channels.read(ctx, p.CreateAt); err != nil {
		a.log.Warn("could not store the time of the last post read", "err", err)
	}
	return nil
}

// botThread says whether a thread is the bot's: it posted in it, or
// started it (its root is the bot's post: GET /posts/{id}, remembered).
func (a *Adapter) botThread(ctx context.Context, channel, root string) bool {
	if root == "" {
		return false
	}
	if a.threads.Has(ctx, channel, root) {
		return true
	}
	if mine, ok := a.roots.Get(root); ok {
		return mine == "1"
	}
	var p post
	if err := a.call(ctx, http.MethodGet, "/api/v4/posts/"+url.PathEscape(root), nil, &p); err != nil {
		a.log.Warn("could not read a thread's first post; a reply there is addressed only by a mention", "post", root, "err", err)
		return false
	}
	mine := p.UserID == a.me().id
	a.roots.Put(root, map[bool]string{true: "1", false: "0"}[mine])
	return mine
}

// deliver hands a message to h once: a post read from the websocket is
// read again by the catch-up after a reconnect. A message h failed to
// store may come again.
func (a *Adapter) deliver(ctx context.Context, h gateway.Handler, in gateway.Inbound) error {
	if !a.seen.Claim(in.MessageID) {
		return nil
	}
	in.UserName = a.userName(ctx, in.UserID)
	if err := h.Message(ctx, in); err != nil {
		a.seen.Forget(in.MessageID)
		return fmt.Errorf("mattermost post %s not stored: %w", in.MessageID, err)
	}
	return nil
}

// catchUp reads the posts made since the last one read, in the channels
// the bot has seen and in its channels with a post since (GET
// /users/me/channels), oldest first, and hands them on like the
// websocket's. The first run starts from now.
func (a *Adapter) catchUp(ctx context.Context, h gateway.Handler) error {
	since, ok := a.channels.since(ctx)
	if !ok {
		return a.channels.read(ctx, a.now().UnixMilli())
	}
	types := a.channels.known()
	var mine []struct {
		ID         string `json:"id"`
		Type       string `json:"type"`
		LastPostAt int64  `json:"last_post_at"`
	}
	if err := a.call(ctx, http.MethodGet, "/api/v4/users/me/channels", nil, &mine); err != nil {
		a.log.Warn("could not list the bot's channels; reading only the channels seen before", "err", err)
	}
	for _, c := range mine {
		if c.LastPostAt >= since {
			types[c.ID] = c.Type
		}
	}
	var posts []post
	for id := range types {
		var list struct {
			Order []string        `json:"order"`
			Posts map[string]post `json:"posts"`
		}
		path := "/api/v4/channels/" + url.PathEscape(id) + "/posts?since=" + strconv.FormatInt(since, 10)
		if err := a.call(ctx, http.MethodGet, path, nil, &list); err != nil {
			if se, ok := gateway.AsSendError(err); ok && se.Permanent {
				a.log.Info("a channel is closed to the bot; not read", "channel", id, "err", err)
				continue
			}
			return err
		}
		for _, p := range list.Posts {
			if p.CreateAt >= since {
				posts = append(posts, p)
			}
		}
	}
	sort.SliceStable(posts, func(i, j int) bool { return posts[i].CreateAt < posts[j].CreateAt })
	for _, p := range posts {
		if err := a.onPost(ctx, h, p, types[p.ChannelID], nil); err != nil {
			return err
		}
	}
	return nil
}

// userName is a person's name (GET /users/{id}, remembered): the
// nickname, else the first and last names, else the username.
func (a *Adapter) userName(ctx context.Context, id string) string {
	if name, ok := a.names.Get(id); ok {
		return name
	}
	var u struct {
		Username  string `json:"username"`
		Nickname  string `json:"nickname"`
		FirstName string `json:"first_name"`
		LastName  string `json:"last_name"`
	}
	if err := a.call(ctx, http.MethodGet, "/api/v4/users/"+url.PathEscape(id), nil, &u); err != nil {
		a.log.Warn("users lookup failed; the message goes on without the sender's name", "user", id, "err", err)
		return ""
	}
	name := u.Nickname
	if name == "" {
		name = strings.TrimSpace(u.FirstName + " " + u.LastName)
	}
	if name == "" {
		name = u.Username
	}
	a.names.Put(id, name)
	return name
}

// stripMention removes the mentions of the bot (@username, in any case,
// not inside an e-mail address or a longer name such as @username-two)
// and the blanks after them from a post's text, and says whether there
// was one.
func stripMention(text, username string) (string, bool) {
	if username == "" {
		return text, false
	}
	lower, want := strings.ToLower(text), "@"+strings.ToLower(username)
	var b strings.Builder
	found, from := false, 0
	for i := 0; ; {
		k := strings.Index(lower[i:], want)
		if k < 0 {
			break
		}
		start, end := i+k, i+k+len(want)
		i = end
		if start > 0 && nameChar(lower[start-1], true) {
			continue
		}
		if end < len(lower) && (nameChar(lower[end], false) || lower[end] == '.' && end+1 < len(lower) && nameChar(lower[end+1], false)) {
			continue
		}
		found = true
		b.WriteString(text[from:start])
		for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
			end++
		}
		from = end
	}
	if !found {
		return text, false
	}
	b.WriteString(text[from:])
	return strings.TrimSpace(b.String()), true
}

// nameChar says whether c may be part of a username (before: or of an
// e-mail address before the @).
func nameChar(c byte, before bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_', c == '-':
		return true
	case c >= 'A' && c <= 'Z':
		return true
	case before && (c == '.' || c == '@'):
		return true
	}
	return false
}

// attachments turns a post's files into attachments that download with
// the bot's token from the server (GET /files/{id}).
func (a *Adapter) attachments(files []fileInfo) []gateway.Attachment {
	var out []gateway.Attachment
	for _, f := range files {
		out = append(out, gateway.Attachment{Kind: kindOf(f.MIMEType), Name: f.Name, MIME: f.MIMEType, Size: f.Size, Open: a.opener(f)})
	}
	return out
}

func (a *Adapter) opener(f fileInfo) func(context.Context) (io.ReadCloser, error) {
	return func(ctx context.Context) (io.ReadCloser, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/api/v4/files/"+url.PathEscape(f.ID), nil)
		if err != nil {
			return nil, fmt.Errorf("mattermost: downloading %s: %w", f.Name, err)
		}
		req.Header.Set("Authorization", "Bearer "+a.o.Token)
		resp, err := a.http.Do(req)
		if err != nil {
			return nil, fmt.Errorf("mattermost: downloading %s: %w", f.Name, err)
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("mattermost: downloading %s: %s", f.Name, resp.Status)
		}
		return resp.Body, nil
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
