package delegate

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// Defaults of the delegation.* keys.
const (
	DefaultMaxIterations         = 50
	DefaultMaxConcurrentChildren = 3
	DefaultMaxSpawnDepth         = 1
)

// Name is the tool's name.
const Name = "delegate_task"

// BlockedTools are never given to a leaf child: recursion, questions to a
// user who is not there, shared memory writes, messages sent in the
// parent's name, and code execution that bypasses the tool pipeline.
var BlockedTools = []string{Name, "clarify", "memory", "send_message", "execute_code"}

// SessionSource is the source recorded for child sessions.
const SessionSource = "subagent"

// Options configure the tool. Either NewChild, or Client and Model (and
// the other pieces a child agent.Config needs) are required.
type Options struct {
	// NewChild builds a child agent from its spec. Nil builds one with
	// agent.New(o.ChildConfig(spec)). A custom builder should start from
	// ChildConfig too, so that the spec's isolation holds.
	NewChild func(ctx context.Context, spec ChildSpec) (*agent.Agent, error)

	Client   llm.Client
	Model    string
	Provider string
	APIMode  llm.APIMode
	// Tools is the parent's registry; children get it minus BlockedTools.
	Tools *tool.Registry
	// ChildApprover is the approval policy of children. It must never ask
	// a human (see the package doc). Nil means DenyAll.
	ChildApprover tool.Approver

	// MaxIterations is each child's iteration budget (delegation.max_iterations).
	MaxIterations int
	// MaxConcurrentChildren bounds the children of one call running at once.
	MaxConcurrentChildren int
	// MaxSpawnDepth is the deepest a child may be (the top agent is 0).
	MaxSpawnDepth int
	// Depth and AgentID are the parent's.
	Depth   int
	AgentID string
	// Timeout bounds each child's run; 0 means none.
	Timeout time.Duration

	// Observer is the parent's: children's events go there. When the tool
	// is one of an agent's AgentTools, the agent's own event sink takes
	// its place (see Tool.RelayEvents).
	Observer agent.Observer
	// Store records child sessions; nil records nothing.
	Store agent.Store
	// NewSessionID names child sessions (default: a random UUID).
	NewSessionID func() string
	// ParentSessionID is used when a call carries no session id.
	ParentSessionID string
	// Workdir is named in the child's prompt when set.
	Workdir string

	// Executor settings handed to children (the parent's).
	ToolTimeout    time.Duration
	MaxResultChars int
	SpillDir       string
	PreHooks       []tool.PreHook
	PostHooks      []tool.PostHook
	Redact         func(string) string

	// Configure adjusts each child's config after ChildConfig built it
	// (fallback, compression, reasoning effort, per-child agent tools).
	Configure func(spec ChildSpec, cfg *agent.Config)

	// Now is the clock for durations and events (default time.Now).
	Now func() time.Time
}

// ChildSpec is everything that makes a child what it is.
type ChildSpec struct {
	// Index is the task's position in the call (0-based); Number counts
	// the children this tool started (1-based).
	Index  int
	Number int
	// AgentID is "<parent>/<Number>"; Depth the parent's plus one.
	AgentID string
	Depth   int

	Goal     string
	Context  string
	Toolsets []string

	TaskID          string
	SessionID       string // "" without a Store
	ParentSessionID string
	SystemPrompt    string

	// Tools is the parent's registry minus BlockedTools, narrowed to
	// Toolsets. AgentTools holds a deeper delegate_task when the depth
	// limit allows one.
	Tools         *tool.Registry
	AgentTools    []tool.Tool
	Approver      tool.Approver
	MaxIterations int
	// Observer receives the child's events: the parent agent's sink.
	Observer agent.Observer
}

func (o *Options) defaults() {
	if o.MaxIterations <= 0 {
		o.MaxIterations = DefaultMaxIterations
	}
	if o.MaxConcurrentChildren <= 0 {
		o.MaxConcurrentChildren = DefaultMaxConcurrentChildren
	}
	if o.MaxSpawnDepth <= 0 {
		o.MaxSpawnDepth = DefaultMaxSpawnDepth
	}
	if o.Tools == nil {
		o.Tools = &tool.Registry{}
	}
	if o.ChildApprover == nil {
		o.ChildApprover = DenyAll
	}
	if o.NewSessionID == nil {
		o.NewSessionID = uuid.NewString
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// ChildConfig is the agent.Config of the child spec describes: the spec's
// tools, budget, approver and session, the parent's model and executor
// settings, events to the parent's observer.
func (o Options) ChildConfig(spec ChildSpec) agent.Config {
	cfg := agent.Config{
		Client:         o.Client,
		Model:          o.Model,
		Provider:       o.Provider,
		APIMode:        o.APIMode,
		Tools:          spec.Tools,
		AgentTools:     spec.AgentTools,
		MaxIterations:  spec.MaxIterations,
		ToolTimeout:    o.ToolTimeout,
		MaxResultChars: o.MaxResultChars,
		SpillDir:       o.SpillDir,
		PreHooks:       o.PreHooks,
		PostHooks:      o.PostHooks,
		Approver:       spec.Approver,
		Redact:         o.Redact,
		Observer:       spec.Observer,
		AgentID:        spec.AgentID,
		Depth:          spec.Depth,
		Now:            o.Now,
	}
	if o.Store != nil {
		cfg.Store = o.Store
		cfg.Session = agent.SessionMeta{ID: spec.SessionID, Source: SessionSource, ParentID: spec.ParentSessionID}
	}
	if o.Configure != nil {
		o.Configure(spec, &cfg)
	}
	return cfg
}

// DenyAll is the approver children get when none is configured: nobody is
// there to approve, so nothing that needs checking runs.
var DenyAll tool.Approver = tool.ApproverFunc(func(_ context.Context, req tool.ApprovalRequest) error {
	return errDenied
})

type deniedError struct{}

func (deniedError) Error() string {
	return "denied: subagents cannot ask for approval and no subagent approval policy is configured"
}

var errDenied error = deniedError{}
