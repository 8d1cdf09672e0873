package apiserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
)

// responsesRequest is the part of a Responses request the server reads.
type responsesRequest struct {
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	Instructions       string          `json:"instructions"`
	PreviousResponseID string          `json:"previous_response_id"`
	Conversation       json.RawMessage `json:"conversation"`
	Stream             bool            `json:"stream"`
	Store              *bool           `json:"store"`
	Metadata           map[string]any  `json:"metadata"`
}

// inputItem is one item of a Responses input.
type inputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// messages reads the input: a string is one user message; a list holds
// message items.
func (r *responsesRequest) messages() ([]llm.Message, error) {
	var s string
	if err := json.Unmarshal(r.Input, &s); err == nil {
		return []llm.Message{llm.User(s)}, nil
	}
	var items []inputItem
	if err := json.Unmarshal(r.Input, &items); err != nil {
		return nil, &paramError{"input", "input must be a string or a list of input items"}
	}
	var out []llm.Message
	for i, it := range items {
		at := fmt.Sprintf("input[%d]", i)
		if it.Type != "" && it.Type != "message" {
			return nil, &paramError{at + ".type", fmt.Sprintf("items of type %q are not supported (the agent runs its own tools)", it.Type)}
		}
		m, err := chatMessage{Role: it.Role, Content: it.Content}.canonical(at)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// conversationName reads conversation: a name, or {"id": name}.
func (r *responsesRequest) conversationName() (string, error) {
	if len(r.Conversation) == 0 || string(r.Conversation) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(r.Conversation, &s); err == nil {
		return s, nil
	}
	var o struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(r.Conversation, &o); err != nil || o.ID == "" {
		return "", errors.New(`conversation must be a name or {"id": name}`)
	}
	return o.ID, nil
}

func (s *Server) createResponse(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	if !decode(w, r, &req) {
		return
	}
	if len(req.Input) == 0 {
		badRequest(w, "input", "Missing required parameter: 'input'.")
		return
	}
	msgs, err := req.messages()
	if err == nil {
		err = s.checkImages(msgs, "input")
	}
	if err != nil {
		writeParamError(w, "input", err)
		return
	}
	name, err := req.conversationName()
	if err != nil {
		badRequest(w, "conversation", err.Error()+".")
		return
	}
	if name != "" && req.PreviousResponseID != "" {
		badRequest(w, "conversation", "previous_response_id and conversation cannot both be given.")
		return
	}
	prior, message, system, err := lastUser(msgs)
	if err != nil {
		badRequest(w, "input", err.Error()+".")
		return
	}
	c := conversation{system: strings.TrimSpace(req.Instructions + "\n\n" + system)}
	if err := s.continueFrom(r.Context(), &c, req.PreviousResponseID, name); err != nil {
		s.fail(w, r, err)
		return
	}
	if c.resume == "" || c.parent != "" {
		c.prior = append(c.prior, prior...)
	}
	if c.parent != "" { // a branch: its copy is a new session
		id, err := s.seed(r.Context(), c)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		c = conversation{resume: id}
	}
	t, ok := s.begin(w, r, c)
	if !ok {
		return
	}
	defer t.end()
	w.Header().Set(sessionHeader, t.conv.SessionID())
	t.conv.AttachImages(turnImages(msgs)...)
	resp := &responseObject{
		ID: newID("resp_"), CreatedAt: now(), Model: s.opts.ModelName, Instructions: req.Instructions,
		PreviousResponseID: req.PreviousResponseID, Metadata: req.Metadata, conversation: name,
	}
	var res *agent.Result
	if req.Stream {
		res = s.streamResponse(t, message, resp)
	} else {
		items := newOutputItems(nil)
		res = t.run(message, items.on)
		if res == nil {
			return
		}
		if he := exitStatus(res); he != nil {
			he.write(w)
			return
		}
		resp.finish(res, items)
		writeJSON(w, http.StatusOK, resp.body())
	}
	if res != nil && exitStatus(res) == nil {
		s.remember(context.WithoutCancel(r.Context()), resp, res, req.Store == nil || *req.Store)
	}
}

// continueFrom points c at the session a previous response or a named
// conversation continues in. A previous response that is not its
// session's latest is branched: its messages up to it seed a new session.
func (s *Server) continueFrom(ctx context.Context, c *conversation, previous, name string) error {
	st := s.opts.Runtime.Store()
	switch {
	case previous != "":
		prev, err := st.Response(ctx, previous)
		if errors.Is(err, session.ErrNotFound) {
			return &httpError{status: http.StatusNotFound, typ: typeInvalidRequest, code: "previous_response_not_found", param: "previous_response_id",
				text: fmt.Sprintf("Previous response with id '%s' not found.", previous)}
		}
		if err != nil {
			return err
		}
		sess, err := st.Get(ctx, prev.SessionID)
		if err != nil {
			return err
		}
		if sess.MessageCount == prev.MessageCount {
			c.resume = prev.SessionID
			return nil
		}
		msgs, err := st.Messages(ctx, prev.SessionID)
		if err != nil {
			return err
		}
		c.prior, c.parent = msgs[:min(prev.MessageCount, len(msgs))], prev.SessionID
	case name != "":
		id, err := st.Conversation(ctx, name)
		if err != nil && !errors.Is(err, session.ErrNotFound) {
			return err
		}
		c.resume = id // "" for a new conversation
	}
	return nil
}

// remember records the response (unless the client said store: false)
// and moves a named conversation to the session the turn ended in.
func (s *Server) remember(ctx context.Context, resp *responseObject, res *agent.Result, store bool) {
	st := s.opts.Runtime.Store()
	if resp.conversation != "" {
		if err := st.SetConversation(ctx, resp.conversation, res.SessionID); err != nil {
			s.opts.Logger.Error("api server: saving the conversation", "name", resp.conversation, "err", err)
		}
	}
	if !store {
		return
	}
	body, err := json.Marshal(resp.body())
	if err == nil {
		err = st.PutResponse(ctx, session.StoredResponse{ID: resp.ID, SessionID: res.SessionID, MessageCount: len(res.Messages), Body: body})
	}
	if err != nil {
		s.opts.Logger.Error("api server: saving the response", "id", resp.ID, "err", err)
	}
}

// streamResponse runs the turn and sends the Responses API's events.
func (s *Server) streamResponse(t *turnRun, message string, resp *responseObject) *agent.Result {
	out := newSSE(t.w)
	seq := 0
	emit := func(typ string, fields map[string]any) bool {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		return out.event(typ, fields)
	}
	emit("response.created", map[string]any{"response": resp.body()})
	emit("response.in_progress", map[string]any{"response": resp.body()})
	items := newOutputItems(emit)
	res := t.run(message, items.on)
	if res == nil {
		return nil
	}
	if he := exitStatus(res); he != nil {
		resp.Status = "failed"
		resp.Error = map[string]any{"code": he.code, "message": he.text}
		resp.Output = items.output()
		emit("response.failed", map[string]any{"response": resp.body()})
		return res
	}
	resp.finish(res, items)
	emit("response.completed", map[string]any{"response": resp.body()})
	return res
}

// responseObject is a Responses API response.
type responseObject struct {
	ID                 string
	CreatedAt          int64
	Model              string
	Status             string
	Instructions       string
	PreviousResponseID string
	Metadata           map[string]any
	Output             []any
	Usage              *llm.Usage
	Incomplete         string
	Error              map[string]any
	conversation       string
}

func (r *responseObject) finish(res *agent.Result, items *outputItems) {
	r.Output = items.output()
	r.Status = "completed"
	if res.Partial || res.ExitReason == agent.ExitContentFilter {
		r.Status = "incomplete"
		r.Incomplete = "max_output_tokens"
		if res.ExitReason == agent.ExitContentFilter {
			r.Incomplete = "content_filter"
		}
	}
	u := res.Usage
	r.Usage = &u
}

func (r *responseObject) body() map[string]any {
	status := r.Status
	if status == "" {
		status = "in_progress"
	}
	b := map[string]any{
		"id": r.ID, "object": "response", "created_at": r.CreatedAt, "status": status, "model": r.Model,
		"output": orEmpty(r.Output), "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{},
		"previous_response_id": nilIfEmpty(r.PreviousResponseID), "instructions": nilIfEmpty(r.Instructions),
		"metadata": orEmptyMap(r.Metadata), "error": nil, "incomplete_details": nil, "usage": nil,
		"text": map[string]any{"format": map[string]any{"type": "text"}},
	}
	if r.conversation != "" {
		b["conversation"] = map[string]any{"id": r.conversation}
	}
	if r.Error != nil {
		b["error"] = r.Error
	}
	if r.Incomplete != "" {
		b["incomplete_details"] = map[string]any{"reason": r.Incomplete}
	}
	if u := r.Usage; u != nil {
		b["usage"] = map[string]any{
			"input_tokens": u.InputTokens, "output_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens,
			"input_tokens_details":  map[string]any{"cached_tokens": u.CacheReadTokens},
			"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		}
	}
	return b
}

func (s *Server) getResponse(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	stored, err := s.opts.Runtime.Store().Response(r.Context(), id)
	if errors.Is(err, session.ErrNotFound) {
		notFound(w, fmt.Sprintf("No response found with id '%s'.", id))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(sessionHeader, stored.SessionID)
	w.Write(stored.Body)
}

func (s *Server) deleteResponse(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	err := s.opts.Runtime.Store().DeleteResponse(r.Context(), id)
	if errors.Is(err, session.ErrNotFound) {
		notFound(w, fmt.Sprintf("No response found with id '%s'.", id))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "response", "deleted": true})
}

func orEmpty(v []any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

func orEmptyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
