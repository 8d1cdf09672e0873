package telegramtest

import (
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// DM opens the private chat between user and the bot (its id is the
// user's, as in Telegram).
func (s *Server) DM(user User) Chat {
	return s.addChat(Chat{ID: user.ID, Type: "private", Username: user.Username, FirstName: user.FirstName})
}

// Group creates a supergroup the bot is a member of.
func (s *Server) Group(title string) Chat {
	return s.addChat(Chat{Type: "supergroup", Title: title})
}

// Forum creates a supergroup with topics.
func (s *Server) Forum(title string) Chat {
	return s.addChat(Chat{Type: "supergroup", Title: title, Forum: true})
}

func (s *Server) addChat(c Chat) Chat {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.ID == 0 {
		s.nextChat++
		c.ID = -1001000000000 - s.nextChat
	}
	if _, ok := s.chats[c.ID]; !ok {
		s.chats[c.ID] = &chat{info: c}
	}
	return c
}

// SendOption changes a message a person sends.
type SendOption func(*Message)

// ReplyTo makes the message a reply to another of the chat.
func ReplyTo(messageID int) SendOption { return func(m *Message) { m.ReplyTo = messageID } }

// InTopic posts the message in a forum topic.
func InTopic(threadID int) SendOption { return func(m *Message) { m.ThreadID = threadID } }

// SendText posts a person's text message in a chat and queues the
// update for the bot. Like Telegram, the fake marks @mentions and
// /commands as entities.
func (s *Server) SendText(from User, c Chat, text string, opts ...SendOption) Message {
	return s.sendFrom(from, c, Message{Text: text}, opts)
}

// SendPhoto posts a photo (in two sizes: a small preview and data
// itself as the largest) with a caption.
func (s *Server) SendPhoto(from User, c Chat, data []byte, caption string, opts ...SendOption) Message {
	s.mu.Lock()
	preview := s.addFile("photo", "", "image/jpeg", data[:min(len(data), 16)], 90, 90)
	photo := s.addFile("photo", "", "image/jpeg", data, 1280, 960)
	photo.sizes = []*File{preview, photo}
	s.mu.Unlock()
	return s.sendFrom(from, c, Message{Text: caption, File: photo}, opts)
}

// SendVoice posts a voice note (OGG/Opus).
func (s *Server) SendVoice(from User, c Chat, data []byte, opts ...SendOption) Message {
	s.mu.Lock()
	voice := s.addFile("voice", "", "audio/ogg", data, 0, 0)
	s.mu.Unlock()
	return s.sendFrom(from, c, Message{File: voice}, opts)
}

// SendDocument posts a file with a caption.
func (s *Server) SendDocument(from User, c Chat, name, mimeType string, data []byte, caption string, opts ...SendOption) Message {
	s.mu.Lock()
	doc := s.addFile("document", name, mimeType, data, 0, 0)
	s.mu.Unlock()
	return s.sendFrom(from, c, Message{Text: caption, File: doc}, opts)
}

func (s *Server) sendFrom(from User, c Chat, m Message, opts []SendOption) Message {
	for _, o := range opts {
		o(&m)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.chatLocked(c)
	m.From, m.Chat, m.Date = from, ch.info, s.o.Now()
	m.Source, m.Entities = m.Text, userEntities(m.Text)
	ch.nextID++
	m.ID = ch.nextID
	stored := m
	ch.msgs = append(ch.msgs, &stored)
	stored.UpdateID = s.push(wireUpdate{Message: stored.wire(ch.find(m.ReplyTo))})
	return stored
}

// Redeliver queues a message again under a new update_id, as Telegram
// does when it resends an update it believes was lost.
func (s *Server) Redeliver(m Message) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.chatLocked(m.Chat)
	return s.push(wireUpdate{Message: m.wire(ch.find(m.ReplyTo))})
}

// Press is a person pressing an inline button of the bot's message; it
// queues the callback query and returns its id. A message without that
// button is an error: nobody could press it.
func (s *Server) Press(from User, c Chat, messageID int, data string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.chatLocked(c)
	m := ch.find(messageID)
	if m == nil || !hasButton(m.Buttons, data) {
		return "", fmt.Errorf("telegramtest: message %d of chat %d has no button with data %q", messageID, c.ID, data)
	}
	id := strconv.Itoa(len(s.queries) + 1)
	s.queries[id] = &query{from: from, data: data}
	s.push(wireUpdate{CallbackQuery: &wireCallbackQuery{
		ID: id, From: *from.wire(), Message: m.wire(ch.find(m.ReplyTo)),
		ChatInstance: strconv.FormatInt(c.ID, 10), Data: data,
	}})
	return id, nil
}

func hasButton(rows [][]Button, data string) bool {
	for _, row := range rows {
		for _, b := range row {
			if b.Data == data {
				return true
			}
		}
	}
	return false
}

// Answer returns the bot's answerCallbackQuery to a press: its text and
// whether it was answered at all.
func (s *Server) Answer(queryID string) (text string, answered bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queries[queryID]
	if q == nil {
		return "", false
	}
	return q.text, q.answered
}

// Messages returns a chat's messages, the people's and the bot's, in
// order, as the chat shows them now.
func (s *Server) Messages(c Chat) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.chats[c.ID]
	if ch == nil {
		return nil
	}
	out := make([]Message, 0, len(ch.msgs))
	for _, m := range ch.msgs {
		c := *m
		c.History = append([]string(nil), m.History...)
		out = append(out, c)
	}
	return out
}

