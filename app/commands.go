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
	"github.com/hermes-go/hermes/tools/todo"
)

// The session operations of an interactive surface (the slash commands
// of the terminal UI and the line mode). None of them may run during a
// turn (agent.ErrBusy) except SwitchModel, which applies to the next turn.

// NewSession ends the current session and continues in a new, empty one,
// which is stored with its first message. It returns the new id.
func (rt *Runtime) NewSession(ctx context.Context) (string, error) {
	if rt.agent.Busy() {
		return "", agent.ErrBusy
	}
	old := rt.agent.SessionID()
	id := rt.newSessionID()
	if err := rt.hold(ctx, id); err != nil {
		return "", err
	}
	meta := agent.SessionMeta{ID: id, Source: rt.opts.Source, Cwd: rt.workdir}
	if err := rt.agent.SwitchSession(meta, nil, ""); err != nil {
		rt.release(id)
		return "", err
	}
	rt.todos.Set(todo.State{})
	rt.leave(ctx, old, "new_session")
	return id, nil
}

// ResumeSession continues the stored session ref names (an id, a title or
// "latest"), with its history; the current session is ended. It returns
// the session as stored.
func (rt *Runtime) ResumeSession(ctx context.Context, ref string) (session.Session, error) {
	if rt.agent.Busy() {
		return session.Session{}, agent.ErrBusy
	}
	s, err := rt.store.Resolve(ctx, ref)
	if err != nil {
		return session.Session{}, fmt.Errorf("resume %q: %w", ref, err)
	}
	old := rt.agent.SessionID()
	if s.ID == old {
		return session.Session{}, fmt.Errorf("resume %q: that is the current session (%s)", ref, s.ID)
	}
	meta, msgs, stored, err := rt.loadSession(ctx, s.ID)
	if err != nil {
		return session.Session{}, err
	}
	if err := rt.agent.SwitchSession(meta, msgs, stored); err != nil {
		rt.release(meta.ID)
		return session.Session{}, err
	}
	rt.todos.Set(todo.State{})
	if raw, err := rt.store.Todo(ctx, meta.ID); err == nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, rt.todos); err != nil {
			rt.eventWarning(fmt.Sprintf("stored task list unreadable, starting empty: %v", err))
		}
	}
	rt.leave(ctx, old, "resumed_other")
	return rt.store.Get(ctx, meta.ID)
}

// leave ends a session this runtime is done with and lets go of it, so
// another process may resume it.
func (rt *Runtime) leave(ctx context.Context, id, reason string) {
	if err := rt.store.EndSession(ctx, id, reason); err != nil && !errors.Is(err, session.ErrNotFound) {
		rt.eventWarning(fmt.Sprintf("session store: %v", err))
	}
	rt.release(id)
	rt.titleMu.Lock()
	rt.titleTried = false
	rt.titleMu.Unlock()
}

// release lets go of a session hold takes.
func (rt *Runtime) release(id string) {
	rt.locksMu.Lock()
	release := rt.locks[id]
	delete(rt.locks, id)
	rt.locksMu.Unlock()
	if release != nil {
		if err := release(); err != nil {
			rt.eventWarning(fmt.Sprintf("session store: %v", err))
		}
	}
}

// RecentSessions lists the most recent sessions (subagents' left out).
func (rt *Runtime) RecentSessions(ctx context.Context, limit int) ([]session.Summary, error) {
	return rt.store.List(ctx, session.ListOptions{Limit: limit, ExcludeSources: []string{"subagent"}})
}

// CurrentSession is the current session as stored; a session not stored
// yet (no message sent) is returned from what the agent knows, with
// session.ErrNotFound.
func (rt *Runtime) CurrentSession(ctx context.Context) (session.Session, error) {
	meta := rt.agent.Session()
	s, err := rt.store.Get(ctx, meta.ID)
	if errors.Is(err, session.ErrNotFound) {
		model, prov := rt.agent.Model()
		return session.Session{ID: meta.ID, Source: meta.Source, Cwd: meta.Cwd, Model: model, Provider: prov}, err
	}
	return s, err
}

