package mattermosttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// Say records a person's post in a channel (in the thread root when it
// is not "") and sends its posted event to every open socket; with no
// socket open, the post waits in the channel for the REST API to read.
func (s *Server) Say(channelID, userID, root, text string, mentions ...string) Post {
	return s.SayWithFiles(channelID, userID, root, text, nil, mentions...)
}

// AddFile stores a file a person can post (SayWithFiles) and returns its
// id; GET /files/{id} answers its content.
func (s *Server) AddFile(name, mime string, data []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := "file" + strconv.Itoa(len(s.files)+1)
	s.files[id] = data
	s.fileInfo[id] = fileMeta{name: name, mime: mime}
	return id
}

// SayWithFiles is Say with files (AddFile's ids) attached.
func (s *Server) SayWithFiles(channelID, userID, root, text string, fileIDs []string, mentions ...string) Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[channelID]
	if c == nil {
		s.t.Fatalf("mattermosttest: no channel %s", channelID)
	}
	p := &Post{ID: s.newIDLocked(), ChannelID: c.id, RootID: root, UserID: userID, Message: text,
		History: []string{text}, ChannelType: c.typ, Mentions: mentions, FileIDs: fileIDs}
	p.CreateAt = s.nowLocked()
	p.UpdateAt = p.CreateAt
	s.posts[p.ID] = p
	c.posts = append(c.posts, p)
	s.broadcastLocked(p)
	s.notifyLocked()
	return *p
}

// Mention posts text after an @mention of the bot, as the client does,
// with the bot in the event's mentions.
func (s *Server) Mention(channelID, userID, text string) Post {
	return s.Say(channelID, userID, "", "@"+BotUsername+" "+text, BotID)
}

// Redeliver sends a post's posted event again, as the server does to a
// client that reconnects with a sequence it had not read; it reports
// whether a socket was open to take it.
func (s *Server) Redeliver(p Post) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.posts[p.ID]
	if q == nil {
		return false
	}
	s.broadcastLocked(q)
	s.notifyLocked()
	return slices.ContainsFunc(s.sockets, func(k *socket) bool { return k.authed })
}

// BotPosts are the bot's posts in a channel, oldest first.
func (s *Server) BotPosts(channelID string) []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Post
	if c := s.channels[channelID]; c != nil {
		for _, p := range c.posts {
			if p.UserID == BotID {
				out = append(out, clonePost(p))
			}
		}
	}
	return out
}

// Post is one post by id.
func (s *Server) Post(id string) (Post, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.posts[id]
	if p == nil {
		return Post{}, false
	}
	return clonePost(p), true
}

func clonePost(p *Post) Post {
	q := *p
	q.History = slices.Clone(p.History)
	q.Buttons = slices.Clone(p.Buttons)
	return q
}

// Ephemerals are the messages userID alone saw in a channel.
func (s *Server) Ephemerals(channelID, userID string) []Ephemeral {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Ephemeral
	for _, e := range s.ephemerals {
		if e.ChannelID == channelID && e.UserID == userID {
			out = append(out, e)
		}
	}
	return out
}

// ClickAnswer is the integration's answer to a press.
type ClickAnswer struct {
	Status        int
	EphemeralText string // as the presser reads it
	Updated       bool   // the answer replaced the post
}

// Click presses a button (by its label) of one of the bot's posts as
// userID: the server posts the press to the button's integration URL
// with the context the bot set, as Mattermost does; an ephemeral_text
// in the answer is shown to the presser alone, an update replaces the
// post.
func (s *Server) Click(postID, userID, label string) (ClickAnswer, error) {
	s.mu.Lock()
	p := s.posts[postID]
	var b *Button
	if p != nil {
		for _, row := range p.Buttons {
			for i := range row {
				if row[i].Label == label {
					b = &row[i]
				}
			}
		}
	}
	s.mu.Unlock()
	if b == nil {
		return ClickAnswer{}, fmt.Errorf("mattermosttest: post %s has no button %q", postID, label)
	}
	return s.send(p, userID, b.URL, b.Context)
}

// ClickWith posts a press with any context to any URL, as a forger
// would.
func (s *Server) ClickWith(postID, userID, url string, context json.RawMessage) (ClickAnswer, error) {
	s.mu.Lock()
	p := s.posts[postID]
	s.mu.Unlock()
	if p == nil {
		return ClickAnswer{}, fmt.Errorf("mattermosttest: no post %s", postID)
	}
	return s.send(p, userID, url, context)
}

func (s *Server) send(p *Post, userID, url string, context json.RawMessage) (ClickAnswer, error) {
	s.mu.Lock()
	body, _ := json.Marshal(map[string]any{
		"user_id": userID, "user_name": s.users[userID], "channel_id": p.ChannelID, "team_id": TeamID,
		"post_id": p.ID, "trigger_id": "trigger", "type": "button", "context": context,
	})
	s.mu.Unlock()
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return ClickAnswer{}, fmt.Errorf("mattermosttest: posting the press: %w", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	ans := ClickAnswer{Status: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		return ans, nil
	}
	var r struct {
		EphemeralText string `json:"ephemeral_text"`
		Update        *struct {
			Message string `json:"message"`
		} `json:"update"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return ans, fmt.Errorf("mattermosttest: the integration answered %q: %w", data, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.EphemeralText != "" {
		ans.EphemeralText = Render(r.EphemeralText)
		s.ephemerals = append(s.ephemerals, Ephemeral{ChannelID: p.ChannelID, UserID: userID, Text: ans.EphemeralText})
	}
	if r.Update != nil {
		ans.Updated = true
		p.Message = r.Update.Message
		p.History = append(p.History, Render(p.Message))
	}
	s.notifyLocked()
	return ans, nil
}
