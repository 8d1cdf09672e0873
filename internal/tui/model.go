package tui

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/internal/slash"
	"github.com/hermes-go/hermes/llm"
)

// Options configures the UI.
type Options struct {
	// Conversation is what the UI runs first (on its runtime). Without
	// one, Start assembles the runtime and opens it while the UI is
	// already on screen (the first frame does not wait for the session
	// database or the sandbox probe); what is typed meanwhile is queued.
	// Start's lines are shown in the banner.
	Conversation *app.Conversation
	Start        func(ctx context.Context) (*app.Conversation, []string, error)
	// Open opens the conversations /new, /clear and /resume move to: o
	// with the surface's approvals, clarify, preloaded skills and rules;
	// the UI sets o.Observer. Nil opens o on the runtime with the
	// Bridge's Approve and Clarify.
	Open func(ctx context.Context, o app.ConversationOptions) (*app.Conversation, error)
	// Commands are the slash commands offered (nil: slash.Builtin()).
	Commands *slash.Registry
	// Bridge carries approval and clarify questions to the UI; give its
	// Approve and Clarify to the conversations (app.ConversationOptions).
	Bridge *Bridge
	// Version and Banner are shown above the first prompt.
	Version string
	Banner  []string
	// HistoryPath is the input history file ("" keeps none).
	HistoryPath string
	// Profile names the profile the run uses, shown in the status line
	// ("" or "default": none is shown).
	Profile string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// pasteThreshold is the size from which a paste is kept apart, shown as
// a placeholder in the input and sent as it is (tabs, spaces, every line).
const (
	pasteThresholdChars = 1000
	pasteThresholdLines = 10
)

// Model is the Bubble Tea model of the UI.
type Model struct {
	rt       *app.Runtime
	commands *slash.Registry
	bridge   *Bridge
	feed     *feed
	host     *host
	now      func() time.Time
	version  string
	profile  string // shown in the status line unless default
	theme    theme
	md       markdown
	mcpDown  map[string]bool // MCP servers last seen down, said once each

	// settings (display.*, approvals.timeout)
	showReasoning bool
	toolProgress  string
	busyMode      string
	approvalWait  time.Duration

	width, height int

	blocks   []*block
	live     *turnView // the running turn's live part
	scroll   int       // lines scrolled up from the bottom
	frame    []string  // conversation lines, rebuilt when dirty
	dirty    bool
	lastTail time.Time
	tailTick bool // a render tick is scheduled

	input   textarea.Model
	history *inputHistory
	pastes  map[string]string
	hint    string

	// running is what holds the input: "turn", "shell", "command" or "".
	running string
	// commandsRunning counts slash commands not returned yet.
	commandsRunning int
	busy            *atomic.Bool // a turn or a shell command runs (for the slash host)
	started         time.Time
	queue           []string
	ctrlC           time.Time // when Ctrl-C armed the exit
	quitting        bool
	cancelRun       context.CancelFunc

	modal *modal
	// picker is the list a command asked the user to choose from.
	picker *picker
	// startErr is why Options.Start failed.
	startErr error

	status status
}

// turnView is the live part of the running turn.
type turnView struct {
	answer    *block // the step's answer streaming in
	reasoning *block
	tools     map[string]*block // by call id
	seenTools map[string]bool   // tool names shown (tool_progress new)
	waiting   string            // what the spinner says
	fallback  string            // the fallback in use, if any
}

// status is what the status line shows.
type status struct {
	model, provider string
	title           string
	tokensIn        int64
	tokensOut       int64
	contextPct      float64
	sandbox         string
	mcp             string // the MCP servers in a few words ("" with none)
}

// New returns the model; Run runs it. The returned model's messages are
// sent with send (the program's Send).
func New(opts Options, send func(tea.Msg)) *Model {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Commands == nil {
		opts.Commands = slash.Builtin()
	}
	if opts.Bridge == nil {
		opts.Bridge = &Bridge{}
	}
	m := &Model{
		commands: opts.Commands, bridge: opts.Bridge, now: opts.Now, version: opts.Version, profile: opts.Profile,
		theme: defaultTheme(), busy: &atomic.Bool{}, pastes: map[string]string{},
		showReasoning: true, toolProgress: "all", busyMode: "queue", approvalWait: 300 * time.Second,
		width: 80, height: 24,
	}
	m.feed = &feed{send: send}
	m.host = &host{send: send, busy: m.busy, open: opts.Open, bridge: opts.Bridge, observe: m.feed.observe}
	m.bridge.setSend(send)
	m.history, _ = loadHistory(opts.HistoryPath)
	m.input = newInput()
	if opts.Conversation != nil {
		m.attach(opts.Conversation, opts.Banner)
	} else {
		m.running, m.started = "starting", m.now()
		m.add(&block{kind: infoBlock, text: "hermes " + opts.Version})
	}
	return m
}

// attach puts the conversation and its runtime in place: the display
// settings, the banner, a resumed conversation's last turns.
func (m *Model) attach(c *app.Conversation, banner []string) {
	rt := c.Runtime()
	m.rt, m.host.rt = rt, rt
	m.host.conv.Store(c)
	cfg := rt.Config()
	m.showReasoning = cfg.Display.ShowReasoning == nil || *cfg.Display.ShowReasoning
	// The terminal UI queues by default; it does not steer, so steer queues.
	m.toolProgress, m.busyMode = cfg.Display.ToolProgress, cfg.Display.BusyMode("queue")
	if cfg.Approvals.Timeout > 0 {
		m.approvalWait = time.Duration(cfg.Approvals.Timeout) * time.Second
	}
	m.status = m.readStatus(false)
	m.blocks = nil
	head := fmt.Sprintf("hermes %s · %s · session %s", m.version, c.Endpoint(), c.SessionID())
	m.add(&block{kind: infoBlock, text: strings.Join(append([]string{head}, banner...), "\n")})
	if h := c.History(); len(h) > 0 {
		m.showResumed(h)
	}
	m.add(&block{kind: infoBlock, text: "Enter sends · Shift+Enter or Ctrl+J: new line · /help lists commands · !CMD runs a shell command · Ctrl-C stops, twice quits"})
}

func newInput() textarea.Model {
	in := textarea.New()
	in.Prompt = "› "
	in.Placeholder = "Ask anything, /help for commands"
	in.ShowLineNumbers = false
	in.DynamicHeight = true
	in.MinHeight = 1
	in.MaxHeight = 8
	in.MaxContentHeight = 1 << 20 // pastes are never cut; the view scrolls
	in.CharLimit = 0
	in.SetVirtualCursor(false)
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("shift+enter", "ctrl+j", "alt+enter"))
	// Up and Down browse the history at the input's first and last line.
	in.KeyMap.LinePrevious = key.NewBinding(key.WithKeys("up"))
	in.KeyMap.LineNext = key.NewBinding(key.WithKeys("down"))
	in.KeyMap.DeleteCharacterForward = key.NewBinding(key.WithKeys("delete"))
	in.Focus()
	return in
}

