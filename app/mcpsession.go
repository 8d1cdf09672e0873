package app

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/mcp"
	"github.com/hermes-go/hermes/tool"
)

// SessionMCP is the MCP servers one conversation brings with it (those
// an editor passes with an ACP session), started for it alone and
// stopped by Close. They follow the rules of configured servers: tools
// named mcp__<server>__<tool> in toolset mcp-<server>, the toolsets
// setting, stdio servers under the sandbox policy of the configured ones
// (for the conversation's directory; none is trusted, there is no way to
// say so), with the environment less its secrets plus their own env. In
// the runtime's directory they are started by the sandbox helper of its
// terminal; elsewhere by one helper for the servers of the set.
// Nothing of theirs is cached: a server that cannot start offers no
// tools. A server named like a configured one takes its place in the
// conversation.
//
// Pass it in ConversationOptions.MCP; the conversation offers the tools
// of each server from its first model call after the server started.
// SessionMCP is safe for concurrent use.
type SessionMCP struct {
	m     *mcp.Manager
	reg   *tool.Registry
	names []string // servers started
	bound time.Duration
}

// StartSessionMCP starts servers for a conversation working in workdir
// (default the runtime's) and returns without waiting for them. What goes
// wrong (a server the toolsets setting leaves out, one that fails to
// start, dies or comes back) is told to onWarning, from the servers'
// goroutines too; a server that cannot start is started again with
// backoff, as configured ones are.
func (rt *Runtime) StartSessionMCP(workdir string, servers []mcp.Server, onWarning func(string)) (*SessionMCP, error) {
	if onWarning == nil {
		onWarning = func(string) {}
	}
	workdir = cmp.Or(workdir, rt.workdir)
	// In the runtime's directory the servers share the default
	// workspace's sandbox helper with its terminal; elsewhere the manager
	// starts one for them.
	policy, runner := rt.workspace.policy, rt.workspace.runner
	if workdir != rt.workdir {
		var err error
		if policy, err = SandboxPolicy(rt.cfg, workdir, rt.getenv); err != nil {
			return nil, err
		}
		runner = nil
	}
	var keep []mcp.Server
	seen := map[string]bool{}
	for _, s := range servers {
		switch {
		case s.Name == "":
			onWarning(fmt.Sprintf("an MCP server without a name (%s) was not started: it needs one for its tools' names", describe(s)))
			continue
		case seen[s.Name]:
			onWarning(fmt.Sprintf("MCP server %s was passed twice; only the first one was started", s.Name))
			continue
		case !mcpSelected(rt.cfg.Toolsets, s.Name):
			onWarning(fmt.Sprintf("MCP server %s was not started: the toolsets setting (%v) selects neither mcp nor %s", s.Name, rt.cfg.Toolsets, mcp.Toolset(s.Name)))
			continue
		}
		seen[s.Name] = true
		s.Trusted = false
		if s.Dir == "" {
			s.Dir = workdir
		}
		keep = append(keep, s)
	}
	sm := &SessionMCP{reg: &tool.Registry{}, bound: config.Seconds(rt.cfg.MCPStartupTimeout)}
	m, err := mcp.New(mcp.Options{Registry: sm.reg, Sandbox: &policy, Runner: runner, Environ: mcpEnviron(), Dir: workdir, OnWarning: onWarning}, keep)
	if err != nil {
		return nil, err
	}
	for _, s := range keep {
		sm.names = append(sm.names, s.Name)
	}
	sm.m = m
	m.Start()
	return sm, nil
}

func describe(s mcp.Server) string {
	if s.URL != "" {
		return s.URL
	}
	return s.Command
}

// Wait waits until every server has made its first attempt, but not
// past mcp_startup_timeout after it started, nor past ctx; servers still
// starting then are told to onWarning and returned.
func (s *SessionMCP) Wait(ctx context.Context) []string {
	return s.m.WaitStarted(ctx, s.bound)
}

// Status lists the servers, as Runtime.MCPStatus does.
func (s *SessionMCP) Status() []mcp.Status { return s.m.Status() }

// Close stops the servers (their processes end) and removes their tools.
func (s *SessionMCP) Close() error { return s.m.Close() }

// over is base with the servers' tools on top, as a view that follows
// both: only the tools of servers past their first start (a server
// registers its tools one by one before it counts as started, so none is
// offered half listed), in place of a configured server of the same
// name.
func (s *SessionMCP) over(base *tool.Registry) (*tool.Registry, error) {
	own := map[string]bool{}
	for _, n := range s.names {
		own[mcp.Toolset(n)] = true
	}
	started := tool.Where(s.reg, func(t tool.Tool) bool {
		ts := t.Spec().Toolset
		for _, st := range s.m.Status() {
			if mcp.Toolset(st.Name) == ts {
				return st.State != mcp.Starting
			}
		}
		return true
	})
	configured := tool.Where(base, func(t tool.Tool) bool { return !own[t.Spec().Toolset] })
	return tool.Stack(started, configured), nil
}
