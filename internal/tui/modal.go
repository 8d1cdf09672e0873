package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/tool/approval"
)

// Bridge carries the agent's questions (a dangerous command to approve,
// a clarify question) to the UI and the answers back. Pass Approve and
// Clarify to app.New; the UI connects the bridge when it starts. Until
// then, and after it stopped, questions fail, which denies the command.
type Bridge struct {
	mu   sync.Mutex
	send func(tea.Msg)
	ids  atomic.Int64
}

func (b *Bridge) setSend(send func(tea.Msg)) {
	b.mu.Lock()
	b.send = send
	b.mu.Unlock()
}

func (b *Bridge) sender() func(tea.Msg) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.send
}

type approvalMsg struct {
	id     int64
	prompt approval.Prompt
	reply  chan approval.Choice
}

type clarifyMsg struct {
	id       int64
	question string
	choices  []string
	reply    chan string
}

// withdrawMsg closes a modal whose question is no longer awaited (the
// approval timed out, the turn was interrupted).
type withdrawMsg struct{ id int64 }

// Approve asks the user about a dangerous command (app.Options.Approve).
// The approver bounds the wait (approvals.timeout) and cancels ctx when
// it gives up; the modal then closes and the answer is deny.
func (b *Bridge) Approve(ctx context.Context, p approval.Prompt) (approval.Choice, error) {
	send := b.sender()
	if send == nil {
		return approval.Deny, errNoUI
	}
	id := b.ids.Add(1)
	reply := make(chan approval.Choice, 1)
	send(approvalMsg{id: id, prompt: p, reply: reply})
	select {
	case c := <-reply:
		return c, nil
	case <-ctx.Done():
		send(withdrawMsg{id})
		return approval.Deny, ctx.Err()
	}
}

// Clarify asks the user a question of the clarify tool
// (app.Options.Clarify): one of choices, or free text.
func (b *Bridge) Clarify(ctx context.Context, question string, choices []string) (string, error) {
	send := b.sender()
	if send == nil {
		return "", errNoUI
	}
	id := b.ids.Add(1)
	reply := make(chan string, 1)
	send(clarifyMsg{id: id, question: question, choices: choices, reply: reply})
	select {
	case a := <-reply:
		if a == "\x00" {
			return "", fmt.Errorf("the user dismissed the question")
		}
		return a, nil
	case <-ctx.Done():
		send(withdrawMsg{id})
		return "", ctx.Err()
	}
}

// modal is the question on screen.
type modal struct {
	id       int64
	approval *approvalMsg
	clarify  *clarifyMsg
	choices  []string
	selected int
	deadline time.Time
	// deadlineShown marks a modal past its deadline whose withdrawal has
	// not come yet.
	deadlineShown bool
}

var approvalChoices = []struct {
	key    string
	label  string
	choice approval.Choice
}{
	{"o", "once", approval.Once},
	{"s", "session", approval.Session},
	{"a", "always", approval.Always},
	{"d", "deny", approval.Deny},
}

func (m *modal) expired(now time.Time) bool { return !m.deadline.IsZero() && now.After(m.deadline) }

func (m *Model) openApproval(msg approvalMsg) {
	m.answerModal() // a question still open is withdrawn by its own asker
	md := &modal{id: msg.id, approval: &msg, deadline: m.now().Add(m.approvalWait), selected: len(approvalChoices) - 1}
	for _, c := range approvalChoices {
		md.choices = append(md.choices, c.label)
	}
	m.modal = md
	m.scroll = 0
	m.dirty = true
}

func (m *Model) openClarify(msg clarifyMsg) {
	m.answerModal()
	m.modal = &modal{id: msg.id, clarify: &msg, choices: msg.choices}
	m.scroll = 0
	m.dirty = true
}

// answerModal closes an open modal with a deny or a dismissal.
func (m *Model) answerModal() {
	md := m.modal
	if md == nil {
		return
	}
	if md.approval != nil {
		m.answerApproval(approval.Deny)
	} else {
		m.answerClarify("\x00")
	}
}

func (m *Model) answerApproval(c approval.Choice) {
	md := m.modal
	m.modal = nil
	md.approval.reply <- c
	verb := map[approval.Choice]string{approval.Once: "approved once", approval.Session: "approved for this session",
		approval.Always: "approved always (command_allowlist in config.yaml; undo with hermes approvals revoke)", approval.Deny: "denied"}[c]
	if md.approval.prompt.Tool == "network" && c == approval.Always {
		verb = "approved always (sandbox.network.allow in config.yaml)"
	}
	kind := infoBlock
	if c == approval.Deny {
		kind = warnBlock
	}
	m.add(&block{kind: kind, text: fmt.Sprintf("%s: %s", verb, clip(oneLine(md.approval.prompt.Command), 80))})
}