// BotMessages returns the bot's messages in a chat, as it shows them now.
func (s *Server) BotMessages(c Chat) []Message {
	var out []Message
	for _, m := range s.Messages(c) {
		if m.From.ID == s.bot.ID {
			out = append(out, m)
		}
	}
	return out
}

// Commands returns the bot's command menu as setMyCommands last set it.
func (s *Server) Commands() []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Command(nil), s.commands...)
}

// chatLocked returns a chat's state, adding the chat if the test made it
// up; s.mu is held.
func (s *Server) chatLocked(c Chat) *chat {
	ch := s.chats[c.ID]
	if ch == nil {
		ch = &chat{info: c}
		s.chats[c.ID] = ch
	}
	return ch
}

func (c *chat) find(id int) *Message {
	if id == 0 {
		return nil
	}
	for _, m := range c.msgs {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// addFile stores a file so getFile and the download URL serve it; s.mu
// is held.
func (s *Server) addFile(kind, name, mimeType string, data []byte, width, height int) *File {
	s.nextFile++
	ext := map[string]string{"photo": ".jpg", "voice": ".oga"}[kind]
	if ext == "" {
		ext = path.Ext(name)
	}
	f := &File{
		ID:       fmt.Sprintf("file-%d", s.nextFile),
		UniqueID: fmt.Sprintf("uniq-%d", s.nextFile),
		Kind:     kind, Name: name, MIME: mimeType,
		Data:  append([]byte(nil), data...),
		Path:  fmt.Sprintf("%ss/file_%d%s", kind, s.nextFile, ext),
		width: width, height: height,
	}
	s.files[f.ID] = f
	return f
}

func (s *Server) getFile(q *request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.files[q.params["file_id"]]
	if f == nil {
		return nil, &APIError{Code: 400, Description: "Bad Request: invalid file_id"}
	}
	return wireFile{FileID: f.ID, FileUniqueID: f.UniqueID, FileSize: len(f.Data), FilePath: f.Path}, nil
}

// serveFile is the download URL, /file/bot<token>/<file_path>.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, rest string) {
	token, filePath, _ := strings.Cut(rest, "/")
	if token != s.o.Token {
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: "file", Params: map[string]string{"file_path": filePath}, Time: s.o.Now(), Status: http.StatusOK})
	s.notify()
	var found *File
	for _, f := range s.files {
		if f.Path == filePath {
			found = f
		}
	}
	s.mu.Unlock()
	if found == nil {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = w.Write(found.Data)
}
