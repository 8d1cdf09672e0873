package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/memory"
	"github.com/hermes-go/hermes/prompt"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/hermes-go/hermes/tools/clarify"
	"github.com/hermes-go/hermes/tools/cronjob"
	"github.com/hermes-go/hermes/tools/sessionsearch"
	"github.com/hermes-go/hermes/tools/todo"
)

// assemble is the one code path that builds a conversation: its
// workspace, model, session, approvals, task list and agent.
func (c *Conversation) assemble(ctx context.Context) error {
	rt, o := c.rt, c.opts
	if err := c.openWorkspace(); err != nil {
		return err
	}
	if err := checkToolsets(o.Toolsets, rt.tools, append(workspaceToolsets(), mcpToolsets(rt.cfg)...)...); err != nil {
		return err
	}
	if len(o.Skills) > 0 {
		text, err := rt.skills.Preload(o.Skills)
		if err != nil {
			return configErr(err)
		}
		c.preloaded = text
	}
	if o.MCP != nil {
		o.MCP.Wait(ctx)
	}
	c.entries = rt.entries
	if o.Model != "" {
		var err error
		if c.entries, err = rt.entriesFor(ctx, o.Model, rt.entries); err != nil {
			return err
		}
		rt.addKeys(c.entries[:1])
	}
	chain, err := rt.chainOver(c.entries)
	if err != nil {
		return configErr(err)
	}
	c.chain = chain
	sess, history, storedPrompt, err := c.openSession(ctx)
	if err != nil {
		return err
	}
	c.fresh = history == nil
	ask := o.Approve
	if ask == nil && o.Unattended != "" {
		reason := o.Unattended
		ask = func(context.Context, approval.Prompt) (approval.Choice, error) {
			return approval.Deny, errors.New(reason)
		}
	}
	c.approver = rt.approverFor(ask, o.Yolo, c.ws.policy.WritableRoots, c.warning)
	c.todos = &todo.Store{}
	if !c.fresh {
		c.todos = c.readTodos(ctx, sess.ID)
	}
	if rt.memory != nil && !o.IgnoreRules && c.toolsetOn("memory") {
		c.memory = rt.memory
	}
	c.obs.add(rt.meter.observe)
	c.obs.add(c.logEvents)
	c.obs.add(o.Observer)
	c.compress = c.newCompressor(rt.contextWindow(chain.Current()))
	acfg, err := c.agentConfig(chain, sess)
	if err != nil {
		return err
	}
	c.agent = agent.New(acfg)
	if history != nil {
		c.agent.SetHistory(history, storedPrompt)
	}
	return nil
}

// openWorkspace picks where the conversation works: the workspace it was
// given, the runtime's, or one of its own.
func (c *Conversation) openWorkspace() error {
	rt, o := c.rt, c.opts
	switch {
	case o.Workspace != nil:
		c.ws = o.Workspace
	case (o.Workdir == "" || o.Workdir == rt.workdir) && (o.Sandbox == "" || o.Sandbox == rt.cfg.Sandbox.Mode):
		c.ws = rt.workspace
	default:
		ws, err := rt.NewWorkspace(o.Workdir, o.Sandbox)
		if err != nil {
			return err
		}
		c.ws = ws
		c.closers = append(c.closers, ws.Close)
	}
	return nil
}

