package tui

import (
	"context"
	"errors"
	"fmt"
	"github.com/hermes-go/hermes/mcp"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/internal/slash"
	"github.com/hermes-go/hermes/llm"
)

// Messages from the goroutines around the UI.
type (
	turnDoneMsg struct {
		res *agent.Result
		err error
	}
	shellDoneMsg struct {
		command string
		output  string
		failed  bool
		err     error
	}
	commandDoneMsg struct {
		line      string
		exclusive bool
		err       error
	}
	printMsg struct {
		kind slash.Kind
		text string
	}
	submitMsg struct{ text string }
	// queueMsg adds a message to the queue (/queue).
	queueMsg  struct{ text string }
	resetMsg  struct{ history []llm.Message }
	exitMsg   struct{}
	statusMsg status
	tickMsg   time.Time
	renderMsg struct{}
	// mcpPollMsg looks again at the MCP servers, which change state in
	// the background (one dies, one that was slow joins).
	mcpPollMsg struct{}
	// readyMsg brings the conversation Options.Start opened.
	readyMsg struct {
		conv   *app.Conversation
		banner []string
		err    error
	}
	// probeMsg closes done once the messages sent before it were handled
	// (for measurements that wait on the UI).
	probeMsg struct{ done chan struct{} }
)

// tailEvery is the most often the answer still streaming is rendered.
const tailEvery = 50 * time.Millisecond

// Update handles a message, then shows the queue to the slash host.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	model, cmd := m.update(msg)
	if q := m.host.queued.Load(); q == nil && len(m.queue) > 0 || q != nil && !slices.Equal(*q, m.queue) {
		cp := slices.Clone(m.queue)
		m.host.queued.Store(&cp)
	}
	return model, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
		m.input.SetWidth(m.width)
		for _, b := range m.blocks {
			if b.live != nil {
				b.live.rerender(&m.md, m.contentWidth())
			}
		}
		m.dirty = true
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		m.paste(msg.Content)
		return m, nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.scrollBy(3)
		case tea.MouseWheelDown:
			m.scrollBy(-3)
		}
		return m, nil
	case eventsMsg:
		for _, e := range m.feed.drain() {
			m.event(e)
		}
		return m, m.throttleTail()
	case renderMsg:
		m.tailTick = false
		return m, m.throttleTail()
	case tickMsg:
		if m.running == "" && m.modal == nil {
			return m, nil
		}
		m.dirty = true // the spinner and the clocks move
		if m.live != nil {
			for _, b := range m.live.tools {
				if !b.tool.done {
					b.invalidate()
				}
			}
		}
		if m.modal != nil && m.modal.expired(m.now()) {
			m.modal.deadlineShown = true
		}
		return m, tick()
	case turnDoneMsg:
		return m, m.turnDone(msg)
	case shellDoneMsg:
		m.shellDone(msg)
		return m, m.next()
	case commandDoneMsg:
		m.commandsRunning--
		if msg.err != nil {
			m.add(&block{kind: errorBlock, text: msg.err.Error()})
		}
		if msg.exclusive {
			m.running = ""
		}
		if m.quitting {
			return m, tea.Quit
		}
		return m, tea.Batch(m.refreshStatus(), m.next())
	case printMsg:
		m.add(&block{kind: kindBlock(msg.kind), text: msg.text})
		m.scroll = 0
		return m, nil
	case submitMsg:
		return m, m.submit(msg.text)
	case resetMsg:
		m.blocks = nil
		m.live = nil
		if len(msg.history) > 0 {
			m.showResumed(msg.history)
		}
		m.dirty, m.scroll = true, 0
		return m, nil
	case exitMsg:
		m.quitting = true
		if m.running == "" {
			return m, tea.Quit
		}
		return m, nil
	case statusMsg:
		m.status = status(msg)
		return m, nil
	case readyMsg:
		if msg.err != nil {
			m.startErr = msg.err
			return m, tea.Quit
		}
		m.attach(msg.conv, msg.banner)
		m.running = ""
		return m, tea.Batch(m.refreshStatus(), m.next(), m.pollMCP())
	case mcpPollMsg:
		m.mcpChanged()
		return m, m.pollMCP()
	case probeMsg:
		close(msg.done)
		return m, nil
	case approvalMsg:
		m.openApproval(msg)
		return m, tick()
	case clarifyMsg:
		m.openClarify(msg)
		return m, tick()
	case withdrawMsg:
		m.withdraw(msg.id)
		return m, nil
	case queueMsg:
		if m.running == "" && m.rt != nil {
			return m, m.submit(msg.text)
		}
		m.queue = append(m.queue, msg.text)
		m.dirty = true
		return m, nil
	case pickMsg:
		m.openPicker(msg)
		return m, nil
	case unpickMsg:
		if m.picker != nil && m.picker.id == msg.id {
			m.picker = nil
			m.dirty = true
		}
		return m, nil
	}
	return m, nil
}

