package acp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/mcp"
)

// mcpCapabilities are the MCP transports an editor may pass servers
// over: stdio (which every agent supports), streamable HTTP and SSE.
var mcpCapabilities = sdk.McpCapabilities{Http: true, Sse: true}

// mcpServers turns the servers an editor passed into ours, with what
// cannot be used said in problems.
func mcpServers(list []sdk.McpServer) (out []mcp.Server, problems []string) {
	headers := func(hs []sdk.HttpHeader) map[string]string {
		if len(hs) == 0 {
			return nil
		}
		m := map[string]string{}
		for _, h := range hs {
			m[h.Name] = h.Value
		}
		return m
	}
	for _, s := range list {
		switch {
		case s.Stdio != nil:
			srv := mcp.Server{Name: s.Stdio.Name, Transport: mcp.Stdio, Command: s.Stdio.Command, Args: s.Stdio.Args}
			for _, e := range s.Stdio.Env {
				srv.Env = append(srv.Env, e.Name+"="+e.Value)
			}
			out = append(out, srv)
		case s.Http != nil:
			out = append(out, mcp.Server{Name: s.Http.Name, Transport: mcp.HTTP, URL: s.Http.Url, Headers: headers(s.Http.Headers)})
		case s.Sse != nil:
			out = append(out, mcp.Server{Name: s.Sse.Name, Transport: mcp.SSE, URL: s.Sse.Url, Headers: headers(s.Sse.Headers)})
		case s.Acp != nil:
			problems = append(problems, fmt.Sprintf("MCP server %s was not started: hermes does not support MCP over the ACP connection (stdio, http and sse it does)", s.Acp.Name))
		default:
			problems = append(problems, "an MCP server of a transport hermes does not know was not started")
		}
	}
	return out, problems
}

// startMCP starts the servers the editor passed for se. What goes wrong
// is told to the editor as the session's message text, once answered
// (the editor must know the session before its updates); answered ends
// when the session/new or session/load answer has been written.
func (s *server) startMCP(answered context.Context, se *sess, list []sdk.McpServer) {
	if len(list) == 0 {
		return
	}
	n := &notices{send: func(text string) {
		s.opts.Logger.Warn("acp: MCP", "session", se.id, "msg", text)
		s.update(context.Background(), se, sdk.UpdateAgentMessageText(text+"\n\n"))
	}}
	servers, problems := mcpServers(list)
	for _, p := range problems {
		n.add(p)
	}
	var set *app.SessionMCP
	if len(servers) > 0 {
		var err error
		if set, err = s.rt.StartSessionMCP(se.cwd, servers, n.add); err != nil {
			n.add(fmt.Sprintf("the editor's MCP servers were not started: %v", err))
		}
		se.mcp = set
	}
	ctx, stop := context.WithCancel(context.Background())
	se.stopMCPWait = stop
	go func() {
		select {
		case <-answered.Done():
		case <-ctx.Done():
			return
		}
		n.open()
		if set != nil {
			set.Wait(ctx) // tells of servers still starting after mcp_startup_timeout
		}
	}()
}

// notices holds messages back until the editor can take them.
type notices struct {
	send func(string)

	mu      sync.Mutex
	opened  bool
	pending []string
}

// add sends text, or keeps it until open; under the lock, so that the
// editor reads the messages in the order they came.
func (n *notices) add(text string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.opened {
		n.pending = append(n.pending, text)
		return
	}
	n.send(text)
}

func (n *notices) open() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.opened = true
	if len(n.pending) > 0 {
		n.send(strings.Join(n.pending, "\n\n"))
	}
	n.pending = nil
}

// stableServers are the MCP servers of an unstable method's request in
// the stable types mcpServers reads.
func stableServers(list []sdk.UnstableMcpServer) []sdk.McpServer {
	out := make([]sdk.McpServer, 0, len(list))
	for _, s := range list {
		switch {
		case s.Stdio != nil:
			out = append(out, sdk.McpServer{Stdio: s.Stdio})
		case s.Http != nil:
			out = append(out, sdk.McpServer{Http: &sdk.McpServerHttpInline{Name: s.Http.Name, Url: s.Http.Url, Headers: s.Http.Headers, Type: "http"}})
		case s.Sse != nil:
			out = append(out, sdk.McpServer{Sse: &sdk.McpServerSseInline{Name: s.Sse.Name, Url: s.Sse.Url, Headers: s.Sse.Headers, Type: "sse"}})
		case s.Acp != nil:
			out = append(out, sdk.McpServer{Acp: &sdk.McpServerAcpInline{Name: s.Acp.Name, Id: sdk.McpServerAcpId(s.Acp.Id), Type: "acp"}})
		default:
			out = append(out, sdk.McpServer{})
		}
	}
	return out
}