// agentConfig is the agent.Config of the conversation: config.yaml's
// settings over the runtime's shared parts, with the conversation's own
// session, chain, tools, approvals and callbacks. Subagents derive theirs
// from it (delegate.go).
func (c *Conversation) agentConfig(chain *provider.Chain, sess agent.SessionMeta) (agent.Config, error) {
	rt, cfg := c.rt, c.rt.cfg
	ep := chain.Current()
	reg, err := c.registry()
	if err != nil {
		return agent.Config{}, err
	}
	cache, err := rt.cacheOptions(ep)
	if err != nil {
		return agent.Config{}, err
	}
	effort := rt.effort
	if e := c.opts.ReasoningEffort; e != "" {
		if effort, err = provider.ParseReasoningEffort(e); err != nil {
			return agent.Config{}, configErr(err)
		}
	}
	acfg := agent.Config{
		Client:                 chain,
		Model:                  ep.Model,
		Provider:               ep.Provider,
		APIMode:                ep.APIMode,
		Tools:                  reg,
		ToolsReady:             rt.mcpReady,
		MaxIterations:          cmp.Or(c.opts.MaxTurns, cfg.Agent.MaxTurns),
		ToolPoolSize:           cfg.Agent.ToolPoolSize,
		BudgetWarnings:         cfg.Agent.BudgetWarnings,
		KeepPartialOnInterrupt: cfg.Agent.KeepPartialOnInterrupt,
		Vision:                 rt.visionOf,
		MaxTokens:              cfg.Agent.MaxTokens,
		ReasoningEffort:        effort,
		Cache:                  cache,
		SystemPrompt:           c.systemPrompt,
		ToolTimeout:            config.Seconds(cfg.Agent.ToolTimeout),
		SpillDir:               filepath.Join(os.TempDir(), "hermes-tool-output"),
		PreHooks:               c.ws.pre,
		PostHooks:              c.ws.post,
		Approver:               c.approver,
		Redact:                 rt.redact,
		Store:                  rt.store,
		Session:                sess,
		OnCompressed:           c.onCompressed,
		NewSessionID:           c.newHeldSessionID,
		LearnContextLimit:      c.learnContextLimit,
		ContextLength:          rt.contextWindow(ep),
		GuardrailWarnAfter:     cfg.Guardrails.WarnAfter,
		GuardrailHaltAfter:     cfg.Guardrails.HaltAfter,
		Observer:               c.obs.emit,
		Now:                    rt.opts.Now,
		OnTurnEnd:              c.syncMemory,
	}
	if c.compress != nil {
		acfg.Compressor = c.compress
	}
	acfg.AgentTools = c.agentTools()
	if c.toolsetOn("delegation") {
		acfg.AgentTools = append(acfg.AgentTools, c.delegateTool(acfg))
	}
	if c.browserOffered() {
		acfg.AgentTools = append(acfg.AgentTools, c.browserTools(context.Background())...)
	}
	if c.codeOffered() {
		acfg.AgentTools = append(acfg.AgentTools, c.codeTool(reg, acfg.AgentTools))
	}
	return acfg, nil
}

// codeOffered says whether the conversation gets execute_code: wherever
// its toolset is on, but in a one-shot terminal run (source cli with no
// one at the terminal) only where the toolsets name it, so that run's
// first request stays under 10 KB.
func (c *Conversation) codeOffered() bool {
	if !c.toolsetOn("code") {
		return false
	}
	if cmp.Or(c.opts.Source, c.rt.opts.Source) == "cli" && c.opts.Origin == "" {
		return slices.Contains(c.opts.Toolsets, "code") || slices.Contains(c.opts.Toolsets, "all")
	}
	return true
}

// newCompressor is the conversation's compressor over the runtime's
// summarizer, nil when compression is off: its own, for the task list
// it carries into summaries.
func (c *Conversation) newCompressor(window int) *compress.Compressor {
	rt, cfg := c.rt, c.rt.cfg
	if rt.summarizer == nil {
		return nil
	}
	cp := &compress.Compressor{
		Summarizer:    rt.summarizer,
		Model:         rt.summarizerModel,
		Threshold:     cfg.Compression.Threshold,
		ProtectFirstN: cfg.Compression.ProtectFirstN,
		ProtectLastN:  cfg.Compression.ProtectLastN,
		ContextLength: window,
		Todos:         c.todos.Reminder,
	}
	if mem := c.memory; mem != nil {
		// Nothing the agent learned is lost with the summarised turns.
		cp.BeforeCompress = func(context.Context) error {
			_, err := mem.Sync()
			return err
		}
	}
	return cp
}

// agentToolsets are the toolsets of the tools agentTools adds.
var agentToolsets = []string{"memory", "todo", "session_search", "clarify", "delegation", "cronjob", "code"}

// agentTools are the tools that keep a conversation's state: memory,
// todo, session_search and clarify (delegate_task is added over the
// finished configuration).
func (c *Conversation) agentTools() []tool.Tool {
	var out []tool.Tool
	if c.memory != nil {
		out = append(out, memory.NewTool(c.memory))
	}
	if c.toolsetOn("todo") {
		out = append(out, todo.NewTool(c.todos, c.rt.store.SetTodo))
	}
	if c.toolsetOn("session_search") {
		out = append(out, sessionsearch.New(c.rt.store, c.currentSession))
	}
	if c.toolsetOn("clarify") {
		out = append(out, clarify.New(c.opts.Clarify))
	}
	if c.cronjobOffered() {
		loc, _ := c.rt.cfg.Cron.Location() // checked when config.yaml was read
		out = append(out, cronjob.New(cronjob.Options{Home: c.rt.cfg.Home, Workdir: c.Workdir, Location: loc, Now: c.rt.opts.Now, Origin: c.opts.Origin}))
	}
	return out
}