// Init asks for the window size and reads the session's totals in the
// background: the first frame does not wait for them.
func (m *Model) Init() tea.Cmd {
	if m.rt == nil {
		return tea.RequestWindowSize
	}
	return tea.Batch(tea.RequestWindowSize, m.refreshStatus(), m.pollMCP())
}

// refreshStatus reads the status line's totals off the UI goroutine.
func (m *Model) refreshStatus() tea.Cmd {
	rt, c := m.rt, m.conv()
	return func() tea.Msg { return statusMsg(readStatus(rt, c, true)) }
}

// conv is the conversation the UI shows now (nil while starting).
func (m *Model) conv() *app.Conversation { return m.host.Conversation() }

// add appends a finished block.
func (m *Model) add(b *block) {
	m.blocks = append(m.blocks, b)
	m.dirty = true
}

// showResumed renders the last turns of a resumed conversation.
func (m *Model) showResumed(history []llm.Message) {
	turns := slash.Recap(history, recapTurns)
	s, _ := m.conv().Stored(context.Background())
	label := fmt.Sprintf("resumed session %s", s.ID)
	if s.Title != "" {
		label += fmt.Sprintf(" %q", s.Title)
	}
	if skipped := len(history) - len(turns); skipped > 0 {
		label += fmt.Sprintf(" · %d earlier messages not shown", skipped)
	}
	m.add(&block{kind: noteBlock, text: label})
	for _, b := range recapBlocks(turns) {
		m.add(b)
	}
	m.add(&block{kind: noteBlock, text: "you are here"})
}

// recapTurns is how many of a resumed conversation's last turns are shown.
const recapTurns = 3