func (m *Model) answerClarify(a string) {
	md := m.modal
	m.modal = nil
	md.clarify.reply <- a
	if a != "\x00" {
		m.add(&block{kind: userBlock, text: a})
	} else {
		m.add(&block{kind: warnBlock, text: "question dismissed"})
	}
}

// withdraw closes the modal of a question no longer awaited.
func (m *Model) withdraw(id int64) {
	if m.modal == nil || m.modal.id != id {
		return
	}
	text := "no answer in time: denied"
	if m.modal.approval != nil && !m.modal.expired(m.now()) {
		text = "the approval request was cancelled: denied"
	}
	if m.modal.clarify != nil {
		text = "the question was withdrawn"
	}
	m.modal = nil
	m.add(&block{kind: warnBlock, text: text})
}

// modalKey handles a key while a modal is open; it reports whether it
// used the key.
func (m *Model) modalKey(msg tea.KeyPressMsg) bool {
	md := m.modal
	k := msg.String()
	if md.approval != nil {
		for _, c := range approvalChoices {
			if k == c.key {
				m.answerApproval(c.choice)
				return true
			}
		}
		switch k {
		case "left", "up", "shift+tab":
			md.selected = (md.selected + len(md.choices) - 1) % len(md.choices)
		case "right", "down", "tab":
			md.selected = (md.selected + 1) % len(md.choices)
		case "enter":
			m.answerApproval(approvalChoices[md.selected].choice)
		case "esc", "ctrl+c", "n":
			m.answerApproval(approval.Deny)
		}
		m.dirty = true
		return true // the input is not used while approving
	}
	switch k {
	case "esc", "ctrl+c":
		m.answerClarify("\x00")
		return true
	case "up":
		if m.input.Value() == "" && len(md.choices) > 0 {
			md.selected = (md.selected + len(md.choices) - 1) % len(md.choices)
			m.dirty = true
			return true
		}
	case "down":
		if m.input.Value() == "" && len(md.choices) > 0 {
			md.selected = (md.selected + 1) % len(md.choices)
			m.dirty = true
			return true
		}
	case "enter":
		text := strings.TrimSpace(m.input.Value())
		m.input.Reset()
		switch {
		case text == "" && len(md.choices) > 0:
			m.answerClarify(md.choices[md.selected])
		case text != "":
			var n int
			if _, err := fmt.Sscanf(text, "%d", &n); err == nil && fmt.Sprint(n) == text && n >= 1 && n <= len(md.choices) {
				text = md.choices[n-1]
			}
			m.answerClarify(text)
		}
		return true
	}
	return false // typing goes to the input: a free-text answer
}

// modalView draws the modal.
func (m *Model) modalView(width int) string {
	md := m.modal
	t := m.theme
	var b strings.Builder
	inner := max(20, width-4)
	if p := md.approval; p != nil {
		title := "⚠ Dangerous command"
		if p.prompt.Tool == "network" {
			title = "⚠ Network access"
		}
		b.WriteString(t.warning.Bold(true).Render(title) + "\n")
		for _, l := range firstLines(p.prompt.Command, 6, inner) {
			b.WriteString("  " + l + "\n")
		}
		for _, f := range p.prompt.Findings {
			b.WriteString(t.dim.Render(clip("  • "+f.Description+" ("+f.Key+")", inner)) + "\n")
		}
		b.WriteString("\n")
		for i, c := range approvalChoices {
			label := "[" + c.key + "] " + c.label
			if i == md.selected {
				label = t.modalHi.Render(label)
			}
			b.WriteString(label + "  ")
		}
		left := max(0, md.deadline.Sub(m.now()))
		b.WriteString("\n" + t.dim.Render(fmt.Sprintf("←/→ and Enter, or a letter · Esc denies · denied in %s without an answer", left.Round(time.Second))))
		return t.modal.Width(width).Render(b.String())
	}
	c := md.clarify
	b.WriteString(t.prompt.Render("? ") + c.question + "\n")
	for i, choice := range md.choices {
		label := fmt.Sprintf("%d) %s", i+1, choice)
		if i == md.selected {
			label = t.modalHi.Render(label)
		}
		b.WriteString("  " + label + "\n")
	}
	help := "type an answer and Enter · Esc dismisses"
	if len(md.choices) > 0 {
		help = "↑/↓ and Enter picks · or type a number or your own answer · Esc dismisses"
	}
	b.WriteString(t.dim.Render(help))
	return t.modal.Width(width).Render(b.String())
}
