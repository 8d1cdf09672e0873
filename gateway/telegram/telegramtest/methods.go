package telegramtest

import (
	"encoding/json"
	"mime"
	"net/http"
	"path"
	"reflect"
	"regexp"
	"strconv"
	"unicode/utf8"
)

const (
	maxText    = 4096 // characters of a message, after entity parsing
	maxCaption = 1024
	maxData    = 64 // bytes of callback_data
)

func (s *Server) getMe(*request) (any, error) {
	u := s.bot.wire()
	u.CanJoinGroups = true
	return u, nil
}

// target is the chat a call writes to, refused as Telegram refuses it:
// unknown, blocked by its user, or a group the bot was removed from;
// s.mu is held.
func (s *Server) target(q *request) (*chat, error) {
	id, err := strconv.ParseInt(q.params["chat_id"], 10, 64)
	ch := s.chats[id]
	switch {
	case err != nil || ch == nil:
		return nil, &ChatNotFound
	case ch.info.Type == "private" && s.blocked[id]:
		return nil, &Blocked
	case s.kicked[id]:
		return nil, &Kicked
	}
	if thread := q.int("message_thread_id"); thread != 0 && !ch.info.Forum {
		return nil, &APIError{Code: 400, Description: "Bad Request: message thread not found"}
	}
	return ch, nil
}

// formatted reads text in a parse mode. HTML is parsed (and refused as
// Telegram refuses it); Markdown modes are taken as plain text.
func formatted(text, parseMode string) (string, []Entity, error) {
	if parseMode != "HTML" {
		return text, nil, nil
	}
	plain, entities, err := parseHTML(text)
	if err != nil {
		return "", nil, &APIError{Code: 400, Description: "Bad Request: can't parse entities: " + err.Error()}
	}
	return plain, entities, nil
}

func keyboard(raw string) ([][]Button, error) {
	if raw == "" {
		return nil, nil
	}
	var k wireKeyboard
	if err := json.Unmarshal([]byte(raw), &k); err != nil {
		return nil, &APIError{Code: 400, Description: "Bad Request: can't parse reply keyboard markup JSON object"}
	}
	var rows [][]Button
	for _, r := range k.InlineKeyboard {
		var row []Button
		for _, b := range r {
			if b.URL == "" && (b.CallbackData == "" || len(b.CallbackData) > maxData) {
				return nil, &APIError{Code: 400, Description: "Bad Request: BUTTON_DATA_INVALID"}
			}
			row = append(row, Button{Text: b.Text, Data: b.CallbackData, URL: b.URL})
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// replyTo finds the message a send answers (reply_parameters, or the
// older reply_to_message_id); s.mu is held.
func replyTo(q *request, ch *chat) (int, error) {
	var rp struct {
		MessageID                int  `json:"message_id"`
		AllowSendingWithoutReply bool `json:"allow_sending_without_reply"`
	}
	if raw := q.params["reply_parameters"]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &rp); err != nil {
			return 0, &APIError{Code: 400, Description: "Bad Request: can't parse reply parameters JSON object"}
		}
	} else {
		rp.MessageID = q.int("reply_to_message_id")
		rp.AllowSendingWithoutReply = q.params["allow_sending_without_reply"] == "true"
	}
	if rp.MessageID == 0 {
		return 0, nil
	}
	if ch.find(rp.MessageID) == nil {
		if rp.AllowSendingWithoutReply {
			return 0, nil
		}
		return 0, &APIError{Code: 400, Description: "Bad Request: message to be replied not found"}
	}
	return rp.MessageID, nil
}

// post stores a message of the bot and returns it as the Bot API does;
// s.mu is held.
func (s *Server) post(ch *chat, m *Message) any {
	m.From, m.Chat, m.Date = s.bot, ch.info, s.o.Now()
	m.History = []string{m.Text}
	ch.nextID++
	m.ID = ch.nextID
	ch.msgs = append(ch.msgs, m)
	s.notify()
	return m.wire(ch.find(m.ReplyTo))
}

func (s *Server) sendMessage(q *request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.target(q)
	if err != nil {
		return nil, err
	}
	m := &Message{Source: q.params["text"], ParseMode: q.params["parse_mode"], ThreadID: q.int("message_thread_id")}
	if m.Text, m.Entities, err = formatted(m.Source, m.ParseMode); err != nil {
		return nil, err
	}
	switch n := utf8.RuneCountInString(m.Text); {
	case n == 0:
		return nil, &APIError{Code: 400, Description: "Bad Request: message text is empty"}
	case n > maxText:
		return nil, &APIError{Code: 400, Description: "Bad Request: message is too long"}
	}
	if m.Buttons, err = keyboard(q.params["reply_markup"]); err != nil {
		return nil, err
	}
	if m.ReplyTo, err = replyTo(q, ch); err != nil {
		return nil, err
	}
	return s.post(ch, m), nil
}

// editMessageText replaces a bot message's text and keyboard; like
// Telegram it refuses an edit that changes neither.
func (s *Server) editMessageText(q *request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.target(q)
	if err != nil {
		return nil, err
	}
	m := ch.find(q.int("message_id"))
	if m == nil || m.From.ID != s.bot.ID {
		return nil, &APIError{Code: 400, Description: "Bad Request: message to edit not found"}
	}
	if m.File != nil {
		return nil, &APIError{Code: 400, Description: "Bad Request: there is no text in the message to edit"}
	}
	source, parseMode := q.params["text"], q.params["parse_mode"]
	text, entities, err := formatted(source, parseMode)
	if err != nil {
		return nil, err
	}
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		return nil, &APIError{Code: 400, Description: "Bad Request: message text is empty"}
	case n > maxText:
		return nil, &APIError{Code: 400, Description: "Bad Request: message is too long"}
	}
	buttons, err := keyboard(q.params["reply_markup"])
	if err != nil {
		return nil, err
	}
	if text == m.Text && reflect.DeepEqual(entities, m.Entities) && reflect.DeepEqual(buttons, m.Buttons) {
		return nil, &NotModified
	}
	m.Source, m.ParseMode, m.Text, m.Entities, m.Buttons = source, parseMode, text, entities, buttons
	m.Edits++
	m.EditDate = s.o.Now()
	m.History = append(m.History, text)
	s.notify()
	return m.wire(ch.find(m.ReplyTo)), nil
}

