package delegate

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/hermes-go/hermes/agent"
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

// blockedHere are the BlockedTools this program has (the first three);
// the description names only these.
var blockedHere = BlockedTools[:3:3]

// SessionSource is the source recorded for child sessions.
const SessionSource = "subagent"

// Options configure the tool. Parent (its Client and Model at least) or
// NewChild is required.
type Options struct {
	// Parent is the configuration of the agent the tool belongs to:
	// children inherit all of it except what makes them children (see
	// ChildConfig). Its Tools are what children may be given.
	Parent agent.Config
	// NewChild builds a child agent from its spec. Nil builds one with
	// agent.New(o.ChildConfig(spec)). A custom builder should start from
	// ChildConfig too, so that the spec's isolation holds.
	NewChild func(ctx context.Context, spec ChildSpec) (*agent.Agent, error)

	// ChildApprover is the approval policy of children. It must never ask
	// a human (see the package doc). Nil means DenyAll.
	ChildApprover tool.Approver

	// MaxIterations is each child's iteration budget (delegation.max_iterations).
	MaxIterations int
	// MaxConcurrentChildren bounds the children of one call running at once.
	MaxConcurrentChildren int
	// MaxSpawnDepth is the deepest a child may be (the top agent is 0).
	MaxSpawnDepth int
	// Timeout bounds each child's run; 0 means none.
	Timeout time.Duration

	// Observer is the parent's: children's events go there. When the tool
	// is one of an agent's AgentTools, the agent's own event sink takes
	// its place (see Tool.RelayEvents).
	Observer agent.Observer
	// NewSessionID names child sessions (default: a random UUID); they
	// are recorded when Parent.Store is set.
	NewSessionID func() string
	// ParentSessionID is used when a call carries no session id.
	ParentSessionID string
	// Workdir is named in the child's prompt when set.
	Workdir string

	// Configure adjusts each child's config after ChildConfig built it
	// (its own provider chain, compressor, per-child agent tools).
	Configure func(spec ChildSpec, cfg *agent.Config)
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
	if o.Parent.Tools == nil {
		o.Parent.Tools = &tool.Registry{}
	}
	if o.ChildApprover == nil {
		o.ChildApprover = DenyAll
	}
	if o.NewSessionID == nil {
		o.NewSessionID = uuid.NewString
	}
	if o.Parent.Now == nil {
		o.Parent.Now = time.Now
	}
}

// ChildDiffers lists the agent.Config fields a child does not inherit
// from its parent, and why; ChildConfig copies every other field.
var ChildDiffers = map[string]string{
	"Tools":         "the parent's tools minus BlockedTools, narrowed to the task's toolsets",
	"AgentTools":    "a deeper delegate_task only, when the depth limit allows one",
	"MaxIterations": "delegation.max_iterations, a child's own budget",
	"Approver":      "a policy that never asks a human",
	"Observer":      "the parent agent's event sink, so events arrive in order",
	"AgentID":       "<parent>/<n>",
	"Depth":         "the parent's plus one",
	"Session":       "a subagent session whose parent is the parent's session",
	"SystemPrompt":  "the child's own prompt, passed as the first turn's system message",
	"OnTurnEnd":     "the parent's end-of-turn work (its memory) is not the child's",
	"OnCompressed":  "the parent's task list and memory are not the child's",
}

// ChildConfig is the agent.Config of the child spec describes: the
// parent's configuration (model, client, executor settings, hooks,
// redaction, store, compression, context window, guardrails, ...) with
// what ChildDiffers lists replaced, then Configure.
func (o Options) ChildConfig(spec ChildSpec) agent.Config {
	cfg := o.Parent
	cfg.Tools, cfg.AgentTools = spec.Tools, spec.AgentTools
	cfg.MaxIterations = spec.MaxIterations
	cfg.Approver = spec.Approver
	cfg.Observer = spec.Observer
	cfg.AgentID, cfg.Depth = spec.AgentID, spec.Depth
	cfg.Session = agent.SessionMeta{}
	if cfg.Store != nil {
		cfg.Session = agent.SessionMeta{ID: spec.SessionID, Source: SessionSource, ParentID: spec.ParentSessionID, Cwd: o.Parent.Session.Cwd}
	}
	cfg.SystemPrompt, cfg.OnTurnEnd, cfg.OnCompressed = nil, nil, nil
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
