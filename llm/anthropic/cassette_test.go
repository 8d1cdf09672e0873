package anthropic

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// The recorded Anthropic suites. Every file of each is replayed.
var cassetteSuites = []struct {
	dir   string
	cache bool
}{
	{"TestAnthropicCommon", false},
	{"TestAnthropicCommonWithCacheControl", true},
	{"TestAnthropicThinking", false},
	{"TestAnthropicThinkingWithCacheControl", true},
}

func TestCassettesReplayTurnByTurn(t *testing.T) {
	n := 0
	for _, s := range cassetteSuites {
		n += llmtest.EachCassette(t, []string{s.dir}, func(t *testing.T, f string) { replayCassette(t, f, s.cache) })
	}
	if n < 16 {
		t.Fatalf("replayed %d Anthropic cassettes, want every one (>=16)", n)
	}
}

// replayCassette drives a conversation through the transport, one recorded
// interaction per call, feeding each response back into the history as
// the agent would, and checks both what comes out and what goes out.
func replayCassette(t *testing.T, path string, cache bool) {
	c, err := llmtest.LoadCassette(path)
	if err != nil {
		t.Fatal(err)
	}
	tr := c.Transport()
	first := decodeRecordedRequest(t, c.Interactions[0].Request.Body)
	base := strings.TrimSuffix(c.Interactions[0].Request.URL, "/v1/messages")
	client := New(llm.Options{
		BaseURL:    base,
		APIKey:     "test-key",
		HTTPClient: &http.Client{Transport: tr},
		NoStream:   !c.Interactions[0].Streaming(),
	})

	req := &llm.Request{Model: first.Model, MaxTokens: first.MaxTokens}
	if sys := first.systemText(); sys != "" {
		req.Messages = append(req.Messages, llm.System(sys))
	}
	for _, m := range first.Messages {
		req.Messages = append(req.Messages, llm.User(m.text()))
	}
	for _, tool := range first.Tools {
		req.Tools = append(req.Tools, llm.ToolDef{Name: tool.Name, Description: tool.Description, Parameters: tool.InputSchema})
	}
	if first.Thinking != nil && first.Thinking.Type == "enabled" {
		req.ReasoningEffort = "low"
	}
	if cache {
		req.Cache = &llm.CacheOptions{TTL: "5m"}
	}

	for i, in := range c.Interactions {
		if i > 0 {
			rec := decodeRecordedRequest(t, in.Request.Body)
			req.Messages = append(req.Messages, recordedToolResults(t, rec, req.Messages)...)
		}
		var deltas []llm.Delta
		resp, err := client.Complete(t.Context(), req, func(d llm.Delta) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatalf("interaction %d: %v", i, err)
		}
		want := decodeRecordedResponse(t, in.Response.Body, in.Streaming())
		checkResponse(t, i, resp, want)
		if in.Streaming() {
			checkDeltas(t, i, deltas, want)
		} else if len(deltas) != 0 {
			t.Errorf("interaction %d: non-streamed call sent %d deltas", i, len(deltas))
		}
		checkRequestShape(t, i, tr.RequestBodies()[i], []byte(in.Request.Body), cache)
		req.Messages = append(req.Messages, resp.Message)
	}
}

// recordedToolResults turns the tool_result blocks of the recorded
// request's last user message into canonical tool messages.
func recordedToolResults(t *testing.T, rec recRequestDecoded, history []llm.Message) []llm.Message {
	t.Helper()
	last := rec.Messages[len(rec.Messages)-1]
	names := map[string]string{}
	for _, m := range history {
		for _, c := range m.ToolCalls {
			names[c.ID] = c.Name
		}
	}
	var out []llm.Message
	for _, b := range last.Content {
		if b.Type != "tool_result" {
			continue
		}
		out = append(out, llm.ToolResult(b.ToolUseID, names[b.ToolUseID], b.resultText()))
	}
	if len(out) == 0 {
		t.Fatal("recorded follow-up request holds no tool results")
	}
	return out
}

// expected is what a recorded response says, decoded independently of the
// SDK.
type expected struct {
	id, model        string
	blocks           []recBlock
	stop             string
	in, out, cr, cw  int64
	streamedText     string // text sent before the first tool_use started
	streamedThinking string
}

