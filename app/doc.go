// Package app assembles the Hermes runtime: from a config.Config it builds
// the agent exactly as the hermes command runs it, with the provider chain
// and its fallbacks, the auxiliary chains (compression, titles, vision,
// web extraction), the web tools, context
// compression, the SQLite session store, memory, the default toolsets,
// the dangerous-command approval policy, shell hooks, secret redaction and
// subagents. Every surface (the CLI, the terminal UI, the API server, ACP,
// batch runs) and every embedder starts here, so none of them copies the
// wiring.
//
// A minimal embedder:
//
//	cfg, err := app.LoadConfig(os.Getenv) // $HERMES_HOME/config.yaml and .env
//	rt, err := app.New(ctx, cfg, app.Options{Tools: []tool.Tool{myTool}})
//	defer rt.Close()
//	answer, err := rt.Agent().Chat(ctx, "What is in this directory?")
//
// Commands the agent runs are sandboxed (package sandbox) by re-executing
// the program itself as a helper, so a program that embeds the runtime
// calls sandbox.MaybeRunHelper first thing in main; without it
// Runtime.SandboxStatus says the sandbox is not enforced (and
// sandbox.required refuses commands).
//
// Options holds what differs between surfaces: where sessions come from
// (Source), who answers approval and clarify questions (nobody, by
// default: dangerous commands are then denied), extra tools, the working
// directory, a session to resume.
//
// MCP servers (mcp_servers in config.yaml, package mcp) start in
// parallel when New runs; New does not wait for them. Each turn waits for
// those still starting, but never past mcp_startup_timeout after they
// started; a later one joins when ready and its tools are offered from
// the next model call. Servers that fail, die or come back are reported
// through Options.OnWarning (from other goroutines) and Warnings;
// MCPStatus and MCPStatusLine say how each is, ReloadMCP (/reload-mcp)
// reads the configuration again. Skills (package skills) are indexed in
// the system prompt and loaded by the skill tools; Options.Skills
// preloads some (hermes -s), SkillNames and SkillMessage serve the
// /<skill> commands.
//
// New reads nothing but what it is given and HERMES_HOME (config.Home).
// Its one network call is for a newcomer: with provider auto and no key
// anywhere, it probes the usual ports of local OpenAI-compatible servers
// (Ollama, LM Studio, llama.cpp, vLLM; HERMES_LOCAL_PORTS overrides them)
// and Runtime.LocalServer says which it picked; a local provider named
// without a model is asked for its models. Configuration problems are
// *ConfigError values, so a caller can tell "fix your setup" from a
// runtime failure.
//
// Images and the web: a model's vision comes from model.vision or its
// family (llm.SupportsVision); AttachImage queues an image for the next
// prompt (the /image command), agent.Input.Images carries them directly.
// web_extract is offered with the web toolset, web_search when a backend
// is configured (web.search.*), vision_analyze when a vision model is
// (auxiliary.vision, or the main model). Their fetches go through
// internal/netguard unless web.allow_private. Usage reports the main
// model's tokens and, apart, each auxiliary task's (compression,
// title_generation, vision, web_extract): the /usage command and the
// usage file.
//
// One writer per session: New holds the session it starts or resumes
// (session.Store.Acquire), and so does a compression for the child
// session it continues in, until Close. Resuming a session that another
// runtime, in this process or another, holds is a *ConfigError for
// session.ErrBusy naming the holder's pid; a holder that dies releases it.
//
// Surfaces that serve many conversations (the API server, ACP) do not
// keep an agent per conversation: NewAgent makes one for a turn over the
// runtime's shared parts (one store, one provider configuration, the
// built-in tools and hooks, memory), resuming its session from the
// store, and Agent.Close ends it, so no transcript outlives its turn.
// Each such agent holds its session like the runtime's own.
//
// Concurrency: a Runtime is safe for concurrent use as far as its parts
// are: its Agent runs one turn at a time (agent.ErrBusy otherwise); the
// Store is safe for concurrent use; NewAgent may be called from any
// goroutine. Observe may be called at any time. Close must be called
// once, after the last turn of every agent.
package app
