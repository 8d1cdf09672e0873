package openai

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

var responsesSuites = []string{
	"TestOpenAIResponsesCommon", "TestOpenAIResponsesWithSummaryThinking",
	"TestAzureResponsesCommon", "TestAzureResponsesWithSummaryThinking",
}

// TestResponsesReplaysEveryCassette replays each recorded Responses API
// conversation through Responses, turn by turn, checking output against
// the recorded bodies and input against the recorded requests.
func TestResponsesReplaysEveryCassette(t *testing.T) {
	if n := llmtest.EachCassette(t, responsesSuites, replayResponsesCassette); n < 36 {
		t.Fatalf("replayed %d responses cassettes, want every one (>=36)", n)
	}
}

// recResp is a recorded Responses API request body.
type recResp struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Input        []recInputItem  `json:"input"`
	Tools        []recRespTool   `json:"tools"`
	MaxOutput    int             `json:"max_output_tokens"`
	Store        *bool           `json:"store"`
	Include      []string        `json:"include"`
	Reasoning    *recRespEffort  `json:"reasoning"`
	Stream       bool            `json:"stream"`
	Raw          json.RawMessage `json:"-"`
}

type recRespEffort struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

type recInputItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ID               string          `json:"id"`
	CallID           string          `json:"call_id"`
	Name             string          `json:"name"`
	Arguments        string          `json:"arguments"`
	Output           string          `json:"output"`
	EncryptedContent string          `json:"encrypted_content"`
}

type recRespTool struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Parameters json.RawMessage `json:"parameters"`
	Strict     *bool           `json:"strict"`
}

func decodeResponsesRequest(t *testing.T, body []byte) recResp {
	t.Helper()
	var r recResp
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return r
}

