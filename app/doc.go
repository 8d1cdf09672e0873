// Package app assembles the Hermes runtime, split the way database/sql
// splits DB from Conn.
//
// A Runtime is built once from a config.Config (New) and holds only what
// every conversation shares: the configuration, the SQLite session
// store, the provider configuration and its resolution, the MCP servers,
// the skills library, memory, the redactor, the guarded web client, the
// usage meter, the keys approved for good (command_allowlist), the
// context limits learned from overflow errors, the auxiliary chains, and
// the default workspace. It has no agent and no session of its own, and
// is safe for concurrent use.
//
// rt.Open gives a Conversation: one session (new, resumed by id, title or
// "latest", or forked), its working directory with the sandbox policy
// and checkpoint store for that directory, its toolsets, model,
// iteration budget, approval and clarify callbacks, yolo, task list,
// source and observers. Opening holds the session (one writer: a second
// Open of a held session, in this process or another, is a *ConfigError
// for session.ErrBusy naming the holder's pid, and a holder that dies
// releases it); Close releases it. A conversation runs one turn at a time
// (Run, Stream, Chat; agent.ErrBusy otherwise), offers the slash-command
// operations (SwitchModel, Undo, Retry, Compress, SetTitle, ...; /new and
// /resume are a Close and an Open), usage, and Wait for a turn to end.
// Every surface (the one-shot CLI, the line chat, the terminal UI, the
// API server, ACP, batch on both engines) and every embedder opens
// conversations; subagents are built from their conversation's agent
// configuration, changing only what makes them children
// (delegate.ChildDiffers, childOwn). Runtime.Close closes the
// conversations still open: none outlives its runtime.
//
// A minimal embedder:
//
//	cfg, err := app.LoadConfig(os.Getenv) // $HERMES_HOME/config.yaml and .env
//	rt, err := app.New(ctx, cfg, app.Options{Tools: []tool.Tool{myTool}})
//	defer rt.Close()
//	c, err := rt.Open(ctx, app.ConversationOptions{})
//	defer c.Close()
//	answer, err := c.Chat(ctx, "What is in this directory?")
//
// One owner for each piece of state: a conversation owns its model (its
// chain of endpoints; SwitchModel changes it for the next turn and
// nothing else); the runtime owns the approvals given for good (an
// "always" in one conversation applies at once to every other and to
// subagents, and is saved to config.yaml) and the learned context limits,
// kept per endpoint that answered.
//
// Commands the agent runs are sandboxed (package sandbox) by re-executing
// the program itself as a helper, so a program that embeds the runtime
// calls sandbox.MaybeRunHelper first thing in main; without it
// SandboxStatus says the sandbox is not enforced (and sandbox.required
// refuses commands).
//
// Workspaces: conversations in the runtime's default directory and
// sandbox mode share its workspace (terminal, file tools, hooks,
// checkpoints); one opened in another directory or mode gets its own,
// which its Close ends; a surface that keeps a directory across
// conversations makes one with NewWorkspace. A workspace's tools are a
// view (tool.Stack) of the runtime's shared registry with its own on top,
// so tools of MCP servers that join later are offered from the next
// model call, and opening a conversation copies no tool table.
//
// MCP servers (mcp_servers in config.yaml, package mcp) start in parallel
// when New runs; New does not wait for them. Each turn waits for those
// still starting, but never past mcp_startup_timeout after they started.
// Servers that fail, die or come back are reported through
// Options.OnWarning (from other goroutines) and Warnings; MCPStatus says
// how each is, ReloadMCP (/reload-mcp) reads the configuration again.
// Skills (package skills) are indexed in the system prompt and loaded by
// the skill tools; ConversationOptions.Skills preloads some (hermes -s).
//
// New reads nothing but what it is given and HERMES_HOME (config.Home).
// Its one network call is for a newcomer: with provider auto and no key
// anywhere, it probes the usual ports of local OpenAI-compatible servers
// (Ollama, LM Studio, llama.cpp, vLLM; HERMES_LOCAL_PORTS overrides them)
// and Runtime.LocalServer says which it picked. Configuration problems
// are *ConfigError values, so a caller can tell "fix your setup" from a
// runtime failure.
//
// Images and the web: a model's vision comes from model.vision or the
// model table; AttachImage queues an image for the next prompt (the
// /image command), agent.Input.Images carries them directly. web_extract
// is offered with the web toolset, web_search when a backend is
// configured (web.search.*), vision_analyze when a vision model is. Their
// fetches go through internal/netguard unless web.allow_private. Usage
// reports the session's tokens and, apart, what the runtime's main model
// and each auxiliary task (compression, title_generation, vision,
// web_extract) spent. Session titles are generated here
// (auxiliary.title_generation), not by the store, which only stores.
package app
