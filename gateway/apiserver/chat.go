package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
)

// chatRequest is the part of a Chat Completions request the server
// reads. model, tools and sampling settings are the server's own:
// the agent runs with hermes' model and tools.
type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// chatMessage is one message as OpenAI clients send it: content is a
// string or a list of parts.
type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []llm.ToolCall  `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
}

// canonical reads the message at param (messages[2]): its role, and
// its content's text and images.
func (m chatMessage) canonical(param string) (llm.Message, error) {
	text, images, err := content(m.Content, param+".content")
	if err != nil {
		return llm.Message{}, err
	}
	role := llm.Role(m.Role)
	switch role {
	case llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleTool:
	case "developer":
		role = llm.RoleSystem
	default:
		return llm.Message{}, &paramError{param + ".role", fmt.Sprintf("unknown role %q", m.Role)}
	}
	return llm.Message{Role: role, Content: text, Images: images, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Name: m.Name}, nil
}

// decode reads a JSON request body into v, answering 400 itself.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	_, ok := decodeBody(w, r, v)
	return ok
}

// decodeBody is decode that also returns the body read.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeError(w, http.StatusRequestEntityTooLarge, typeInvalidRequest, "", "", fmt.Sprintf("The request body is larger than %d bytes.", mb.Limit))
			return nil, false
		}
		badRequest(w, "", "Could not read the request body: "+err.Error())
		return nil, false
	}
	if err := json.Unmarshal(body, v); err != nil {
		badRequest(w, "", "We could not parse the JSON body of your request: "+err.Error())
		return nil, false
	}
	return body, true
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	var req chatRequest
	if !decode(w, r, &req) {
		return
	}
	if len(req.Messages) == 0 {
		badRequest(w, "messages", "messages must hold at least one message.")
		return
	}
	msgs := make([]llm.Message, len(req.Messages))
	for i, m := range req.Messages {
		c, err := m.canonical(fmt.Sprintf("messages[%d]", i))
		if err != nil {
			writeParamError(w, "messages", err)
			return
		}
		msgs[i] = c
	}
	if err := s.checkImages(msgs, "messages"); err != nil {
		writeParamError(w, "messages", err)
		return
	}
	prior, message, system, err := lastUser(msgs)
	if err != nil {
		badRequest(w, "messages", err.Error()+".")
		return
	}
	c := conversation{resume: r.Header.Get(sessionHeader), system: system}
	if c.resume == "" {
		c.prior = prior // a continued session has its history in the store
	}
	t, ok := s.begin(w, r, c)
	if !ok {
		return
	}
	defer t.end()
	w.Header().Set(sessionHeader, t.conv.SessionID())
	t.conv.AttachImages(turnImages(msgs)...)
	out := chatOutput{s: s, w: w, id: newID("chatcmpl-"), created: now(), model: s.opts.ModelName}
	if req.Stream {
		out.stream(t, message, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
		return
	}
	res := t.run(message, nil)
	if res == nil {
		return
	}
	if he := exitStatus(res); he != nil {
		he.write(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": out.id, "object": "chat.completion", "created": out.created, "model": out.model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": res.FinalResponse, "refusal": nil},
			"finish_reason": finishReason(res),
			"logprobs":      nil,
		}},
		"usage": chatUsage(res.Usage),
	})
}

func chatUsage(u llm.Usage) map[string]any {
	return map[string]any{
		"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CacheReadTokens},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
	}
}

// chatOutput writes one completion's chunks.
type chatOutput struct {
	s       *Server
	w       http.ResponseWriter
	id      string
	created int64
	model   string
}

func (o *chatOutput) chunk(delta map[string]any, finish any) map[string]any {
	return map[string]any{
		"id": o.id, "object": "chat.completion.chunk", "created": o.created, "model": o.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
	}
}

// stream runs the turn and forwards its events as SSE: text deltas as
// chunks, tool calls as hermes.tool.progress events, then the finish.
func (o *chatOutput) stream(t *turnRun, message string, includeUsage bool) {
	sse := newSSE(o.w)
	sse.data(o.chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	res := t.run(message, func(e agent.Event) bool {
		switch e.Kind {
		case agent.EventTextDelta:
			if e.Depth == 0 {
				return sse.data(o.chunk(map[string]any{"content": e.Text}, nil))
			}
		case agent.EventToolStarted, agent.EventToolFinished:
			return sse.event("hermes.tool.progress", toolProgress(o.id, o.created, o.model, e))
		}
		return true
	})
	if res == nil {
		return
	}
	if he := exitStatus(res); he != nil {
		sse.data(map[string]any{"error": apiError{Message: he.text, Type: he.typ, Code: &he.code}})
	} else {
		sse.data(o.chunk(map[string]any{}, finishReason(res)))
		if includeUsage {
			sse.data(map[string]any{"id": o.id, "object": "chat.completion.chunk", "created": o.created, "model": o.model,
				"choices": []any{}, "usage": chatUsage(res.Usage)})
		}
	}
	sse.done()
}

// toolProgress is the data of a hermes.tool.progress event. Its empty
// choices let an SDK's chunk iterator pass it by.
func toolProgress(id string, created int64, model string, e agent.Event) map[string]any {
	tl := e.Tool
	p := map[string]any{"call_id": tl.CallID, "name": tl.Name, "agent_id": e.AgentID, "depth": e.Depth}
	if e.Kind == agent.EventToolStarted {
		p["status"] = "started"
		p["arguments"] = tl.Args
	} else {
		p["status"] = "completed"
		if tl.IsError {
			p["status"] = "failed"
		}
		p["duration_ms"] = tl.Duration.Milliseconds()
		p["result_preview"] = preview(tl.Result, 200)
	}
	return map[string]any{"id": id, "object": "hermes.tool.progress", "created": created, "model": model, "choices": []any{}, "tool": p}
}

func preview(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
