package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/memory"
	"github.com/hermes-go/hermes/prompt"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/clarify"
	"github.com/hermes-go/hermes/tools/file"
	"github.com/hermes-go/hermes/tools/sessionsearch"
	"github.com/hermes-go/hermes/tools/terminal"
	"github.com/hermes-go/hermes/tools/todo"
)

// buildTools registers the built-in tools, filtered by the toolsets
// setting, then the embedder's own.
func (rt *Runtime) buildTools(ctx context.Context) (*tool.Registry, error) {
	cfg := rt.cfg
	reg := &tool.Registry{}
	if err := rt.openSkills(); err != nil {
		return nil, err
	}
	term, files := rt.workspaceTools(rt.workdir, &rt.policy)
	rt.closers = append(rt.closers, term.Close)
	if err := registerAll(reg, append(append(term.Tools(), files.All()...), rt.skillTools()...)...); err != nil {
		return nil, err
	}
	webTools, err := rt.webTools(ctx)
	if err != nil {
		return nil, err
	}
	if err := registerAll(reg, webTools...); err != nil {
		return nil, err
	}
	if err := checkToolsets(cfg.Toolsets, reg, rt.opts.Tools, mcpToolsets(cfg)...); err != nil {
		return nil, err
	}
	if len(cfg.Toolsets) > 0 {
		reg = reg.Filter(cfg.Toolsets)
	}
	if err := registerAll(reg, rt.opts.Tools...); err != nil {
		return nil, err
	}
	// The MCP servers, started first, add their tools to rt.tools.
	for _, n := range reg.Names() {
		t, _ := reg.Get(n)
		if err := registerAll(rt.tools, t); err != nil {
			return nil, err
		}
	}
	return rt.tools, nil
}

// workspaceTools are the terminal and the file tools of a workspace,
// under its sandbox.
func (rt *Runtime) workspaceTools(workdir string, policy *sandbox.Policy) (*terminal.Terminal, *file.Tools) {
	cfg := rt.cfg
	term := terminal.New(terminal.Options{
		Timeout:        config.Seconds(cfg.Terminal.Timeout),
		MaxOutput:      cfg.Terminal.MaxOutput,
		Dir:            workdir,
		Redact:         rt.redact,
		Now:            rt.opts.Now,
		Sandbox:        policy,
		EnvPassthrough: cfg.Terminal.EnvPassthrough,
	})
	files := file.New(file.Options{Workdir: term.Workdir, Redact: rt.redact,
		WriteGuard: policy.CheckWrite, ReadGuard: policy.CheckRead})
	return term, files
}

// agentToolsets are the toolsets of the tools wireAgentTools and
// buildAgent add to the agent itself.
var agentToolsets = []string{"memory", "todo", "session_search", "clarify", "delegation"}

// checkToolsets rejects a toolsets setting naming a toolset no tool
// belongs to: a typo would otherwise leave the model without tools.
func checkToolsets(names []string, builtin *tool.Registry, extra []tool.Tool, more ...string) error {
	known := append(append(append([]string{"all"}, agentToolsets...), optionalToolsets...), more...)
	for _, n := range builtin.Names() {
		t, _ := builtin.Get(n)
		known = append(known, t.Spec().Toolset)
	}
	for _, t := range extra {
		known = append(known, t.Spec().Toolset)
	}
	known = slices.DeleteFunc(known, func(s string) bool { return s == "" })
	slices.Sort(known)
	known = slices.Compact(known)
	for _, n := range names {
		if !slices.Contains(known, n) {
			return configErr(fmt.Errorf("toolsets: unknown toolset %q (known: %s)", n, strings.Join(known, ", ")))
		}
	}
	return nil
}

// openMemory opens the memory files, unless rules and memory are off or
// the memory toolset is. Unreadable files are kept as they are and the
// session runs without memory.
func (rt *Runtime) openMemory() {
	if rt.opts.IgnoreRules || !toolsetEnabled(rt.cfg, "memory") {
		return
	}
	m, err := memory.Open(memory.Options{Dir: memory.Dir(rt.cfg.Home)})
	if err != nil {
		rt.warn(fmt.Sprintf("memory disabled for this session: %v", err))
		return
	}
	rt.memory = m
}

// promptBuilder is the system prompt's builder for model, without the
// tool names.
func (rt *Runtime) promptBuilder(model, prov string) prompt.Builder {
	b := prompt.Builder{
		Home: rt.cfg.Home, Workdir: rt.workdir, Model: model, Provider: prov, Platform: rt.opts.Platform,
		Now: rt.opts.Now, IgnoreRules: rt.opts.IgnoreRules, Extra: rt.cfg.Agent.SystemPrompt,
		SkillsIndex: rt.skillsPrompt(),
	}
	if rt.memory != nil {
		snap := rt.memory.Snapshot()
		b.MemorySnapshot, b.UserSnapshot = snap.Memory, snap.User
	}
	return b
}

// loadTodos restores the session's task list.
func (rt *Runtime) loadTodos(ctx context.Context, sessionID string) {
	rt.todos = rt.readTodos(ctx, sessionID, rt.warn)
}

// readTodos reads a session's stored task list.
func (rt *Runtime) readTodos(ctx context.Context, sessionID string, warn func(string)) *todo.Store {
	todos := &todo.Store{}
	if raw, err := rt.store.Todo(ctx, sessionID); err == nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, todos); err != nil {
			warn(fmt.Sprintf("stored task list unreadable, starting empty: %v", err))
		}
	}
	return todos
}

// wireAgentTools adds memory, todo, session_search and clarify to the
// agent, and builds the system prompt builder and the end-of-turn memory
// sync around them.
func (rt *Runtime) wireAgentTools(acfg *agent.Config) {
	cfg := rt.cfg
	mem, todos := rt.memory, rt.todos
	if mem != nil {
		acfg.AgentTools = append(acfg.AgentTools, memory.NewTool(mem))
	}
	if toolsetEnabled(cfg, "todo") {
		acfg.AgentTools = append(acfg.AgentTools, todo.NewTool(todos, rt.store.SetTodo))
	}
	if toolsetEnabled(cfg, "session_search") {
		acfg.AgentTools = append(acfg.AgentTools, sessionsearch.New(rt.store))
	}
	if toolsetEnabled(cfg, "clarify") {
		acfg.AgentTools = append(acfg.AgentTools, clarify.New(rt.opts.Clarify))
	}

	acfg.SystemPrompt = func(ctx context.Context, model, prov string) (string, error) {
		b := rt.promptBuilder(model, prov)
		for _, t := range acfg.AgentTools {
			b.ToolNames = append(b.ToolNames, t.Spec().Name)
		}
		b.ToolNames = append(b.ToolNames, acfg.Tools.Names()...)
		p, notes := b.Build()
		for _, n := range notes {
			rt.eventWarning("system prompt: " + n)
		}
		return p, nil
	}
	acfg.ToolsReady = rt.mcpReady
	acfg.OnTurnEnd = func(ctx context.Context, res *agent.Result) error {
		if mem == nil {
			return nil
		}
		defer mem.StartTurn()
		_, err := mem.Sync()
		return err
	}
	acfg.OnCompressed = func(ctx context.Context, history []llm.Message, sessionID string) error {
		var errs []string
		if mem != nil {
			// The continuation's prompt is rebuilt with what memory holds now.
			if err := mem.Load(); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if b, err := json.Marshal(todos); err == nil && sessionID != "" {
			if err := rt.store.SetTodo(ctx, sessionID, b); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("%s", strings.Join(errs, "; "))
		}
		return nil
	}
}
