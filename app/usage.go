package app

import (
	"context"
	"errors"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
)

// ContextPart is one category of what fills the context window.
type ContextPart struct {
	Name   string // "system prompt", "memory", "context files", "tool schemas", "conversation", "tool results"
	Tokens int    // estimated (characters / 4)
}

// ContextUsage is what the next request would put in the context window,
// by category.
type ContextUsage struct {
	Parts []ContextPart
	// Tokens is the sum of Parts; Window the model's context window (0:
	// unknown).
	Tokens int
	Window int
}

// Percent is the share of the window used, 0 when the window is unknown.
func (c ContextUsage) Percent() float64 {
	if c.Window <= 0 {
		return 0
	}
	return 100 * float64(c.Tokens) / float64(c.Window)
}

// Context estimates what the next request would hold: the system prompt
// (split into memory, context files and the rest), the tool schemas, the
// conversation and the tool results in it.
func (c *Conversation) Context() ContextUsage {
	a := c.agent
	model, prov := a.Model()
	b := c.promptBuilder(model, prov)
	system := a.SystemPromptText()
	if system == "" {
		system, _ = b.Build()
	}
	memory, files := 0, 0
	if !b.IgnoreRules {
		memory = len(b.MemorySnapshot) + len(b.UserSnapshot)
		files = len(b.ContextFiles())
	}
	rest := max(len(system)-memory-files, 0)
	conversation, results := 0, 0
	for _, m := range a.History() {
		if m.Role == llm.RoleTool {
			results += llm.EstimateMessageTokens(m)
		} else {
			conversation += llm.EstimateMessageTokens(m)
		}
	}
	tok := func(chars int) int { return (chars + llm.CharsPerToken - 1) / llm.CharsPerToken }
	u := ContextUsage{Window: a.ContextLength(), Parts: []ContextPart{
		{"system prompt", tok(rest)},
		{"memory", tok(memory)},
		{"context files", tok(files)},
		{"tool schemas", llm.EstimateTokens(nil, a.ToolDefs())},
		{"conversation", conversation},
		{"tool results", results},
	}}
	for _, p := range u.Parts {
		u.Tokens += p.Tokens
	}
	return u
}

// SessionUsage is the token use of the current session.
type SessionUsage struct {
	// Session holds the stored totals (Usage, APICalls, MessageCount);
	// zero before the first message.
	Session session.Session
	Model   string
	// Provider is where the calls go now.
	Provider string
	Context  ContextUsage
	// ByTask is what the runtime spent, the main model and each
	// auxiliary task apart.
	ByTask UsageReport
}

// Usage reports the current session's token use as the provider counted
// it, and how full the context window is.
func (c *Conversation) Usage(ctx context.Context) (SessionUsage, error) {
	s, err := c.Stored(ctx)
	if err != nil && !errors.Is(err, session.ErrNotFound) {
		return SessionUsage{}, err
	}
	model, prov := c.Model()
	return SessionUsage{Session: s, Model: model, Provider: prov, Context: c.Context(), ByTask: c.rt.UsageByTask()}, nil
}
