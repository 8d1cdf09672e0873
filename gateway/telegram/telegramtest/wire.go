package telegramtest

// The Bot API's JSON, as far as the fake speaks it. These are written
// from the Bot API's documentation, not taken from a client library, so
// a client that misreads the API fails against the fake.

type wireUser struct {
	ID                      int64  `json:"id"`
	IsBot                   bool   `json:"is_bot"`
	FirstName               string `json:"first_name"`
	LastName                string `json:"last_name,omitempty"`
	Username                string `json:"username,omitempty"`
	CanJoinGroups           bool   `json:"can_join_groups,omitempty"`
	CanReadAllGroupMessages bool   `json:"can_read_all_group_messages,omitempty"`
}

type wireChat struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	Title     string `json:"title,omitempty"`
	Username  string `json:"username,omitempty"`
	FirstName string `json:"first_name,omitempty"`
	IsForum   bool   `json:"is_forum,omitempty"`
}

type wireEntity struct {
	Type   string `json:"type"`
	Offset int    `json:"offset"`
	Length int    `json:"length"`
	URL    string `json:"url,omitempty"`
}

type wirePhotoSize struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	FileSize     int    `json:"file_size,omitempty"`
}

type wireVoice struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	Duration     int    `json:"duration"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

type wireDocument struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileName     string `json:"file_name,omitempty"`
	MimeType     string `json:"mime_type,omitempty"`
	FileSize     int    `json:"file_size,omitempty"`
}

type wireButton struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data,omitempty"`
	URL          string `json:"url,omitempty"`
}

type wireKeyboard struct {
	InlineKeyboard [][]wireButton `json:"inline_keyboard"`
}

type wireMessage struct {
	MessageID       int             `json:"message_id"`
	MessageThreadID int             `json:"message_thread_id,omitempty"`
	IsTopicMessage  bool            `json:"is_topic_message,omitempty"`
	From            *wireUser       `json:"from,omitempty"`
	Date            int64           `json:"date"`
	EditDate        int64           `json:"edit_date,omitempty"`
	Chat            wireChat        `json:"chat"`
	ReplyToMessage  *wireMessage    `json:"reply_to_message,omitempty"`
	Text            string          `json:"text,omitempty"`
	Entities        []wireEntity    `json:"entities,omitempty"`
	Caption         string          `json:"caption,omitempty"`
	CaptionEntities []wireEntity    `json:"caption_entities,omitempty"`
	Photo           []wirePhotoSize `json:"photo,omitempty"`
	Voice           *wireVoice      `json:"voice,omitempty"`
	Document        *wireDocument   `json:"document,omitempty"`
	ReplyMarkup     *wireKeyboard   `json:"reply_markup,omitempty"`
}

type wireCallbackQuery struct {
	ID           string       `json:"id"`
	From         wireUser     `json:"from"`
	Message      *wireMessage `json:"message,omitempty"`
	ChatInstance string       `json:"chat_instance"`
	Data         string       `json:"data,omitempty"`
}

type wireUpdate struct {
	UpdateID      int64              `json:"update_id"`
	Message       *wireMessage       `json:"message,omitempty"`
	CallbackQuery *wireCallbackQuery `json:"callback_query,omitempty"`
}

type wireFile struct {
	FileID       string `json:"file_id"`
	FileUniqueID string `json:"file_unique_id"`
	FileSize     int    `json:"file_size,omitempty"`
	FilePath     string `json:"file_path,omitempty"`
}

type wireCommand struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

func (u User) wire() *wireUser {
	return &wireUser{ID: u.ID, IsBot: u.IsBot, FirstName: u.FirstName, LastName: u.LastName, Username: u.Username}
}

func (c Chat) wire() wireChat {
	return wireChat{ID: c.ID, Type: c.Type, Title: c.Title, Username: c.Username, FirstName: c.FirstName, IsForum: c.Forum}
}

func wireEntities(es []Entity) []wireEntity {
	var out []wireEntity
	for _, e := range es {
		out = append(out, wireEntity(e))
	}
	return out
}

// wire renders a stored message as the Bot API sends it; reply is the
// message it answers, if the fake still has it.
func (m *Message) wire(reply *Message) *wireMessage {
	w := &wireMessage{
		MessageID: m.ID,
		From:      m.From.wire(),
		Date:      m.Date.Unix(),
		Chat:      m.Chat.wire(),
	}
	if m.ThreadID != 0 {
		w.MessageThreadID = m.ThreadID
		w.IsTopicMessage = m.Chat.Forum
	}
	if m.Edits > 0 {
		w.EditDate = m.EditDate.Unix()
	}
	if reply != nil {
		w.ReplyToMessage = reply.wire(nil)
	}
	if m.File == nil {
		w.Text, w.Entities = m.Text, wireEntities(m.Entities)
	} else {
		w.Caption, w.CaptionEntities = m.Text, wireEntities(m.Entities)
		f := m.File
		switch f.Kind {
		case "photo":
			for _, size := range f.sizes {
				w.Photo = append(w.Photo, wirePhotoSize{FileID: size.ID, FileUniqueID: size.UniqueID, Width: size.width, Height: size.height, FileSize: len(size.Data)})
			}
		case "voice":
			w.Voice = &wireVoice{FileID: f.ID, FileUniqueID: f.UniqueID, Duration: 1, MimeType: f.MIME, FileSize: len(f.Data)}
		default:
			w.Document = &wireDocument{FileID: f.ID, FileUniqueID: f.UniqueID, FileName: f.Name, MimeType: f.MIME, FileSize: len(f.Data)}
		}
	}
	if len(m.Buttons) > 0 {
		k := &wireKeyboard{}
		for _, row := range m.Buttons {
			var r []wireButton
			for _, b := range row {
				r = append(r, wireButton{Text: b.Text, CallbackData: b.Data, URL: b.URL})
			}
			k.InlineKeyboard = append(k.InlineKeyboard, r)
		}
		w.ReplyMarkup = k
	}
	return w
}
