package temporal

import (
	"github.com/hermes-go/hermes/batch"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// Names registered with Temporal.
const (
	WorkflowName = "hermes.batch.Prompt"
	setupName    = "hermes.batch.Setup"
	modelName    = "hermes.batch.Model"
	toolName     = "hermes.batch.Tool"
	finishName   = "hermes.batch.Finish"
	// DefaultTaskQueue is the task queue workers poll by default.
	DefaultTaskQueue = "hermes-batch"
)

// Task is a prompt as a workflow carries it.
type Task struct {
	batch.Task
	// Settings from the submitter's command line; zero values leave the
	// worker's configuration.
	Model           string `json:",omitempty"`
	MaxTurns        int    `json:",omitempty"`
	ReasoningEffort string `json:",omitempty"`
	Memory          bool   `json:",omitempty"`
	// Timeouts of one activity, in seconds.
	ModelTimeout int
	ToolTimeout  int
	Heartbeat    int
}

// Setup is what a prompt starts from: its system prompt and the tools it
// is offered, built once by a worker and recorded.
type Setup struct {
	SystemPrompt string
	Tools        []ToolSpec
}

// ToolSpec is a tool as the replay offers it.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  []byte
	Toolset     string
}

// Journal is every result a prompt's workflow has recorded, in order.
type Journal struct {
	Models []ModelRecord
	// Tools holds tool results by call key (see toolKey).
	Tools map[string]ToolResult
}

// ModelRecord is one model call's result and the fingerprint of the
// request that produced it.
type ModelRecord struct {
	Fingerprint string
	ModelResult
}

// ModelResult is a model call's response, or the provider's error once
// the chain's retries and fallbacks were used up.
type ModelResult struct {
	Response *llm.Response      `json:",omitempty"`
	Error    *llm.ProviderError `json:",omitempty"`
}

// ToolResult is one tool call's result.
type ToolResult struct {
	Content string
	IsError bool
	Status  tool.Status
}

// Step is what a planning step found: the next model call, the next tool
// call, or the end of the turn.
type Step struct {
	Model       *llm.Request   `json:",omitempty"`
	Fingerprint string         `json:",omitempty"`
	Tool        *ToolStep      `json:",omitempty"`
	Done        *batch.Outcome `json:",omitempty"`
}

// ToolStep is a tool call to run.
type ToolStep struct {
	Key  string
	Call tool.Call
}

// FinishInput closes a prompt on a worker: its session is recorded and
// its workspace released.
type FinishInput struct {
	Task         Task
	SystemPrompt string
	Outcome      batch.Outcome
}
