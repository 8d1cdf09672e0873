package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tools/todo"
)

// Prompt runs one turn of the session and forwards its events as
// session updates. ctx ends with session/cancel (the SDK cancels it).
func (s *server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	se, err := s.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, images, err := promptContent(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	if strings.TrimSpace(text) == "" && len(images) == 0 {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": "the prompt holds no text"})
	}
	se.mu.Lock()
	mode, stored, servers, model := se.mode, se.stored, se.mcp, se.model
	se.mu.Unlock()
	ws, err := s.workspace(se, mode)
	if err != nil {
		return sdk.PromptResponse{}, fmt.Errorf("opening the workspace %s: %w", se.cwd, err)
	}
	opts := app.ConversationOptions{Resume: stored, Source: Source, Platform: "acp", Workspace: ws, Yolo: mode == ModeYolo,
		Approve: s.approver(se), MCP: servers, Model: model}
	if stored == "" {
		opts.SessionID = se.id
	}
	a, err := s.rt.Open(ctx, opts)
	if err != nil {
		return sdk.PromptResponse{}, fmt.Errorf("starting the turn: %w", err)
	}
	defer func() {
		if err := a.Close(); err != nil {
			s.opts.Logger.Warn("acp: closing the conversation", "err", err)
		}
	}()
	if len(images) > 0 && !a.AcceptsImages() {
		m, _ := a.Model()
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf(
			"%s cannot see the %d image(s) of the prompt: choose a vision model, or set model.vision: true in config.yaml if it has vision", m, len(images))})
	}
	se.mu.Lock()
	se.running, se.calls = a, map[string]*toolCall{}
	se.mu.Unlock()
	defer func() {
		se.mu.Lock()
		se.running, se.calls = nil, nil
		se.mu.Unlock()
	}()

	// Updates go out even after a cancel: the editor gets the turn's last
	// events before the prompt's answer.
	uctx := context.WithoutCancel(ctx)
	var res *agent.Result
	for e, err := range a.Stream(ctx, agent.Input{Message: text, Images: images}) {
		if err != nil {
			return sdk.PromptResponse{}, err
		}
		if e.Kind == agent.EventDone && e.AgentID == "" && e.Depth == 0 {
			res = e.Result
			break
		}
		s.forward(uctx, se, a, e)
	}
	if res == nil {
		return sdk.PromptResponse{}, errors.New("the turn ended without a result")
	}
	se.mu.Lock()
	se.stored = res.SessionID
	se.mu.Unlock()
	if model != "" && res.Model != "" {
		// The stored session names the model it went on with.
		if err := s.rt.Store().SetModel(uctx, res.SessionID, res.Model, res.Provider); err != nil {
			s.opts.Logger.Warn("acp: recording the session's model", "session", res.SessionID, "err", err)
		}
	}
	return stopFor(res)
}

// workspace is the session's workspace for mode, kept across prompts
// so that the background processes a turn starts outlive it; switching
// to or from read-only makes a new one (ending the old one's processes).
func (s *server) workspace(se *sess, mode string) (*app.Workspace, error) {
	sandboxMode := ""
	if mode == ModeReadOnly {
		sandboxMode = "read-only"
	}
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.ws != nil && se.wsMode == sandboxMode {
		return se.ws, nil
	}
	if se.ws != nil {
		if err := se.ws.Close(); err != nil {
			s.opts.Logger.Warn("acp: closing the workspace", "err", err)
		}
		se.ws = nil
	}
	ws, err := s.rt.NewWorkspace(se.cwd, sandboxMode)
	if err != nil {
		return nil, err
	}
	se.ws, se.wsMode = ws, sandboxMode
	return ws, nil
}

// stopFor maps how a turn ended to the prompt's stop reason; a failed
// turn is an error whose message says why.
func stopFor(res *agent.Result) (sdk.PromptResponse, error) {
	switch {
	case res.Interrupted:
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case res.ExitReason == agent.ExitMaxIterations:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	case res.ExitReason == agent.ExitLength:
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTokens}, nil
	case res.ExitReason == agent.ExitContentFilter:
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	case res.Completed:
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	msg := res.FinalResponse
	if res.Error != nil {
		msg = res.Error.Error()
	}
	return sdk.PromptResponse{}, fmt.Errorf("the turn failed (%s): %s", res.ExitReason, msg)
}

