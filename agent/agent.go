package agent

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// Library defaults. The CLI passes its config.yaml values instead.
const (
	DefaultMaxIterations = 90
	DefaultCallTimeout   = 30 * time.Minute
)

// ErrBusy is returned by Run when a turn is already running on the agent.
var ErrBusy = errors.New("agent: a turn is already running")

// ErrNoVision is returned by Run for an Input with images when the model
// calls go to does not accept images (Config.Vision).
var ErrNoVision = errors.New("the model does not accept images")

// errInterrupted is the cancellation cause set by Interrupt.
var errInterrupted = errors.New("interrupted")

// Config configures an Agent. Client and Model are required.
type Config struct {
	Client   llm.Client
	Model    string
	Provider string
	APIMode  llm.APIMode

	// Tools is the registry offered to the model. AgentTools are handled by
	// the agent itself (todo, memory, clarify, ...): they are offered too and
	// take precedence over registry tools of the same name.
	Tools      *tool.Registry
	AgentTools []tool.Tool
	// ToolsReady runs at the start of each turn, before the tools are
	// offered: it may wait, within its own bound, for tools still on
	// their way (MCP servers starting). Tools that join later are offered
	// from the next model call.
	ToolsReady func(ctx context.Context)

	// MaxIterations is the per-turn iteration budget (default 90).
	MaxIterations int
	// ToolPoolSize bounds concurrent tool calls (default 128).
	ToolPoolSize int
	// BudgetWarnings adds the 70% / 90% pressure texts to the newest tool
	// result's API copy. Nil means on.
	BudgetWarnings *bool
	// KeepPartialOnInterrupt keeps already-streamed text as an assistant
	// message when a model call is interrupted (default: nothing partial).
	KeepPartialOnInterrupt bool

	// Vision reports whether a model accepts images. Nil means
	// llm.SupportsVision (known model families). A turn with images for a
	// model without vision fails before the call (ErrNoVision); images
	// already in the history reach such a model as placeholder text.
	Vision func(model string) bool

	MaxTokens       int
	ReasoningEffort string
	// Cache asks for prompt-caching markers (Anthropic).
	Cache *llm.CacheOptions

	// SystemPrompt builds the system prompt, once per session. Nil means
	// Input.SystemMessage only.
	SystemPrompt func(ctx context.Context, model, provider string) (string, error)

	// Executor settings: deadline per call, result cap, spill dir, hooks,
	// approval and redaction.
	ToolTimeout    time.Duration
	MaxResultChars int
	SpillDir       string
	PreHooks       []tool.PreHook
	PostHooks      []tool.PostHook
	Approver       tool.Approver
	Redact         func(string) string

	// Store persists the session as it happens (a *session.Store is one).
	// Nil keeps nothing.
	Store Store
	// Session describes the session the agent starts in. A compression
	// moves the agent to a child session; SessionID says which is current.
	Session SessionMeta

	// Compressor shrinks the history when it nears the context window.
	Compressor Compressor
	// OnCompressed runs after a compression with the new history and the
	// new session id (empty without a store).
	OnCompressed func(ctx context.Context, history []llm.Message, sessionID string) error
	// NewSessionID names the child session a compression continues in
	// (upstream Hermes' documented behaviour: compression continues in a
	// new session whose parent is the old one). Nil keeps the session.
	NewSessionID func() string
	// LearnContextLimit remembers a context window an overflow error
	// revealed, for later runs.
	LearnContextLimit func(model string, limit int)
	// ContextLength is the model's context window in tokens (0: unknown,
	// no preflight compression). An overflow error that reveals a smaller
	// window lowers the agent's own copy (ContextLength reports it).
	ContextLength int

	// Guardrails: the same failing call repeated WarnAfter times gets a
	// warning in its result; HaltAfter times ends the turn.
	GuardrailWarnAfter int
	GuardrailHaltAfter int

	// CallTimeout bounds one model call (default 30 min).
	CallTimeout time.Duration
	Observer    Observer
	// AgentID and Depth label events (subagents).
	AgentID string
	Depth   int
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OnTurnEnd runs after every turn (memory sync); its error is reported
	// as a warning event.
	OnTurnEnd func(ctx context.Context, res *Result) error
}

