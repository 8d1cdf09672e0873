package gateway

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/gateway/format"
)

// stream shows one turn's answer in the chat. While the model writes,
// one draft message is edited at most once per EditInterval with the
// answer's complete paragraphs, so each edit is a prefix of the next;
// the final text replaces the draft by an edit (through the ledger),
// never by a second message. Drafts are best effort and not in the
// ledger: a draft that fails stops the drafting, and the answer is then
// sent whole at the end.
type stream struct {
	c   *chat
	m   Inbound
	lim Limits

	mu       sync.Mutex
	text     strings.Builder // the answer streamed since the last restart
	draftID  string
	drafted  string // the draft's text as last sent
	off      bool   // drafting stopped
	lastEdit time.Time
	pause    time.Time // a rate limit's end
	tools    []string  // the tools called, in order, for the status line
	statusID string
	statusAt time.Time
	status   string
}

func newStream(c *chat, m Inbound) *stream {
	s := &stream{c: c, m: m, lim: c.a.Limits()}
	s.off = !c.g.o.Streaming || !s.lim.Edits
	return s
}

func (s *stream) observe(e agent.Event) {
	if e.Depth > 0 {
		return // subagents' text is not the answer
	}
	switch e.Kind {
	case agent.EventTextDelta:
		s.mu.Lock()
		s.text.WriteString(e.Text)
		s.mu.Unlock()
		s.draft()
	case agent.EventRetry, agent.EventFallback:
		if e.Restart {
			s.mu.Lock()
			s.text.Reset()
			s.mu.Unlock()
		}
	case agent.EventStep:
		// A new model call: the text of the step before belongs to it.
		s.mu.Lock()
		if s.text.Len() > 0 && !strings.HasSuffix(s.text.String(), "\n\n") {
			s.text.WriteString("\n\n")
		}
		s.mu.Unlock()
	case agent.EventToolStarted:
		if e.Tool != nil {
			s.progress(e.Tool.Name)
		}
	}
}

// draft edits the draft with the complete paragraphs so far.
func (s *stream) draft() {
	g := s.c.g
	s.mu.Lock()
	defer s.mu.Unlock()
	now := g.o.Now()
	if s.off || now.Before(s.pause) || (!s.lastEdit.IsZero() && now.Sub(s.lastEdit) < g.o.EditInterval) {
		return
	}
	done, _ := format.Blocks(s.text.String())
	if strings.TrimSpace(done) == "" {
		return
	}
	parts := format.Render(s.lim.Format, done, s.lim.MaxText)
	if len(parts) != 1 {
		s.off = true // longer than one message: the end sends it in parts
		return
	}
	text := parts[0]
	if text == s.drafted {
		return
	}
	s.lastEdit = now
	if err := s.post(&s.draftID, Outbound{Chat: s.m.Chat, Text: text, ReplyTo: s.replyTo()}); err != nil {
		if se, ok := AsSendError(err); !ok || se.RetryAfter == 0 {
			g.log.Info("draft stopped", "chat", s.c.key, "err", err)
			s.off = true
		}
		return
	}
	s.drafted = text
}

func (s *stream) replyTo() string {
	if s.m.ChatType == DM {
		return ""
	}
	return s.m.MessageID
}

// progress keeps a compact status line of the tools the turn called.
func (s *stream) progress(name string) {
	g := s.c.g
	if g.o.ToolProgress == "off" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = append(s.tools, name)
	line := "⚙ " + toolLine(s.tools)
	now := g.o.Now()
	if line == s.status || (!s.statusAt.IsZero() && now.Sub(s.statusAt) < g.o.EditInterval) || now.Before(s.pause) {
		return
	}
	s.statusAt = now
	if err := s.post(&s.statusID, Outbound{Chat: s.m.Chat, Text: line, Plain: true}); err == nil {
		s.status = line
	}
}

// post sends out as a new message when *id is empty, keeping the id it
// gets, or edits message *id. An edit that changes nothing is no error.
// A rate limit pauses the drafts and the status line until it ends,
// counted from the platform's answer (its wait began before it). s.mu
// is held.
func (s *stream) post(id *string, out Outbound) error {
	ctx := context.Background()
	var err error
	if *id == "" {
		var sent Sent
		sent, err = s.c.a.Send(ctx, out)
		*id = sent.MessageID
	} else {
		err = s.c.a.Edit(ctx, out.Chat, *id, out)
	}
	se, ok := AsSendError(err)
	switch {
	case ok && se.NotModified:
		return nil
	case ok && se.RetryAfter > 0:
		s.pause = s.c.g.o.Now().Add(se.RetryAfter)
	}
	return err
}

// toolLine is "terminal ×3 · read_file": each tool once, in order of
// first call, with its count.
func toolLine(names []string) string {
	var order []string
	n := map[string]int{}
	for _, t := range names {
		if n[t] == 0 {
			order = append(order, t)
		}
		n[t]++
	}
	parts := make([]string, len(order))
	for i, t := range order {
		parts[i] = t
		if n[t] > 1 {
			parts[i] = fmt.Sprintf("%s ×%d", t, n[t])
		}
	}
	return strings.Join(parts, " · ")
}

// finish delivers the turn's outcome through the ledger: the answer (the
// draft edited into its first part), files it names, or what went wrong.
func (s *stream) finish(ctx context.Context, res *agent.Result, runErr error) {
	g := s.c.g
	s.mu.Lock()
	s.off = true // no draft after this
	draftID, drafted, pause := s.draftID, s.drafted, s.pause
	s.mu.Unlock()
	platform := s.c.a.Platform()
	base := Delivery{Platform: platform, Chat: s.m.Chat, SessionKey: s.c.key}
	if pause.After(g.o.Now()) {
		// A rate limit a draft met holds the chat's replies too.
		base.NotBefore = pause
	}

	switch {
	case res != nil && res.Interrupted:
		if draftID != "" {
			d := base
			d.EditOf, d.Text = draftID, drafted+"\n\n"+stoppedMark(s.lim.Format)
			s.send(ctx, d)
		}
		return
	case runErr != nil && (res == nil || res.FinalResponse == ""):
		d := base
		d.Text, d.Plain, d.ReplyTo = "⚠ "+runErr.Error(), true, s.replyTo()
		if draftID != "" {
			d.EditOf = draftID
		}
		s.send(ctx, d)
		return
	}
	answer := ""
	if res != nil {
		answer = res.FinalResponse
	}
	answer, files := g.outboundFiles(s.c, answer)
	parts := format.Render(s.lim.Format, answer, s.lim.MaxText)
	if strings.TrimSpace(answer) == "" && len(files) == 0 {
		parts = []string{"(no answer)"}
	}
	for i, p := range parts {
		d := base
		d.Text = p
		if i == 0 {
			if draftID != "" {
				d.EditOf = draftID
			} else {
				d.ReplyTo = s.replyTo()
			}
		}
		s.send(ctx, d)
	}
	for _, f := range files {
		d := base
		d.File = &f
		s.send(ctx, d)
	}
}

func (s *stream) send(ctx context.Context, d Delivery) {
	if _, err := s.c.g.deliver(ctx, d); err != nil {
		s.c.g.log.Error("reply", "chat", s.c.key, "err", err)
	}
}

func stoppedMark(format string) string {
	if format == "html" {
		return "<i>(stopped)</i>"
	}
	if format == "mrkdwn" || format == "markdown" {
		return "_(stopped)_"
	}
	return "(stopped)"
}