func kindBlock(k slash.Kind) blockKind {
	switch k {
	case slash.Markdown:
		return answerBlock
	case slash.Warning:
		return warnBlock
	case slash.Error:
		return errorBlock
	}
	return infoBlock
}

// mcpPollEvery is how often the status line looks at the MCP servers.
const mcpPollEvery = time.Second

// pollMCP schedules the next look at the MCP servers. It runs with none
// configured too: /reload-mcp may add the first.
func (m *Model) pollMCP() tea.Cmd {
	if m.rt == nil {
		return nil
	}
	return tea.Tick(mcpPollEvery, func(time.Time) tea.Msg { return mcpPollMsg{} })
}

// mcpChanged updates the status line when the servers changed, and says
// in the conversation which server went down and why.
func (m *Model) mcpChanged() {
	list := m.rt.MCPStatus()
	line := mcp.StatusLine(list)
	if line == m.status.mcp {
		return
	}
	m.status.mcp = line
	m.dirty = true
	down := map[string]bool{}
	for _, st := range list {
		if st.State == mcp.Down {
			down[st.Name] = true
			if !m.mcpDown[st.Name] {
				m.add(&block{kind: warnBlock, text: "MCP server " + st.String()})
			}
		}
	}
	m.mcpDown = down
}

func tick() tea.Cmd {
	return tea.Tick(100*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// throttleTail renders the streaming answer now if it was not rendered
// in the last tailEvery, and otherwise schedules a render.
func (m *Model) throttleTail() tea.Cmd {
	if m.live == nil {
		return nil
	}
	now := m.now()
	if wait := tailEvery - now.Sub(m.lastTail); wait > 0 {
		if m.tailTick {
			return nil
		}
		m.tailTick = true
		return tea.Tick(wait, func(time.Time) tea.Msg { return renderMsg{} })
	}
	m.lastTail = now
	w := m.contentWidth()
	for _, b := range []*block{m.live.answer} {
		if b != nil && b.live != nil {
			b.live.commit(&m.md, w)
			if b.live.renderTail(&m.md, w) {
				m.dirty = true
			}
		}
	}
	if m.live.reasoning != nil {
		m.dirty = true
	}
	return nil
}

// submit handles a line the user sent (Enter), or one a command sends.
func (m *Model) submit(text string) tea.Cmd {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	trimmed := strings.TrimSpace(text)
	if m.rt == nil { // starting: everything waits for the runtime
		m.queue = append(m.queue, text)
		m.dirty = true
		return nil
	}
	if m.running != "" {
		if name, _, ok := slash.Parse(trimmed); ok {
			if c, err := m.commands.Lookup(name); err == nil && c.WhileBusy {
				return m.runCommand(trimmed, false)
			}
		}
		if m.busyMode == "interrupt" && m.running == "turn" && !strings.HasPrefix(trimmed, "/") {
			m.conv().Interrupt()
			m.queue = append([]string{text}, m.queue...)
			m.add(&block{kind: infoBlock, text: "Interrupting; this is sent next: " + clip(oneLine(text), 60)})
			return nil
		}
		m.queue = append(m.queue, text)
		m.dirty = true
		return nil
	}
	if _, _, ok := slash.Parse(trimmed); ok {
		return m.runCommand(trimmed, true)
	}
	if cmd, ok := strings.CutPrefix(trimmed, "!"); ok && strings.TrimSpace(cmd) != "" {
		return m.runShell(strings.TrimSpace(cmd))
	}
	return m.startTurn(text)
}

// next starts what was queued while the input was held.
func (m *Model) next() tea.Cmd {
	if m.quitting {
		return tea.Quit
	}
	if m.running != "" || len(m.queue) == 0 {
		return nil
	}
	text := m.queue[0]
	m.queue = m.queue[1:]
	m.dirty = true
	return m.submit(text)
}

// startTurn sends a message to the agent.
func (m *Model) startTurn(text string) tea.Cmd {
	m.add(&block{kind: userBlock, text: text})
	m.scroll = 0
	m.running, m.started = "turn", m.now()
	m.busy.Store(true)
	m.live = &turnView{tools: map[string]*block{}, seenTools: map[string]bool{}, waiting: "thinking"}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancelRun = cancel
	c := m.conv()
	return tea.Batch(tick(), func() tea.Msg {
		defer cancel()
		res, err := c.Run(ctx, agent.Input{Message: text})
		if err == nil {
			c.TitleSession(ctx, res, text)
		}
		return turnDoneMsg{res, err}
	})
}

func (m *Model) turnDone(msg turnDoneMsg) tea.Cmd {
	m.finishStep()
	m.live = nil
	m.running = ""
	m.busy.Store(false)
	switch {
	case msg.err != nil:
		m.add(&block{kind: errorBlock, text: msg.err.Error()})
	case msg.res.Interrupted:
		m.add(&block{kind: warnBlock, text: "Interrupted."})
	case msg.res.Error != nil:
		text := fmt.Sprintf("%s: %v", msg.res.ExitReason, msg.res.Error)
		if msg.res.FinalResponse != "" && !msg.res.Partial {
			text = msg.res.FinalResponse + "\n" + text
		}
		m.add(&block{kind: errorBlock, text: text})
	}
	if msg.res != nil {
		m.status.tokensIn += msg.res.Usage.InputTokens
		m.status.tokensOut += msg.res.Usage.OutputTokens
		if left := msg.res.PendingSteer; len(left) > 0 {
			text := strings.Join(left, "\n\n")
			switch {
			case msg.res.Interrupted && m.input.Value() == "":
				// Stopped: nothing is sent on its own; the text waits in
				// the input.
				m.input.SetValue(text)
				m.add(&block{kind: infoBlock, text: "The turn was stopped before reading what /steer added; it is back in the input."})
			case msg.res.Interrupted:
				m.add(&block{kind: infoBlock, text: "The turn was stopped before reading what /steer added: " + clip(oneLine(text), 200)})
			default:
				// It ended before a tool call could carry the text: the
				// text is the next message, before what was queued.
				m.queue = append([]string{text}, m.queue...)
				m.add(&block{kind: infoBlock, text: "The turn ended before reading what /steer added; it is sent as your next message."})
			}
		}
	}
	m.dirty = true
	return tea.Batch(m.refreshStatus(), m.next())
}

// runCommand runs a slash command off the UI goroutine. An exclusive one
// holds the input (and what is typed is queued) until it returns.
func (m *Model) runCommand(line string, exclusive bool) tea.Cmd {
	if exclusive {
		if c, err := m.lookup(line); err == nil && c.WhileBusy {
			exclusive = false
		}
	}
	m.add(&block{kind: userBlock, text: line})
	m.scroll = 0
	if exclusive {
		m.running = "command"
		m.started = m.now()
	}
	reg, h := m.commands, m.host
	m.commandsRunning++
	return tea.Batch(tick(), func() tea.Msg {
		_, err := reg.Dispatch(context.Background(), h, line)
		return commandDoneMsg{line: line, exclusive: exclusive, err: err}
	})
}

func (m *Model) lookup(line string) (slash.Command, error) {
	name, _, _ := slash.Parse(line)
	return m.commands.Lookup(name)
}

// runShell runs a command the user typed after "!" with the terminal
// tool: sandboxed, through the approvals.
func (m *Model) runShell(command string) tea.Cmd {
	m.add(&block{kind: userBlock, text: "!" + command})
	m.scroll = 0
	m.running, m.started = "shell", m.now()
	m.busy.Store(true)
	m.live = &turnView{tools: map[string]*block{}, seenTools: map[string]bool{}, waiting: "running " + clip(command, 40)}
	c := m.conv()
	return tea.Batch(tick(), func() tea.Msg {
		out, err := c.RunShell(context.Background(), command)
		return shellDoneMsg{command: command, output: out.Result.Content, failed: out.Result.IsError, err: err}
	})
}

func (m *Model) shellDone(msg shellDoneMsg) {
	m.live = nil
	m.running = ""
	m.busy.Store(false)
	switch {
	case msg.err != nil:
		m.add(&block{kind: errorBlock, text: msg.err.Error()})
	case msg.failed:
		m.add(&block{kind: errorBlock, text: strings.TrimSpace(msg.output)})
	default:
		out := strings.TrimRight(msg.output, "\n")
		if out == "" {
			out = "(no output)"
		}
		m.add(&block{kind: infoBlock, text: out})
	}
}

// streamInto adds streamed text to the step's block of kind *b points
// to, opening that block first.
func (m *Model) streamInto(b **block, kind blockKind, text string) {
	if *b == nil {
		*b = &block{kind: kind, live: &stream{}}
		m.blocks = append(m.blocks, *b)
	}
	(*b).live.add(text)
}

// event shows one agent event.
func (m *Model) event(e agent.Event) {
	if e.Depth > 0 {
		if e.Kind == agent.EventToolStarted && m.live != nil {
			m.live.waiting = fmt.Sprintf("subagent %s: %s", e.AgentID, e.Tool.Name)
		}
		return // subagents show as their delegate_task call
	}
	lv := m.live
	switch e.Kind {
	case agent.EventTextDelta:
		if lv != nil {
			m.streamInto(&lv.answer, answerBlock, e.Text)
			lv.waiting = "writing"
		}
	case agent.EventReasoningDelta:
		if lv != nil {
			m.streamInto(&lv.reasoning, reasoningBlock, e.Text)
			lv.waiting = "thinking"
		}
	case agent.EventStep:
		m.finishStep()
		if lv != nil {
			lv.waiting = "thinking"
		}
	case agent.EventToolGenerating:
		if lv != nil {
			lv.waiting = "preparing " + e.Tool.Name
		}
	case agent.EventToolStarted:
		m.finishStep()
		if lv == nil {
			return
		}
		lv.waiting = "running " + e.Tool.Name
		if m.showTool(e.Tool.Name) {
			b := &block{kind: toolBlock, tool: &toolState{id: e.Tool.CallID, name: e.Tool.Name, args: e.Tool.Args}}
			lv.tools[e.Tool.CallID] = b
			m.add(b)
		}
	case agent.EventToolFinished:
		if lv == nil {
			return
		}
		if b := lv.tools[e.Tool.CallID]; b != nil {
			b.tool.done, b.tool.failed, b.tool.result, b.tool.duration = true, e.Tool.IsError, e.Tool.Result, e.Tool.Duration
			b.invalidate()
		}
		lv.waiting = "thinking"
	case agent.EventRetry, agent.EventFallback:
		if e.Restart && lv != nil {
			m.dropLive()
		}
		if e.Kind == agent.EventFallback && lv != nil {
			lv.fallback = e.Text
		}
		m.add(&block{kind: warnBlock, text: e.Text})
	case agent.EventWarning, agent.EventRepair:
		m.add(&block{kind: warnBlock, text: e.Text})
	case agent.EventStatus, agent.EventBudgetWarning, agent.EventCompression:
		m.add(&block{kind: infoBlock, text: e.Text})
	}
	m.dirty = true
}

// showTool says whether a call of name gets a line (display.tool_progress).
func (m *Model) showTool(name string) bool {
	switch m.toolProgress {
	case "off":
		return false
	case "new":
		if m.live.seenTools[name] {
			return false
		}
		m.live.seenTools[name] = true
	}
	return true
}

// finishStep turns the step's streamed answer and reasoning into
// finished blocks, rendered once from their whole text.
func (m *Model) finishStep() {
	if m.live == nil {
		return
	}
	for _, b := range []*block{m.live.reasoning, m.live.answer} {
		if b == nil || b.live == nil {
			continue
		}
		b.text = strings.TrimSpace(b.live.String())
		b.live = nil
		b.invalidate()
	}
	m.live.answer, m.live.reasoning = nil, nil
	m.blocks = dropEmpty(m.blocks)
	m.dirty = true
}

// dropLive removes the step's streamed text: a retry streams it again.
func (m *Model) dropLive() {
	lv := m.live
	keep := m.blocks[:0]
	for _, b := range m.blocks {
		if b != lv.answer && b != lv.reasoning {
			keep = append(keep, b)
		}
	}
	m.blocks = keep
	lv.answer, lv.reasoning = nil, nil
}

func dropEmpty(bs []*block) []*block {
	out := bs[:0]
	for _, b := range bs {
		if (b.kind == answerBlock || b.kind == reasoningBlock) && b.live == nil && b.text == "" {
			continue
		}
		out = append(out, b)
	}
	return out
}

// interrupt stops what runs: the turn or the shell command.
func (m *Model) interrupt() {
	m.conv().Interrupt()
	if n := len(m.queue); n > 0 {
		m.queue = nil
		m.add(&block{kind: infoBlock, text: fmt.Sprintf("Dropped %d queued message(s).", n)})
	}
	if m.live != nil {
		m.live.waiting = "stopping"
	}
	m.dirty = true
}

var errNoUI = errors.New("the terminal UI is not running")
