package signaltest

import (
	"encoding/base64"
	"strconv"
)

// Message is a person's message as the daemon delivered it.
type Message struct {
	From      Person
	Chat      Chat
	Timestamp int64
	envelope  map[string]any
}

// ID is the message's id as the adapter names it: sender:timestamp.
func (m Message) ID() string { return m.From.ID() + ":" + strconv.FormatInt(m.Timestamp, 10) }

// Attachment is a file a person sends.
type Attachment struct {
	Name        string // "" for a voice note
	ContentType string
	Data        []byte
}

// Say posts a person's text in a chat.
func (s *Server) Say(from Person, chat Chat, text string) Message {
	return s.say(from, chat, text, false, 0, nil)
}

// Mention posts a person's text in a group after a mention of the bot,
// as Signal sends it: a U+FFFC placeholder at the start of the text and
// a mention of the bot's number over it.
func (s *Server) Mention(from Person, chat Chat, text string) Message {
	return s.say(from, chat, text, true, 0, nil)
}

// Reply posts a person's text quoting one of the bot's messages.
func (s *Server) Reply(from Person, chat Chat, to int64, text string) Message {
	return s.say(from, chat, text, false, to, nil)
}

// SayWithAttachment posts a person's files with a caption.
func (s *Server) SayWithAttachment(from Person, chat Chat, caption string, files ...Attachment) Message {
	return s.say(from, chat, caption, false, 0, files)
}

func (s *Server) say(from Person, chat Chat, text string, mention bool, quote int64, files []Attachment) Message {
	s.mu.Lock()
	ts := s.now()
	dm := map[string]any{"timestamp": ts, "message": text, "expiresInSeconds": 0, "viewOnce": false}
	if mention {
		dm["message"] = "\ufffc " + text
		dm["mentions"] = []map[string]any{{"name": s.account, "number": s.account, "uuid": "", "start": 0, "length": 1}}
	}
	if quote != 0 {
		dm["quote"] = map[string]any{"id": quote, "author": s.account, "authorNumber": s.account, "authorUuid": "", "text": ""}
	}
	if chat.GroupID != "" {
		dm["groupInfo"] = map[string]any{"groupId": chat.GroupID, "type": "DELIVER"}
	}
	if len(files) > 0 {
		var as []map[string]any
		for i, f := range files {
			id := strconv.FormatInt(ts, 36) + "-" + strconv.Itoa(i) + ".bin"
			s.files[id] = file{data: f.Data, from: chat.Ref()}
			a := map[string]any{"contentType": f.ContentType, "id": id, "size": len(f.Data)}
			if f.Name != "" {
				a["filename"] = f.Name
			}
			as = append(as, a)
		}
		dm["attachments"] = as
	}
	env := s.envelope(from, ts)
	env["dataMessage"] = dm
	m := Message{From: from, Chat: chat, Timestamp: ts, envelope: env}
	s.mu.Unlock()
	s.push(env)
	return m
}

func (s *Server) envelope(from Person, ts int64) map[string]any {
	return map[string]any{"source": from.ID(), "sourceNumber": nilIfEmpty(from.Number), "sourceUuid": from.UUID,
		"sourceName": from.Name, "sourceDevice": 1, "timestamp": ts, "serverReceivedTimestamp": ts, "serverDeliveredTimestamp": ts}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Redeliver delivers a message said before once more, as a new event.
func (s *Server) Redeliver(m Message) { s.push(m.envelope) }

// React puts a person's emoji reaction on the bot's message ts.
func (s *Server) React(from Person, chat Chat, ts int64, emoji string) {
	s.mu.Lock()
	now := s.now()
	dm := map[string]any{"timestamp": now, "reaction": map[string]any{"emoji": emoji, "targetAuthor": s.account,
		"targetAuthorNumber": s.account, "targetAuthorUuid": "", "targetSentTimestamp": ts, "isRemove": false}}
	if chat.GroupID != "" {
		dm["groupInfo"] = map[string]any{"groupId": chat.GroupID, "type": "DELIVER"}
	}
	env := s.envelope(from, now)
	env["dataMessage"] = dm
	s.mu.Unlock()
	s.push(env)
}

// Group makes a group id (base64 of 32 bytes, as Signal's).
func Group(name string) Chat {
	b := make([]byte, 32)
	copy(b, name)
	return Chat{GroupID: base64.StdEncoding.EncodeToString(b)}
}

// DM is a person's direct chat with the bot.
func DM(p Person) Chat { return Chat{With: p} }

// Typing is a typing notice; the gateway passes it over. It is here so
// a test can show an event that is no message changes nothing.
func (s *Server) Typing(from Person) {
	s.mu.Lock()
	now := s.now()
	env := s.envelope(from, now)
	env["typingMessage"] = map[string]any{"action": "STARTED", "timestamp": now}
	s.mu.Unlock()
	s.push(env)
}
