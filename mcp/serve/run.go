package serve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
)

type runIn struct {
	Prompt   string   `json:"prompt" jsonschema:"the task, as you would type it to hermes"`
	Toolsets []string `json:"toolsets,omitempty" jsonschema:"only these toolsets (default: all the server offers), e.g. terminal, file, web"`
	Workdir  string   `json:"workdir,omitempty" jsonschema:"the directory to work in (default: the server's); it gets its own sandbox"`
}

type sendIn struct {
	SessionID string `json:"session_id" jsonschema:"the conversation to continue: a session id, a title, or latest"`
	Message   string `json:"message" jsonschema:"the user message to send"`
}

// RunOut is the structured content of run_task and messages_send.
type RunOut struct {
	SessionID string `json:"session_id"`
	// Status is how the turn ended: completed, interrupted, failed, or
	// the agent's exit reason (max_iterations, ...).
	Status string `json:"status"`
}

func (s *Server) addRunTools() {
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "run_task", Description: "Hand a task to hermes: a fresh conversation runs the " +
		"prompt with hermes' tools (terminal, files, web, ...) in its sandbox and returns the answer, with the session_id " +
		"of the conversation in the structured content (continue it with messages_send). Send a progress token to " +
		"receive tool calls and text as progress notifications. Commands that need approval are asked of you through " +
		"elicitation when your client supports it, and denied otherwise."},
		func(ctx context.Context, req *sdk.CallToolRequest, in runIn) (*sdk.CallToolResult, RunOut, error) {
			if strings.TrimSpace(in.Prompt) == "" {
				return nil, RunOut{}, errors.New("prompt is empty")
			}
			o := app.ConversationOptions{Source: Source, Toolsets: in.Toolsets}
			if in.Workdir != "" {
				o.Workdir = in.Workdir
				if !filepath.IsAbs(o.Workdir) {
					o.Workdir = filepath.Join(s.rt.Workdir(), o.Workdir)
				}
				if st, err := os.Stat(o.Workdir); err != nil || !st.IsDir() {
					return nil, RunOut{}, fmt.Errorf("workdir %s is not a directory", o.Workdir)
				}
			}
			return s.run(ctx, req, o, in.Prompt)
		})
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "messages_send", Description: "Send a user message to a stored conversation: " +
		"hermes resumes it, runs one turn and returns the reply (progress and approvals as for run_task). A conversation " +
		"another process is running is refused."},
		func(ctx context.Context, req *sdk.CallToolRequest, in sendIn) (*sdk.CallToolResult, RunOut, error) {
			if strings.TrimSpace(in.Message) == "" {
				return nil, RunOut{}, errors.New("message is empty")
			}
			x, err := s.resolve(ctx, in.SessionID)
			if err != nil {
				return nil, RunOut{}, err
			}
			return s.run(ctx, req, app.ConversationOptions{Resume: x.ID}, in.Message)
		})
}

// run opens the conversation, runs one turn on prompt with its progress
// sent to the client, and returns the answer. The request's context
// ending (the client cancelled it) interrupts the turn. A client on a
// protocol with multi round-trip requests gets its approvals as input
// requests of the tool call (jobs.go).
func (s *Server) run(ctx context.Context, req *sdk.CallToolRequest, o app.ConversationOptions, prompt string) (*sdk.CallToolResult, RunOut, error) {
	p := &progress{s: s}
	p.attach(req)
	switch {
	case roundTrips(req.Session):
		return s.startJob(ctx, req, o, prompt, p)
	case canElicit(req.Session):
		o.Approve = s.approvals.asker(req.Session)
	default:
		o.Unattended = unattended
	}
	return s.execute(ctx, o, prompt, p)
}

// execute runs the turn.
func (s *Server) execute(ctx context.Context, o app.ConversationOptions, prompt string, p *progress) (*sdk.CallToolResult, RunOut, error) {
	c, err := s.rt.Open(ctx, o)
	if err != nil {
		return nil, RunOut{}, fmt.Errorf("opening the conversation: %w", err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			s.opts.Logger.Warn("mcp serve: closing the conversation", "session", c.SessionID(), "err", err)
		}
	}()
	var res *agent.Result
	for e, err := range c.Stream(ctx, agent.Input{Message: prompt}) {
		if err != nil {
			return nil, RunOut{SessionID: c.SessionID()}, fmt.Errorf("running the turn: %w", err)
		}
		if e.Depth != 0 || e.AgentID != "" {
			continue // a subagent's work shows as its delegate_task call
		}
		if e.Kind == agent.EventDone {
			res = e.Result
			break
		}
		p.forward(ctx, e)
	}
	if res == nil {
		return nil, RunOut{SessionID: c.SessionID()}, errors.New("the turn ended without a result")
	}
	out := RunOut{SessionID: res.SessionID, Status: status(res)}
	if res.Completed {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.FinalResponse}}}, out, nil
	}
	msg := res.FinalResponse
	if res.Error != nil {
		msg = res.Error.Error()
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{
		Text: fmt.Sprintf("The run did not complete (%s): %s\nsession_id: %s", out.Status, msg, out.SessionID)}}}, out, nil
}

func status(res *agent.Result) string {
	switch {
	case res.Completed:
		return "completed"
	case res.Interrupted:
		return "interrupted"
	case res.ExitReason != "":
		return string(res.ExitReason)
	}
	return "failed"
}

// progress sends a run's events to the client as progress notifications
// of its request, when the request carried a progress token. A run
// that spans requests (jobs.go) reports to the latest.
type progress struct {
	s *Server

	mu    sync.Mutex
	ss    *sdk.ServerSession
	token any
	n     float64
}

// attach makes req the request the progress goes to.
func (p *progress) attach(req *sdk.CallToolRequest) {
	p.mu.Lock()
	p.ss, p.token = req.Session, req.Params.GetProgressToken()
	p.mu.Unlock()
}

func (p *progress) forward(ctx context.Context, e agent.Event) {
	var msg string
	switch e.Kind {
	case agent.EventTextDelta:
		msg = e.Text
	case agent.EventToolStarted:
		msg = fmt.Sprintf("tool started: %s %s", e.Tool.Name, clip(e.Tool.Args, 300))
	case agent.EventToolFinished:
		outcome := "ok"
		if e.Tool.IsError {
			outcome = "error: " + clip(e.Tool.Result, 300)
		}
		msg = fmt.Sprintf("tool finished: %s (%s)", e.Tool.Name, outcome)
	case agent.EventWarning, agent.EventFallback, agent.EventCompression:
		msg = fmt.Sprintf("[%s] %s", e.Kind, e.Text)
	}
	p.mu.Lock()
	ss, token := p.ss, p.token
	if msg == "" || token == nil || ss == nil {
		p.mu.Unlock()
		return
	}
	p.n++
	n := p.n
	p.mu.Unlock()
	if err := ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: msg}); err != nil && ctx.Err() == nil {
		p.s.opts.Logger.Warn("mcp serve: progress notification", "err", err)
	}
}