// cronjobOffered says whether the conversation gets the cronjob tool:
// where it has an origin (a chat, or a person at the terminal; a job
// delivers there by default), or where its toolsets name it; not in
// one-shot runs, the API or batch, where its schema would weigh on every
// request of runs that schedule nothing. A cron run never schedules runs.
func (c *Conversation) cronjobOffered() bool {
	if !toolsetEnabled(c.rt.cfg, "cronjob") || cmp.Or(c.opts.Source, c.rt.opts.Source) == "cron" {
		return false
	}
	return c.opts.Origin != "" || slices.Contains(c.opts.Toolsets, "cronjob") || slices.Contains(c.opts.Toolsets, "all")
}

// currentSession is the conversation's session id, "" before its agent
// exists.
func (c *Conversation) currentSession() string {
	if c.agent == nil {
		return ""
	}
	return c.agent.SessionID()
}

// promptBuilder is the system prompt's builder for model, without the
// tool names.
func (c *Conversation) promptBuilder(model, prov string) prompt.Builder {
	rt := c.rt
	b := prompt.Builder{
		Home: rt.cfg.Home, Workdir: c.ws.workdir, Model: model, Provider: prov,
		Platform: cmp.Or(c.opts.Platform, rt.opts.Platform), Now: rt.opts.Now, IgnoreRules: c.opts.IgnoreRules,
		Extra:       strings.TrimSpace(rt.cfg.Agent.SystemPrompt + "\n\n" + c.opts.SystemPrompt),
		SkillsIndex: c.skillsPrompt(),
	}
	if c.memory != nil {
		snap := c.memory.Snapshot()
		b.MemorySnapshot, b.UserSnapshot = snap.Memory, snap.User
	}
	return b
}

// systemPrompt builds the session's system prompt (agent.Config's
// SystemPrompt). A new session reads memory again first: in a long-lived
// process the files change between sessions.
func (c *Conversation) systemPrompt(ctx context.Context, model, prov string) (string, error) {
	if c.memory != nil && c.fresh {
		if err := c.memory.Load(); err != nil {
			c.warning(fmt.Sprintf("memory: %v", err))
		}
	}
	b := c.promptBuilder(model, prov)
	b.ToolNames = c.toolNames()
	p, notes := b.Build()
	for _, n := range notes {
		c.warning("system prompt: " + n)
	}
	return p, nil
}

// toolNames are the names of the tools the conversation offers.
func (c *Conversation) toolNames() []string {
	var names []string
	for _, s := range c.agent.ToolSpecs() {
		names = append(names, s.Name)
	}
	return names
}

// syncMemory writes what the memory tool changed at the end of a turn.
func (c *Conversation) syncMemory(ctx context.Context, res *agent.Result) error {
	mem := c.memory
	if mem == nil {
		return nil
	}
	defer mem.StartTurn()
	_, err := mem.Sync()
	return err
}

// onCompressed follows a compression: memory read again for the
// continuation's prompt, the task list carried into the child session.
func (c *Conversation) onCompressed(ctx context.Context, history []llm.Message, sessionID string) error {
	var errs []error
	if c.memory != nil {
		errs = append(errs, c.memory.Load())
	}
	if b, err := json.Marshal(c.todos); err == nil && sessionID != "" {
		errs = append(errs, c.rt.store.SetTodo(ctx, sessionID, b))
	}
	return errors.Join(errs...)
}

// learnContextLimit remembers a context window an overflow revealed,
// under the endpoint that answered (a fallback's, when one did).
func (c *Conversation) learnContextLimit(model string, limit int) {
	c.modelMu.Lock()
	chain := c.chain
	c.modelMu.Unlock()
	ep := chain.Current()
	if ep.Model != model {
		for _, e := range chain.Endpoints() {
			if e.Model == model {
				ep = e
				break
			}
		}
	}
	if err := c.rt.learnContextLimit(ep, limit); err != nil {
		c.warning(err.Error())
	}
}

// readTodos reads a session's stored task list.
func (c *Conversation) readTodos(ctx context.Context, sessionID string) *todo.Store {
	todos := &todo.Store{}
	if raw, err := c.rt.store.Todo(ctx, sessionID); err == nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, todos); err != nil {
			c.warning(fmt.Sprintf("stored task list unreadable, starting empty: %v", err))
		}
	}
	return todos
}