// text of a message item's content: a string or a list of text parts.
func (it recInputItem) text() string {
	var s string
	if json.Unmarshal(it.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(it.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func replayResponsesCassette(t *testing.T, path string) {
	c, err := llmtest.LoadCassette(path)
	if err != nil {
		t.Fatal(err)
	}
	first := c.Interactions[0]
	streaming := first.Streaming()
	tr := c.Transport()
	client := NewResponses(llm.Options{
		BaseURL:    strings.TrimSuffix(first.Request.URL, "/responses"),
		APIKey:     "test-key",
		HTTPClient: &http.Client{Transport: tr},
		NoStream:   !streaming,
	})
	r0 := decodeResponsesRequest(t, []byte(first.Request.Body))
	req := llm.Request{Model: r0.Model, MaxTokens: r0.MaxOutput}
	if r0.Reasoning != nil {
		req.ReasoningEffort = r0.Reasoning.Effort
	}
	for _, tl := range r0.Tools {
		req.Tools = append(req.Tools, llm.ToolDef{Name: tl.Name, Parameters: tl.Parameters})
	}
	for _, it := range r0.Input {
		switch it.Role {
		case "system", "developer":
			req.Messages = append(req.Messages, llm.System(it.text()))
		case "user":
			req.Messages = append(req.Messages, llm.User(it.text()))
		}
	}
	var prev *llm.Response
	for i, in := range c.Interactions {
		rec := decodeResponsesRequest(t, []byte(in.Request.Body))
		if i > 0 {
			req.Messages = append(req.Messages, prev.Message)
			for _, it := range rec.Input {
				if it.Type == "function_call_output" {
					req.Messages = append(req.Messages, llm.ToolResult(it.CallID, "", it.Output))
				}
			}
		}
		var deltas []llm.Delta
		resp, err := client.Complete(context.Background(), &req, func(d llm.Delta) { deltas = append(deltas, d) })
		if err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
		want := expectResponses(t, in.Response.Body, streaming)
		checkResponsesResponse(t, i, resp, want)
		checkResponsesDeltas(t, i, deltas, want)
		checkResponsesRequestShape(t, i, tr.RequestBodies()[i], rec, prev)
		prev = resp
	}
}

// expectedResp is expected plus the Responses-only reasoning items.
type expectedResp struct {
	expected
	items     []string // raw reasoning items
	streamed  string   // text from output_text.delta events
	summaries string   // text from reasoning_summary_text.delta events
}

type recOutput struct {
	Status            string                   `json:"status"`
	Model             string                   `json:"model"`
	IncompleteDetails *struct{ Reason string } `json:"incomplete_details"`
	Output            []json.RawMessage        `json:"output"`
	Usage             struct {
		Input    int64 `json:"input_tokens"`
		Output   int64 `json:"output_tokens"`
		Total    int64 `json:"total_tokens"`
		InputDet struct {
			Cached int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputDet struct {
			Reasoning int64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

func expectResponses(t *testing.T, body string, streaming bool) expectedResp {
	t.Helper()
	var e expectedResp
	var final recOutput
	if !streaming {
		if err := json.Unmarshal([]byte(body), &final); err != nil {
			t.Fatalf("recorded response: %v", err)
		}
	} else {
		var text, sum strings.Builder
		found := false
		sc := bufio.NewScanner(strings.NewReader(body))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "data:") {
				continue
			}
			var ev struct {
				Type     string          `json:"type"`
				Delta    string          `json:"delta"`
				Response json.RawMessage `json:"response"`
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data:")), &ev); err != nil {
				t.Fatalf("recorded event: %v", err)
			}
			switch ev.Type {
			case "response.output_text.delta":
				text.WriteString(ev.Delta)
			case "response.reasoning_summary_text.delta":
				sum.WriteString(ev.Delta)
			case "response.completed", "response.incomplete":
				if err := json.Unmarshal(ev.Response, &final); err != nil {
					t.Fatal(err)
				}
				found = true
			}
		}
		if !found {
			t.Fatal("recording has no response.completed event")
		}
		e.streamed, e.summaries = text.String(), sum.String()
	}
	e.model = final.Model
	var text strings.Builder
	for _, raw := range final.Output {
		var it struct {
			Type    string `json:"type"`
			CallID  string `json:"call_id"`
			Name    string `json:"name"`
			Args    string `json:"arguments"`
			Content []struct {
				Type, Text string
			} `json:"content"`
			Summary []struct{ Text string } `json:"summary"`
		}
		if err := json.Unmarshal(raw, &it); err != nil {
			t.Fatal(err)
		}
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				if c.Type == "output_text" {
					text.WriteString(c.Text)
				}
			}
		case "function_call":
			e.calls = append(e.calls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Args})
		case "reasoning":
			e.items = append(e.items, string(raw))
			for _, s := range it.Summary {
				if s := strings.TrimSpace(s.Text); s != "" {
					e.reasoning = append(e.reasoning, s)
				}
			}
		}
	}
	e.text = text.String() // verbatim: the transports keep what the model sent
	switch {
	case final.Status == "incomplete":
		e.finish = llm.FinishLength
	case len(e.calls) > 0:
		e.finish = llm.FinishToolCalls
	default:
		e.finish = llm.FinishStop
	}
	u := final.Usage
	e.usage = llm.Usage{InputTokens: u.Input, OutputTokens: u.Output, TotalTokens: u.Total,
		CacheReadTokens: u.InputDet.Cached, ReasoningTokens: u.OutputDet.Reasoning}
	return e
}

func checkResponsesResponse(t *testing.T, turn int, resp *llm.Response, want expectedResp) {
	t.Helper()
	m := resp.Message
	if m.Content != want.text {
		t.Errorf("turn %d: text\n got %q\nwant %q", turn, m.Content, want.text)
	}
	for _, r := range want.reasoning {
		if !strings.Contains(m.Reasoning, r) {
			t.Errorf("turn %d: reasoning lacks %q\n got %q", turn, clip(r), clip(m.Reasoning))
		}
	}
	if len(want.reasoning) == 0 && m.Reasoning != "" {
		t.Errorf("turn %d: reasoning %q where the recording has none", turn, clip(m.Reasoning))
	}
	if len(m.ReasoningItems) != len(want.items) {
		t.Fatalf("turn %d: %d reasoning items, want %d", turn, len(m.ReasoningItems), len(want.items))
	}
	for i := range want.items {
		if !jsonEqual(string(m.ReasoningItems[i]), want.items[i]) {
			t.Errorf("turn %d: reasoning item %d not kept verbatim", turn, i)
		}
	}
	checkCalls(t, turn, m.ToolCalls, want.calls)
	if resp.FinishReason != want.finish || m.FinishReason != want.finish {
		t.Errorf("turn %d: finish %q, want %q", turn, resp.FinishReason, want.finish)
	}
	if resp.Usage != want.usage {
		t.Errorf("turn %d: usage\n got %+v\nwant %+v", turn, resp.Usage, want.usage)
	}
	if resp.Model != want.model {
		t.Errorf("turn %d: model %q, want %q", turn, resp.Model, want.model)
	}
}

func checkResponsesDeltas(t *testing.T, turn int, deltas []llm.Delta, want expectedResp) {
	t.Helper()
	got := llmtest.Summarize(deltas)
	names := got.ToolNames()
	if got.Text != want.text {
		t.Errorf("turn %d: streamed text %q, want %q", turn, got.Text, want.text)
	}
	if want.summaries != "" && got.Reasoning != want.summaries {
		t.Errorf("turn %d: streamed reasoning %q, want %q", turn, clip(got.Reasoning), clip(want.summaries))
	}
	if (len(want.reasoning) > 0) != (got.Reasoning != "") {
		t.Errorf("turn %d: streamed reasoning %q, recording has %d summaries", turn, clip(got.Reasoning), len(want.reasoning))
	}
	if len(names) != len(want.calls) {
		t.Fatalf("turn %d: announced %v, want %d calls", turn, names, len(want.calls))
	}
	for i, n := range names {
		if n != want.calls[i].Name {
			t.Errorf("turn %d: announced %q, want %q", turn, n, want.calls[i].Name)
		}
	}
}

// checkResponsesRequestShape compares our input items with the recorded
// ones. The recording put the system prompt in a developer message where
// we use instructions, and did not replay reasoning; everything else must
// line up: user messages, function calls by call_id and name, outputs
// joined by call_id.
func checkResponsesRequestShape(t *testing.T, turn int, sent []byte, rec recResp, prev *llm.Response) {
	t.Helper()
	got := decodeResponsesRequest(t, sent)
	if got.Model != rec.Model || got.Stream != rec.Stream {
		t.Errorf("turn %d: model %q stream %v, want %q %v", turn, got.Model, got.Stream, rec.Model, rec.Stream)
	}
	if got.Store == nil || *got.Store {
		t.Errorf("turn %d: store is not false", turn)
	}
	var sys []string
	var recItems []recInputItem
	for _, it := range rec.Input {
		if it.Role == "system" || it.Role == "developer" {
			sys = append(sys, it.text())
			continue
		}
		if it.Type != "reasoning" {
			recItems = append(recItems, it)
		}
	}
	if got.Instructions != strings.Join(sys, "\n\n") {
		t.Errorf("turn %d: instructions %q, want %q", turn, got.Instructions, sys)
	}
	var ourItems []recInputItem
	replayed := 0
	for _, it := range got.Input {
		if it.Type == "reasoning" {
			if it.EncryptedContent == "" {
				t.Errorf("turn %d: replayed a reasoning item without encrypted content", turn)
			}
			replayed++
			continue
		}
		ourItems = append(ourItems, it)
	}
	// Items with encrypted content are replayed; bare ones name server
	// state that store=false never kept.
	if prev != nil {
		encrypted := 0
		for _, raw := range prev.Message.ReasoningItems {
			var it recInputItem
			if json.Unmarshal(raw, &it) == nil && it.EncryptedContent != "" {
				encrypted++
			}
		}
		if replayed != encrypted {
			t.Errorf("turn %d: replayed %d reasoning items, previous turn had %d with encrypted content", turn, replayed, encrypted)
		}
	}
	if len(ourItems) != len(recItems) {
		t.Fatalf("turn %d: %d input items, recording %d", turn, len(ourItems), len(recItems))
	}
	for i, g := range ourItems {
		r := recItems[i]
		kind := func(it recInputItem) string {
			if it.Type == "" {
				return "message"
			}
			return it.Type
		}
		if kind(g) != kind(r) || g.Role != r.Role || g.CallID != r.CallID || g.Name != r.Name {
			t.Errorf("turn %d item %d: %s/%s/%s/%s, want %s/%s/%s/%s", turn, i,
				kind(g), g.Role, g.CallID, g.Name, kind(r), r.Role, r.CallID, r.Name)
		}
		if g.Type == "function_call" {
			if !jsonEqual(g.Arguments, r.Arguments) {
				t.Errorf("turn %d item %d: arguments %s, want %s", turn, i, g.Arguments, r.Arguments)
			}
			if !strings.HasPrefix(g.ID, "fc_") {
				t.Errorf("turn %d item %d: function_call id %q lacks fc_ prefix", turn, i, g.ID)
			}
		}
		if g.Output != r.Output || strings.TrimSpace(g.text()) != strings.TrimSpace(r.text()) {
			t.Errorf("turn %d item %d: content %q/%q, want %q/%q", turn, i, g.text(), g.Output, r.text(), r.Output)
		}
	}
	for i, tl := range got.Tools {
		if tl.Type != "function" || tl.Strict == nil || *tl.Strict || tl.Name != rec.Tools[i].Name ||
			!jsonEqual(string(tl.Parameters), string(rec.Tools[i].Parameters)) {
			t.Errorf("turn %d: tool %d = %+v", turn, i, tl)
		}
	}
	if rec.Reasoning != nil && (got.Reasoning == nil || got.Reasoning.Effort != rec.Reasoning.Effort || got.Reasoning.Summary != "auto") {
		t.Errorf("turn %d: reasoning %+v, want %+v", turn, got.Reasoning, rec.Reasoning)
	}
	hasInclude := len(got.Include) == 1 && got.Include[0] == "reasoning.encrypted_content"
	if len(rec.Include) > 0 && !hasInclude {
		t.Errorf("turn %d: include %v, recording %v", turn, got.Include, rec.Include)
	}
	if !isReasoningModel(rec.Model) && len(got.Include) > 0 {
		t.Errorf("turn %d: include %v sent to non-reasoning model %s", turn, got.Include, rec.Model)
	}
	if got.MaxOutput != rec.MaxOutput {
		t.Errorf("turn %d: max_output_tokens %d, want %d", turn, got.MaxOutput, rec.MaxOutput)
	}
}
