package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
)

// The session operations of an interactive surface (the slash commands).
// None of them may run during a turn (agent.ErrBusy) except SwitchModel,
// which applies from the next one. /new and /resume are a Close and an
// Open.

// Model is the model and provider the conversation's calls go to now:
// the primary's, or the fallback the chain switched to.
func (c *Conversation) Model() (model, provider string) { return c.agent.Model() }

// PendingModel is the model SwitchModel chose while it waits for the next
// turn.
func (c *Conversation) PendingModel() (model, provider string, ok bool) {
	return c.agent.PendingModel()
}

// Endpoint is the conversation's primary endpoint (without its key).
func (c *Conversation) Endpoint() provider.Endpoint {
	c.modelMu.Lock()
	defer c.modelMu.Unlock()
	return c.entries[0].Redacted()
}

// SwitchModel makes the next turns go to another model: "name" on the
// current provider, or "provider:name" (a model name may itself hold a
// colon, as Ollama's "llama3:8b": the part before it must name a provider
// to be taken for one). The fallback providers stay behind it. It
// returns the new primary endpoint (without its key).
func (c *Conversation) SwitchModel(ctx context.Context, ref string) (provider.Endpoint, error) {
	rt := c.rt
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return provider.Endpoint{}, errors.New("model: no model named")
	}
	c.modelMu.Lock()
	entries := slices.Clone(c.entries)
	c.modelMu.Unlock()
	ep, err := rt.endpointFor(ctx, ref, entries[0])
	if err != nil {
		return provider.Endpoint{}, err
	}
	entries[0] = ep
	chain, err := rt.chainOver(entries)
	if err != nil {
		return provider.Endpoint{}, fmt.Errorf("model %s: %w", ref, err)
	}
	c.agent.SetModel(agent.ModelChoice{Client: chain, Model: ep.Model, Provider: ep.Provider, APIMode: ep.APIMode,
		ContextLength: rt.contextWindow(ep)})
	c.modelMu.Lock()
	c.entries, c.chain = entries, chain
	c.modelMu.Unlock()
	rt.addKeys([]provider.Endpoint{ep})
	if err := rt.store.SetModel(ctx, c.SessionID(), ep.Model, ep.Provider); err != nil && !errors.Is(err, session.ErrNotFound) {
		c.warning(fmt.Sprintf("session store: %v", err))
	}
	return ep.Redacted(), nil
}

// SetTitle names the current session (titles are unique); a session not
// stored yet is stored first.
func (c *Conversation) SetTitle(ctx context.Context, title string) error {
	meta := c.agent.Session()
	if meta.Model == "" {
		meta.Model, meta.Provider = c.Model()
	}
	if err := c.rt.store.EnsureSession(ctx, meta); err != nil {
		return err
	}
	if err := c.rt.store.Rename(ctx, meta.ID, title); err != nil {
		return err
	}
	c.mu.Lock()
	c.titleTried = true // a name the user chose is not replaced
	c.mu.Unlock()
	return nil
}

// Undo removes the last exchange (the last user message and all after
// it) from the conversation and from the stored session, and returns what
// it removed, the user message first.
func (c *Conversation) Undo(ctx context.Context) ([]llm.Message, error) {
	dropped, err := c.agent.DropLastTurn()
	if err != nil {
		return nil, err
	}
	if _, err := c.rt.store.DropLastTurn(ctx, c.SessionID()); err != nil {
		return dropped, fmt.Errorf("undo: the stored session keeps the turn: %w", err)
	}
	return dropped, nil
}

// Retry removes the last exchange, as Undo does, and runs its user
// message again as a new turn.
func (c *Conversation) Retry(ctx context.Context) (*agent.Result, error) {
	dropped, err := c.Undo(ctx)
	if err != nil {
		return nil, err
	}
	if len(dropped) == 0 || dropped[0].Role != llm.RoleUser {
		return nil, errors.New("retry: no message to send again")
	}
	u := dropped[0]
	return c.Run(ctx, agent.Input{Message: u.Content, Images: u.Images})
}

// Compress summarises the middle of the conversation now, into a child
// session (/compress); focus says what the summary should keep. It counts
// as a turn: Busy, Wait and Close see it.
func (c *Conversation) Compress(ctx context.Context, focus string) error {
	done, err := c.begin()
	if err != nil {
		return err
	}
	defer done()
	return c.agent.Compress(ctx, focus)
}

// CompressOver compresses the history before a turn when, with its
// system prompt, it holds more than fraction of the context window: the
// gateway's rule (compress.GatewayThreshold) for conversations that grew
// between turns, on top of the loop's own preflight at
// compression.threshold. It reports whether it compressed.
func (c *Conversation) CompressOver(ctx context.Context, fraction float64) (bool, error) {
	window := c.agent.ContextLength()
	if c.compress == nil || window <= 0 {
		return false, nil
	}
	msgs := c.agent.History()
	if len(msgs) < 4 {
		return false, nil // nothing between the kept head and tail
	}
	if p := c.agent.SystemPromptText(); p != "" {
		msgs = append([]llm.Message{llm.System(p)}, msgs...)
	}
	// The tools' schemas are sent with every request: they count.
	if tokens := c.compress.EstimateTokens(msgs, c.agent.ToolDefs()); float64(tokens) <= fraction*float64(window) {
		return false, nil
	}
	return true, c.Compress(ctx, "")
}

// Yolo reports whether dangerous commands run without asking.
func (c *Conversation) Yolo() bool { return c.approver.Yolo() }

// SetYolo turns yolo mode on or off for this conversation, also while a
// turn runs: dangerous commands run without asking. Hardline commands
// are still refused, and the sandbox stays.
func (c *Conversation) SetYolo(on bool) { c.approver.SetYolo(on) }

// RunShell runs a command the user typed (a chat's `!cmd`) with the
// terminal tool, through the same sandbox, approvals and hooks as the
// model's commands. The output is the user's: nothing enters the history.
func (c *Conversation) RunShell(ctx context.Context, command string) (tool.Outcome, error) {
	args, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		return tool.Outcome{}, err
	}
	done, err := c.begin()
	if err != nil {
		return tool.Outcome{}, err
	}
	defer done()
	return c.agent.RunTool(ctx, "terminal", args)
}