func (e expected) text() string {
	var parts []string
	for _, b := range e.blocks {
		if b.Type == "text" && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (e expected) thinking() (texts, signatures []string) {
	for _, b := range e.blocks {
		if b.Type == "thinking" {
			texts = append(texts, b.Thinking)
			signatures = append(signatures, b.Signature)
		}
	}
	return texts, signatures
}

func (e expected) tools() []recBlock {
	var out []recBlock
	for _, b := range e.blocks {
		if b.Type == "tool_use" {
			out = append(out, b)
		}
	}
	return out
}

// The stop_reason table of the Messages API, as the canonical format reads it.
var wantFinish = map[string]llm.FinishReason{
	"end_turn": llm.FinishStop, "stop_sequence": llm.FinishStop, "tool_use": llm.FinishToolCalls,
	"max_tokens": llm.FinishLength, "model_context_window_exceeded": llm.FinishLength,
	"refusal": llm.FinishContentFilter,
}

func checkResponse(t *testing.T, i int, resp *llm.Response, want expected) {
	t.Helper()
	m := resp.Message
	if m.Role != llm.RoleAssistant {
		t.Errorf("interaction %d: role %q", i, m.Role)
	}
	if m.Content != want.text() {
		t.Errorf("interaction %d: content %q, want %q", i, m.Content, want.text())
	}
	texts, sigs := want.thinking()
	if m.Reasoning != strings.Join(texts, "\n\n") {
		t.Errorf("interaction %d: reasoning %q, want %q", i, m.Reasoning, strings.Join(texts, "\n\n"))
	}
	var gotSigs []string
	for _, d := range m.ReasoningDetails {
		var b recBlock
		if err := json.Unmarshal(d, &b); err != nil {
			t.Fatalf("interaction %d: reasoning detail %s: %v", i, d, err)
		}
		if b.Type == "thinking" {
			gotSigs = append(gotSigs, b.Signature)
		}
	}
	if !reflect.DeepEqual(gotSigs, sigs) {
		t.Errorf("interaction %d: kept signatures %q, want %q", i, gotSigs, sigs)
	}
	tools := want.tools()
	if len(m.ToolCalls) != len(tools) {
		t.Fatalf("interaction %d: %d tool calls, want %d", i, len(m.ToolCalls), len(tools))
	}
	for k, c := range m.ToolCalls {
		if c.ID != tools[k].ID || c.Name != tools[k].Name || !jsonEqual(c.Arguments, string(tools[k].Input)) {
			t.Errorf("interaction %d: tool call %d = %+v, want %s %s %s", i, k, c, tools[k].ID, tools[k].Name, tools[k].Input)
		}
	}
	finish, ok := wantFinish[want.stop]
	if !ok {
		finish = llm.FinishStop
	}
	if resp.FinishReason != finish || m.FinishReason != finish {
		t.Errorf("interaction %d: finish %q/%q for stop_reason %q, want %q", i, resp.FinishReason, m.FinishReason, want.stop, finish)
	}
	wantUsage := llm.Usage{
		InputTokens: want.in + want.cr + want.cw, OutputTokens: want.out,
		CacheReadTokens: want.cr, CacheWriteTokens: want.cw,
		TotalTokens: want.in + want.cr + want.cw + want.out,
	}
	if resp.Usage != wantUsage {
		t.Errorf("interaction %d: usage %+v, want %+v", i, resp.Usage, wantUsage)
	}
	if resp.ID != want.id || resp.Model != want.model {
		t.Errorf("interaction %d: id/model %q/%q, want %q/%q", i, resp.ID, resp.Model, want.id, want.model)
	}
}

func checkDeltas(t *testing.T, i int, deltas []llm.Delta, want expected) {
	t.Helper()
	got := llmtest.Summarize(deltas)
	for k, d := range got.ToolCalls {
		if d.ToolIndex != k {
			t.Errorf("interaction %d: tool delta index %d, want %d", i, d.ToolIndex, k)
		}
	}
	tools := got.ToolNames()
	if got.Text != want.streamedText {
		t.Errorf("interaction %d: streamed text %q, want %q", i, got.Text, want.streamedText)
	}
	if got.Reasoning != want.streamedThinking {
		t.Errorf("interaction %d: streamed reasoning %q, want %q", i, got.Reasoning, want.streamedThinking)
	}
	var wantTools []string
	for _, b := range want.tools() {
		wantTools = append(wantTools, b.Name)
	}
	if !reflect.DeepEqual(tools, wantTools) {
		t.Errorf("interaction %d: tool deltas %q, want %q", i, tools, wantTools)
	}
}

// checkRequestShape compares what the transport sent with what the
// recording client sent: the same conversation structure, field by field,
// but not the same bytes.
func checkRequestShape(t *testing.T, i int, ours, recorded []byte, cache bool) {
	t.Helper()
	got := decodeRecordedRequest(t, string(ours))
	rec := decodeRecordedRequest(t, string(recorded))
	if got.Model != rec.Model {
		t.Errorf("request %d: model %q, want %q", i, got.Model, rec.Model)
	}
	if got.Stream != rec.Stream {
		t.Errorf("request %d: stream %v, want %v", i, got.Stream, rec.Stream)
	}
	if got.systemText() != rec.systemText() {
		t.Errorf("request %d: top-level system %q, want %q", i, got.systemText(), rec.systemText())
	}
	if (got.Thinking == nil) != (rec.Thinking == nil) || got.Thinking != nil && got.Thinking.Type != rec.Thinking.Type {
		t.Errorf("request %d: thinking %+v, want %+v", i, got.Thinking, rec.Thinking)
	}
	if got.Thinking != nil && got.MaxTokens <= got.Thinking.Budget {
		t.Errorf("request %d: max_tokens %d not above the thinking budget %d", i, got.MaxTokens, got.Thinking.Budget)
	}
	if len(got.Tools) != len(rec.Tools) {
		t.Fatalf("request %d: %d tools, want %d", i, len(got.Tools), len(rec.Tools))
	}
	for k := range got.Tools {
		if got.Tools[k].Name != rec.Tools[k].Name || got.Tools[k].Description != rec.Tools[k].Description ||
			!jsonEqual(string(got.Tools[k].InputSchema), string(rec.Tools[k].InputSchema)) {
			t.Errorf("request %d: tool %d = %+v, want %+v", i, k, got.Tools[k], rec.Tools[k])
		}
	}
	if len(got.Messages) != len(rec.Messages) {
		t.Fatalf("request %d: %d messages, want %d\n got %s\nwant %s", i, len(got.Messages), len(rec.Messages), ours, recorded)
	}
	for k := range got.Messages {
		g, r := got.Messages[k], rec.Messages[k]
		if g.Role != r.Role || !reflect.DeepEqual(g.shape(), r.shape()) {
			t.Errorf("request %d message %d: %s %v, want %s %v", i, k, g.Role, g.shape(), r.Role, r.shape())
		}
	}

	markers := got.markers()
	if !cache {
		if len(markers) != 0 {
			t.Errorf("request %d: cache markers %v sent without caching asked", i, markers)
		}
		return
	}
	if len(markers) > MaxCacheMarkers {
		t.Errorf("request %d: %d cache markers, at most %d allowed", i, len(markers), MaxCacheMarkers)
	}
	if !contains(markers, "system") {
		t.Errorf("request %d: system prompt not marked (markers %v)", i, markers)
	}
	for _, m := range rec.markers() {
		if !contains(markers, m) {
			t.Errorf("request %d: recorded marker at %s missing from ours %v", i, m, markers)
		}
	}
}

// recRequest is a Messages API request body, decoded without the SDK.
type recRequest struct {
	Model       string          `json:"model"`
	MaxTokens   int             `json:"max_tokens"`
	Stream      bool            `json:"stream"`
	System      json.RawMessage `json:"system"`
	RawMessages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Thinking *struct {
		Type   string `json:"type"`
		Budget int    `json:"budget_tokens"`
	} `json:"thinking"`
}

type recMessage struct {
	Role    string
	Content []recBlock
}

type recRequestDecoded struct {
	recRequest
	Messages []recMessage
}

type recBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text"`
	Thinking     string          `json:"thinking"`
	Signature    string          `json:"signature"`
	Data         string          `json:"data"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Input        json.RawMessage `json:"input"`
	ToolUseID    string          `json:"tool_use_id"`
	Content      json.RawMessage `json:"content"`
	CacheControl json.RawMessage `json:"cache_control"`
}

func decodeRecordedRequest(t *testing.T, body string) recRequestDecoded {
	t.Helper()
	var r recRequestDecoded
	if err := json.Unmarshal([]byte(body), &r.recRequest); err != nil {
		t.Fatalf("request body: %v\n%s", err, body)
	}
	for _, m := range r.RawMessages {
		rm := recMessage{Role: m.Role}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			rm.Content = []recBlock{{Type: "text", Text: s}}
		} else if err := json.Unmarshal(m.Content, &rm.Content); err != nil {
			t.Fatalf("message content: %v", err)
		}
		r.Messages = append(r.Messages, rm)
	}
	return r
}

func (r recRequestDecoded) systemText() string {
	var s string
	if json.Unmarshal(r.System, &s) == nil {
		return s
	}
	var blocks []recBlock
	_ = json.Unmarshal(r.System, &blocks)
	var parts []string
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n\n")
}

// markers lists where cache_control sits: "system" or "m<i>b<j>".
func (r recRequestDecoded) markers() []string {
	var out []string
	var blocks []recBlock
	if json.Unmarshal(r.System, &blocks) == nil {
		for _, b := range blocks {
			if len(b.CacheControl) > 0 {
				out = append(out, "system")
			}
		}
	}
	for i, m := range r.Messages {
		for j, b := range m.Content {
			if len(b.CacheControl) > 0 {
				out = append(out, fmt.Sprintf("m%db%d", i, j))
			}
		}
	}
	return out
}

func (m recMessage) text() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// shape is what must match between two requests for one message: block
// types in order, tool ids and names, tool_result targets and signatures.
func (m recMessage) shape() []string {
	var out []string
	for _, b := range m.Content {
		s := b.Type
		switch b.Type {
		case "tool_use":
			s += " " + b.ID + " " + b.Name + " " + compactJSON(b.Input)
		case "tool_result":
			s += " " + b.ToolUseID + " " + b.resultText()
		case "thinking":
			s += " " + b.Signature
		case "redacted_thinking":
			s += " " + b.Data
		case "text":
			s += " " + b.Text
		}
		out = append(out, s)
	}
	return out
}

func (b recBlock) resultText() string {
	var s string
	if json.Unmarshal(b.Content, &s) == nil {
		return s
	}
	var parts []recBlock
	_ = json.Unmarshal(b.Content, &parts)
	var texts []string
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

// recUsage marks which counts an event carried, so later events only
// replace what they state.
type recUsage struct {
	In  *int64 `json:"input_tokens"`
	Out *int64 `json:"output_tokens"`
	CR  *int64 `json:"cache_read_input_tokens"`
	CW  *int64 `json:"cache_creation_input_tokens"`
}

func (u *recUsage) into(e *expected) {
	set := func(dst *int64, v *int64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&e.in, u.In)
	set(&e.out, u.Out)
	set(&e.cr, u.CR)
	set(&e.cw, u.CW)
}

func decodeRecordedResponse(t *testing.T, body string, streaming bool) expected {
	t.Helper()
	var e expected
	if !streaming {
		var m struct {
			ID         string     `json:"id"`
			Model      string     `json:"model"`
			Content    []recBlock `json:"content"`
			StopReason string     `json:"stop_reason"`
			Usage      recUsage   `json:"usage"`
		}
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatalf("response body: %v", err)
		}
		e.id, e.model, e.blocks, e.stop = m.ID, m.Model, m.Content, m.StopReason
		m.Usage.into(&e)
		return e
	}
	var partial []strings.Builder
	toolStarted := false
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data:") {
			continue
		}
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				ID    string   `json:"id"`
				Model string   `json:"model"`
				Usage recUsage `json:"usage"`
			} `json:"message"`
			Index        int      `json:"index"`
			ContentBlock recBlock `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				Thinking    string `json:"thinking"`
				Signature   string `json:"signature"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
			Usage recUsage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(line, "data:"))), &ev); err != nil {
			t.Fatalf("sse data %q: %v", line, err)
		}
		switch ev.Type {
		case "message_start":
			e.id, e.model = ev.Message.ID, ev.Message.Model
			ev.Message.Usage.into(&e)
		case "content_block_start":
			e.blocks = append(e.blocks, ev.ContentBlock)
			partial = append(partial, strings.Builder{})
			if ev.ContentBlock.Type == "tool_use" {
				toolStarted = true
			}
			if ev.ContentBlock.Type == "text" && !toolStarted && e.streamedText != "" {
				e.streamedText += "\n"
			}
		case "content_block_delta":
			b := &e.blocks[ev.Index]
			switch ev.Delta.Type {
			case "text_delta":
				b.Text += ev.Delta.Text
				if !toolStarted {
					e.streamedText += ev.Delta.Text
				}
			case "thinking_delta":
				b.Thinking += ev.Delta.Thinking
				e.streamedThinking += ev.Delta.Thinking
			case "signature_delta":
				b.Signature += ev.Delta.Signature
			case "input_json_delta":
				partial[ev.Index].WriteString(ev.Delta.PartialJSON)
			}
		case "content_block_stop":
			if b := &e.blocks[ev.Index]; b.Type == "tool_use" && partial[ev.Index].Len() > 0 {
				b.Input = json.RawMessage(partial[ev.Index].String())
			}
		case "message_delta":
			e.stop = ev.Delta.StopReason
			ev.Usage.into(&e)
		}
	}
	return e
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func compactJSON(b json.RawMessage) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