// SetTitle names the current session (titles are unique); a session not
// stored yet is stored first.
func (rt *Runtime) SetTitle(ctx context.Context, title string) error {
	meta := rt.agent.Session()
	if meta.Model == "" {
		meta.Model, meta.Provider = rt.agentModel()
	}
	if err := rt.store.EnsureSession(ctx, meta); err != nil {
		return err
	}
	if err := rt.store.Rename(ctx, meta.ID, title); err != nil {
		return err
	}
	rt.titleMu.Lock()
	rt.titleTried = true // a name the user chose is not replaced
	rt.titleMu.Unlock()
	return nil
}

// UndoTurn removes the last exchange (the last user message and all after
// it) from the conversation and from the stored session, and returns what
// it removed, the user message first.
func (rt *Runtime) UndoTurn(ctx context.Context) ([]llm.Message, error) {
	dropped, err := rt.agent.DropLastTurn()
	if err != nil {
		return nil, err
	}
	if _, err := rt.store.DropLastTurn(ctx, rt.agent.SessionID()); err != nil {
		return dropped, fmt.Errorf("undo: the stored session keeps the turn: %w", err)
	}
	return dropped, nil
}

// SwitchModel makes the next turns go to another model: "name" on the
// current provider, or "provider:name" (a model name may itself hold a
// colon, as Ollama's "llama3:8b": the part before it must name a provider
// to be taken for one). The fallback providers stay behind it. It
// returns the new primary endpoint (without its key).
func (rt *Runtime) SwitchModel(ctx context.Context, ref string) (provider.Endpoint, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return provider.Endpoint{}, errors.New("model: no model named")
	}
	rt.modelMu.Lock()
	cur, entries := rt.endpoint, slices.Clone(rt.entries)
	rt.modelMu.Unlock()
	ep, err := rt.endpointFor(ctx, ref, cur)
	if err != nil {
		return provider.Endpoint{}, err
	}
	entries[0] = ep
	chain, err := rt.chainOver(entries)
	if err != nil {
		return provider.Endpoint{}, fmt.Errorf("model %s: %w", ref, err)
	}
	rt.agent.SetModel(agent.ModelChoice{Client: chain, Model: ep.Model, Provider: ep.Provider, APIMode: ep.APIMode,
		ContextLength: rt.contextWindow(ep)})
	rt.modelMu.Lock()
	rt.endpoint, rt.entries = ep, entries
	rt.modelMu.Unlock()
	rt.addKeys([]provider.Endpoint{ep})
	if err := rt.store.SetModel(ctx, rt.agent.SessionID(), ep.Model, ep.Provider); err != nil && !errors.Is(err, session.ErrNotFound) {
		rt.eventWarning(fmt.Sprintf("session store: %v", err))
	}
	return ep.Redacted(), nil
}

// isProvider reports whether id names a built-in provider or one of
// config.yaml's providers.
func (rt *Runtime) isProvider(id string) bool {
	if _, ok := provider.Lookup(id); ok {
		return true
	}
	_, ok := rt.pcfg.Providers[id]
	return ok
}

// Yolo reports whether dangerous commands run without asking.
func (rt *Runtime) Yolo() bool { return rt.approver.Yolo() }

// SetYolo turns yolo mode on or off for the rest of the run: dangerous
// commands run without asking. Hardline commands are still refused, and
// the sandbox stays.
func (rt *Runtime) SetYolo(on bool) { rt.approver.SetYolo(on) }

// RunShell runs a command the user typed (a chat's `!cmd`) with the
// terminal tool, through the same sandbox, approvals and hooks as the
// model's commands. The output is the user's: nothing enters the history.
func (rt *Runtime) RunShell(ctx context.Context, command string) (tool.Outcome, error) {
	args, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		return tool.Outcome{}, err
	}
	return rt.agent.RunTool(ctx, "terminal", args)
}