// forward turns one event of the running turn into session updates.
func (s *server) forward(ctx context.Context, se *sess, a *app.Conversation, e agent.Event) {
	if e.Depth != 0 || e.AgentID != "" {
		return // a subagent's work shows as its delegate_task call
	}
	switch e.Kind {
	case agent.EventTextDelta:
		s.update(ctx, se, sdk.UpdateAgentMessageText(e.Text))
	case agent.EventReasoningDelta:
		s.update(ctx, se, sdk.UpdateAgentThoughtText(e.Text))
	case agent.EventToolStarted:
		tc := newToolCall(e.Tool.CallID, e.Tool.Name, e.Tool.Args, se.cwd)
		se.mu.Lock()
		if se.calls != nil {
			se.calls[tc.id] = tc
		}
		se.mu.Unlock()
		s.update(ctx, se, tc.start())
	case agent.EventToolFinished:
		se.mu.Lock()
		tc := se.calls[e.Tool.CallID]
		delete(se.calls, e.Tool.CallID)
		se.mu.Unlock()
		if tc == nil {
			tc = newToolCall(e.Tool.CallID, e.Tool.Name, e.Tool.Args, se.cwd)
		}
		s.update(ctx, se, tc.finish(e.Tool.Result, e.Tool.IsError))
		if e.Tool.Name == "todo" {
			s.update(ctx, se, plan(a.Todos()))
		}
	case agent.EventWarning, agent.EventFallback, agent.EventCompression:
		s.update(ctx, se, sdk.UpdateAgentThoughtText(fmt.Sprintf("\n[%s] %s\n", e.Kind, e.Text)))
	}
}

func (s *server) update(ctx context.Context, se *sess, u sdk.SessionUpdate) {
	if err := s.conn.SessionUpdate(ctx, sdk.SessionNotification{SessionId: sdk.SessionId(se.id), Update: u}); err != nil {
		s.opts.Logger.Warn("acp: session update", "session", se.id, "err", err)
	}
}

// plan is the todo list as the session's plan.
func plan(st todo.State) sdk.SessionUpdate {
	entries := []sdk.PlanEntry{}
	for _, it := range st.Todos {
		status := sdk.PlanEntryStatusPending
		switch it.Status {
		case todo.InProgress:
			status = sdk.PlanEntryStatusInProgress
		case todo.Completed:
			status = sdk.PlanEntryStatusCompleted
		case todo.Cancelled:
			continue
		}
		entries = append(entries, sdk.PlanEntry{Content: it.Content, Priority: sdk.PlanEntryPriorityMedium, Status: status})
	}
	return sdk.UpdatePlan(entries...)
}

// replay sends a stored session's history as the updates that made it.
func (s *server) replay(ctx context.Context, se *sess, msgs []llm.Message) {
	calls := map[string]*toolCall{}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			if m.Content != "" {
				s.update(ctx, se, sdk.UpdateUserMessageText(m.Content))
			}
			for _, im := range m.Images {
				s.update(ctx, se, sdk.UpdateUserMessage(imageBlock(im)))
			}
		case llm.RoleAssistant:
			if m.Reasoning != "" {
				s.update(ctx, se, sdk.UpdateAgentThoughtText(m.Reasoning))
			}
			if m.Content != "" {
				s.update(ctx, se, sdk.UpdateAgentMessageText(m.Content))
			}
			for _, c := range m.ToolCalls {
				tc := newToolCall(c.ID, c.Name, c.Arguments, se.cwd)
				calls[c.ID] = tc
				s.update(ctx, se, tc.start())
			}
		case llm.RoleTool:
			tc := calls[m.ToolCallID]
			if tc == nil {
				tc = newToolCall(m.ToolCallID, m.Name, "", se.cwd)
			}
			s.update(ctx, se, tc.finish(m.Content, false))
		}
	}
}