// Input is one turn.
type Input struct {
	// Message is the user message. Empty (and no Images) continues a
	// history that ends in a tool result.
	Message string
	// Images are attached to the user message (llm.LoadImage makes one
	// from a path or URL). The model must accept images (Config.Vision).
	Images []llm.Image
	// History is the conversation so far, without the system message. Nil
	// means the agent's own history (what earlier turns left).
	History []llm.Message
	// SystemMessage replaces the built system prompt when the session has none yet.
	SystemMessage string
	// TaskID isolates tool state; generated when empty.
	TaskID string
}

// ExitReason says how a turn ended.
type ExitReason string

// Exit reasons.
const (
	ExitText                 ExitReason = "text_response"
	ExitMaxIterations        ExitReason = "max_iterations"
	ExitInterrupted          ExitReason = "interrupted"
	ExitInterruptedDuringAPI ExitReason = "interrupted_during_api_call"
	ExitContentFilter        ExitReason = "content_filter"
	ExitLength               ExitReason = "length"
	ExitEmptyResponse        ExitReason = "empty_response_exhausted"
	ExitProviderError        ExitReason = "provider_error"
	ExitCompressionExhausted ExitReason = "compression_exhausted"
	ExitGuardrailHalt        ExitReason = "guardrail_halt"
	ExitInvalidResponse      ExitReason = "invalid_response"
)

// Result is how a turn ended.
type Result struct {
	FinalResponse string
	LastReasoning string
	// Messages is the whole history after the turn (no system message).
	Messages    []llm.Message
	APICalls    int
	Completed   bool
	Failed      bool
	Interrupted bool
	Partial     bool
	// CompressionExhausted is set when the turn needed more than the
	// allowed compressions.
	CompressionExhausted bool
	Error                error
	ExitReason           ExitReason
	// Usage is the sum over this turn's model calls.
	Usage     llm.Usage
	SessionID string
	TaskID    string
	Model     string
	Provider  string
	// Warnings lists non-fatal problems (a persistence failure, ...).
	Warnings []string
	// PendingSteer holds the texts Steer accepted that no model call
	// received (the turn ended first), in order: run them as the next
	// turn.
	PendingSteer []string
}

// Agent runs turns. Create it with New.
type Agent struct {
	cfg    Config
	exec   *tool.Executor
	events *eventQueue

	mu        sync.Mutex
	running   bool
	interrupt context.CancelCauseFunc
	// stream receives the running turn's events too (Stream).
	stream Observer

	// State that changes while the agent runs, read and written under mu.
	history       []llm.Message
	systemPrompt  string
	sessionReady  bool
	session       SessionMeta
	contextLength int
	// lastFailure is the exit reason of the previous turn when it failed,
	// to mark its unanswered prompt as failed rather than interrupted.
	lastFailure ExitReason
	// attached are images queued for the next turn's user message (AttachImages).
	attached []llm.Image
	// nextModel is a model switch waiting for the next turn (SetModel).
	nextModel *ModelChoice
	// steerable is set while a turn accepts steers; steered holds those
	// not yet delivered (Steer).
	steerable bool
	steered   []string
}

// New returns an agent.
func New(cfg Config) *Agent {
	if cfg.MaxIterations <= 0 {
		cfg.MaxIterations = DefaultMaxIterations
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Tools == nil {
		cfg.Tools = &tool.Registry{}
	}
	if cfg.GuardrailWarnAfter <= 0 {
		cfg.GuardrailWarnAfter = 2
	}
	if cfg.GuardrailHaltAfter <= 0 {
		cfg.GuardrailHaltAfter = 5
	}
	a := &Agent{cfg: cfg, session: cfg.Session, contextLength: cfg.ContextLength}
	a.events = newEventQueue(a.deliver)
	a.exec = a.newExecutor()
	if cfg.ToolPoolSize > 0 {
		a.exec.SetPoolSize(cfg.ToolPoolSize)
	}
	for _, t := range cfg.AgentTools {
		if r, ok := t.(EventRelay); ok {
			r.RelayEvents(a.emit)
		}
	}
	return a
}

// SetToolPoolSize resizes the tool worker pool, also while a turn runs.
func (a *Agent) SetToolPoolSize(n int) { a.exec.SetPoolSize(n) }

// SessionID returns the current session id: Config.Session's, or the
// child session a compression continued in.
func (a *Agent) SessionID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.session.ID
}

