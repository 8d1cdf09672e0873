package slacktest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
)

type file struct {
	id, name, title, mime string
	length                int    // declared by files.getUploadURLExternal
	content               []byte // nil until uploaded
	uploaded, shared      bool
	channel, threadTS     string
	comment               string
	fromPerson            bool // a person's file (AddFile), not the bot's
}

// File is a file the bot uploaded and shared.
type File struct {
	ID       string
	Name     string
	Title    string
	Content  []byte
	Channel  string
	ThreadTS string
	// Comment is the initial_comment shared with the file.
	Comment string
}

// AddFile makes a file a person can attach to a message (UserMessage.Files)
// and returns its id; the bot downloads it from its url_private with the
// bot token.
func (s *Server) AddFile(name, mimeType string, content []byte) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := fmt.Sprintf("FU%04d", s.nextLocked())
	s.files[id] = &file{id: id, name: name, title: name, mime: mimeType, length: len(content),
		content: append([]byte(nil), content...), uploaded: true, fromPerson: true}
	return id
}

// Uploads returns the files the bot shared in a channel, in order.
func (s *Server) Uploads(channelID string) []File {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []File
	c := s.channels[channelID]
	if c == nil {
		return nil
	}
	for _, m := range c.msgs {
		if m.botID != BotID {
			continue
		}
		for _, id := range m.files {
			f := s.files[id]
			out = append(out, File{ID: f.id, Name: f.name, Title: f.title, Content: append([]byte(nil), f.content...),
				Channel: f.channel, ThreadTS: f.threadTS, Comment: f.comment})
		}
	}
	return out
}

// fileJSON is a file as message events carry it.
func (s *Server) fileJSON(f *file) map[string]any {
	private := s.hs.URL + "/files-pri/" + f.id + "/" + url.PathEscape(f.name)
	return map[string]any{
		"id": f.id, "name": f.name, "title": f.title, "mimetype": f.mime, "filetype": path.Ext(f.name),
		"size": len(f.content), "mode": "hosted", "url_private": private, "url_private_download": private + "?download=1",
	}
}

func (s *Server) getUploadURL(c *Call) answer {
	name := c.Params.Get("filename")
	length, err := strconv.Atoi(c.Params.Get("length"))
	if name == "" || err != nil || length <= 0 {
		return refuse("invalid_arguments")
	}
	id := fmt.Sprintf("F%04d", s.nextLocked())
	s.files[id] = &file{id: id, name: name, title: name, length: length}
	return ok(answer{"upload_url": s.hs.URL + "/upload/" + id, "file_id": id})
}

// serveUpload takes a file's content, sent to the upload URL as
// multipart/form-data with a "file" part.
func (s *Server) serveUpload(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	part, _, err := r.FormFile("file")
	var content []byte
	if err == nil {
		content, err = io.ReadAll(part)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notifyLocked()
	s.calls = append(s.calls, Call{Method: "upload", Params: url.Values{"file": {id}}})
	f := s.files[id]
	switch {
	case f == nil || f.fromPerson:
		http.Error(w, "unknown upload", http.StatusNotFound)
	case err != nil:
		http.Error(w, "no file part: "+err.Error(), http.StatusBadRequest)
	case len(content) != f.length:
		http.Error(w, fmt.Sprintf("declared %d bytes, received %d", f.length, len(content)), http.StatusBadRequest)
	default:
		f.content, f.uploaded = content, true
		w.Header().Set("Content-Type", "text/plain")
		_, _ = fmt.Fprintf(w, "OK - %d", len(content))
	}
}

func (s *Server) completeUpload(c *Call) answer {
	var list []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(c.Params.Get("files")), &list); err != nil || len(list) == 0 {
		return refuse("invalid_arguments")
	}
	var shared []*file
	for _, e := range list {
		f := s.files[e.ID]
		if f == nil || f.fromPerson {
			return refuse("file_not_found")
		}
		if !f.uploaded {
			return refuse("file_upload_not_complete")
		}
		if e.Title != "" {
			f.title = e.Title
		}
		shared = append(shared, f)
	}
	out := []answer{}
	id := c.Params.Get("channel_id")
	var m *message
	if id != "" {
		m = &message{ts: s.tsLocked(), threadTS: c.Params.Get("thread_ts"), user: BotUserID, botID: BotID,
			text: c.Params.Get("initial_comment"), mrkdwn: true, subtype: "file_share"}
		s.channelLocked(id).msgs = append(s.channelLocked(id).msgs, m)
	}
	for _, f := range shared {
		f.shared, f.channel, f.threadTS, f.comment = id != "", id, c.Params.Get("thread_ts"), c.Params.Get("initial_comment")
		if m != nil {
			m.files = append(m.files, f.id)
		}
		out = append(out, answer{"id": f.id, "title": f.title})
	}
	return ok(answer{"files": out})
}

// serveDownload serves a file's url_private to a request with the bot
// token; without it, Slack sends the browser to its sign-in page.
func (s *Server) serveDownload(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	token := r.Header.Get("Authorization")
	s.mu.Lock()
	f := s.files[id]
	s.calls = append(s.calls, Call{Method: "files.download", Token: token, Params: url.Values{"file": {id}}})
	s.notifyLocked()
	var content []byte
	var mimeType string
	if f != nil {
		content, mimeType = append([]byte(nil), f.content...), f.mime
	}
	s.mu.Unlock()
	switch {
	case token != "Bearer "+BotToken:
		http.Redirect(w, r, "/signin?redir="+url.QueryEscape(r.URL.Path), http.StatusFound)
	case f == nil:
		http.NotFound(w, r)
	default:
		w.Header().Set("Content-Type", mimeType)
		_, _ = w.Write(content)
	}
}