func (s *Server) sendPhoto(q *request) (any, error)    { return s.sendFile(q, "photo") }
func (s *Server) sendDocument(q *request) (any, error) { return s.sendFile(q, "document") }

// sendFile takes an upload (multipart) or the file_id of a stored file.
func (s *Server) sendFile(q *request, kind string) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, err := s.target(q)
	if err != nil {
		return nil, err
	}
	var f *File
	if up, ok := q.files[kind]; ok {
		mimeType := mime.TypeByExtension(path.Ext(up.Name))
		if mimeType == "" {
			mimeType = http.DetectContentType(up.Data)
		}
		f = s.addFile(kind, up.Name, mimeType, up.Data, 800, 600)
		f.sizes = []*File{f}
	} else if f = s.files[q.params[kind]]; f == nil {
		return nil, &APIError{Code: 400, Description: "Bad Request: there is no " + kind + " in the request"}
	}
	m := &Message{Source: q.params["caption"], ParseMode: q.params["parse_mode"], ThreadID: q.int("message_thread_id"), File: f}
	if m.Text, m.Entities, err = formatted(m.Source, m.ParseMode); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(m.Text) > maxCaption {
		return nil, &APIError{Code: 400, Description: "Bad Request: message caption is too long"}
	}
	if m.Buttons, err = keyboard(q.params["reply_markup"]); err != nil {
		return nil, err
	}
	if m.ReplyTo, err = replyTo(q, ch); err != nil {
		return nil, err
	}
	return s.post(ch, m), nil
}

var chatActions = map[string]bool{
	"typing": true, "upload_photo": true, "record_video": true, "upload_video": true, "record_voice": true,
	"upload_voice": true, "upload_document": true, "choose_sticker": true, "find_location": true,
}

func (s *Server) sendChatAction(q *request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.target(q); err != nil {
		return nil, err
	}
	if !chatActions[q.params["action"]] {
		return nil, &APIError{Code: 400, Description: "Bad Request: wrong parameter action in request"}
	}
	return true, nil
}

// answerCallbackQuery answers a press once; a second answer, or one to
// a press that never was, is refused.
func (s *Server) answerCallbackQuery(q *request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cq := s.queries[q.params["callback_query_id"]]
	if cq == nil || cq.answered {
		return nil, &APIError{Code: 400, Description: "Bad Request: query is too old and response timeout expired or query ID is invalid"}
	}
	cq.answered, cq.text, cq.showAlert = true, q.params["text"], q.params["show_alert"] == "true"
	s.notify()
	return true, nil
}

var commandName = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

func (s *Server) setMyCommands(q *request) (any, error) {
	var cmds []wireCommand
	if err := json.Unmarshal([]byte(q.params["commands"]), &cmds); err != nil {
		return nil, &APIError{Code: 400, Description: "Bad Request: can't parse commands JSON object"}
	}
	if len(cmds) > 100 {
		return nil, &APIError{Code: 400, Description: "Bad Request: BOT_COMMANDS_TOO_MUCH"}
	}
	var out []Command
	for _, c := range cmds {
		if !commandName.MatchString(c.Command) {
			return nil, &APIError{Code: 400, Description: "Bad Request: BOT_COMMAND_INVALID"}
		}
		if n := utf8.RuneCountInString(c.Description); n == 0 || n > 256 {
			return nil, &APIError{Code: 400, Description: "Bad Request: BOT_COMMAND_DESCRIPTION_INVALID"}
		}
		out = append(out, Command{Command: c.Command, Description: c.Description})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.commands = out
	s.notify()
	return true, nil
}

func (s *Server) getMyCommands(*request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []wireCommand{}
	for _, c := range s.commands {
		out = append(out, wireCommand(c))
	}
	return out, nil
}