// Session returns the current session.
func (a *Agent) Session() SessionMeta {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.session
}

// ContextLength returns the context window the agent works with: the
// configured one, or a smaller one an overflow error revealed.
func (a *Agent) ContextLength() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.contextLength
}

// Model returns the model and provider calls go to now: the primary's,
// or the fallback a Router (the provider chain) switched to.
func (a *Agent) Model() (model, provider string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.modelLocked()
}

// modelLocked is Model with a.mu held.
func (a *Agent) modelLocked() (model, provider string) {
	if r, ok := a.cfg.Client.(Router); ok {
		return r.Active()
	}
	return a.cfg.Model, a.cfg.Provider
}

// History returns a copy of the agent's history.
func (a *Agent) History() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return llm.CloneMessages(a.history)
}

// SetHistory replaces the agent's history (resume), and the system prompt
// to reuse byte for byte when non-empty.
func (a *Agent) SetHistory(h []llm.Message, systemPrompt string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.history = llm.CloneMessages(h)
	if systemPrompt != "" {
		a.systemPrompt = systemPrompt
	}
}

// SystemPromptText returns the cached system prompt ("" before the first turn).
func (a *Agent) SystemPromptText() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.systemPrompt
}

// Chat runs one turn on the agent's own history and returns the final
// answer. A turn that did not complete returns its error.
func (a *Agent) Chat(ctx context.Context, message string) (string, error) {
	res, err := a.Run(ctx, Input{Message: message})
	if err != nil {
		return "", err
	}
	if res.Error != nil {
		return res.FinalResponse, res.Error
	}
	if res.Interrupted {
		return res.FinalResponse, context.Canceled
	}
	return res.FinalResponse, nil
}

// Interrupt stops the running turn: the model call, a retry wait, running
// tools. It returns at once; Run returns with Interrupted set. It does
// nothing when no turn is running.
func (a *Agent) Interrupt() {
	a.mu.Lock()
	cancel := a.interrupt
	a.mu.Unlock()
	if cancel != nil {
		cancel(errInterrupted)
	}
}

// Notify reports an event from code around the agent (a hook, a title
// written in the background) to the agent's observers, in order with the
// loop's own events and from the same delivery goroutine. Outside a turn
// it returns once the event was delivered.
func (a *Agent) Notify(e Event) {
	a.emit(e)
	a.mu.Lock()
	idle := !a.running
	a.mu.Unlock()
	if idle {
		a.events.flush()
	}
}

// emit queues an event for the observers. Events of subagents (relayed
// through EventRelay) keep their own AgentID and Depth.
func (a *Agent) emit(e Event) {
	if e.Time.IsZero() {
		e.Time = a.cfg.Now()
	}
	if e.AgentID == "" && e.Depth == 0 {
		e.AgentID, e.Depth = a.cfg.AgentID, a.cfg.Depth
	}
	a.events.push(e)
}

// deliver runs on the event queue's goroutine.
func (a *Agent) deliver(e Event) {
	if a.cfg.Observer != nil {
		a.cfg.Observer(e)
	}
	a.mu.Lock()
	s := a.stream
	a.mu.Unlock()
	if s != nil {
		s(e)
	}
}

// acceptsImages reports whether model accepts images.
func (a *Agent) acceptsImages(model string) bool {
	if a.cfg.Vision != nil {
		return a.cfg.Vision(model)
	}
	return llm.SupportsVision(model)
}

// AcceptsImages reports whether the model calls go to now accepts images.
func (a *Agent) AcceptsImages() bool {
	model, _ := a.Model()
	return a.acceptsImages(model)
}

// AttachImages queues images for the next turn: its user message carries
// them before Input.Images (the /image command of a chat). Safe from any
// goroutine; a turn already running is not changed.
func (a *Agent) AttachImages(images ...llm.Image) {
	a.mu.Lock()
	a.attached = append(a.attached, images...)
	a.mu.Unlock()
}

// AttachedImages returns the images queued for the next turn.
func (a *Agent) AttachedImages() []llm.Image {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]llm.Image(nil), a.attached...)
}

// ClearAttachedImages drops the images queued for the next turn.
func (a *Agent) ClearAttachedImages() {
	a.mu.Lock()
	a.attached = nil
	a.mu.Unlock()
}
