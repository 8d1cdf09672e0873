package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// Client is an in-process llm.Client answering each call with a scripted
// Reply, for tests of code above the transports (an agent loop, a fallback
// chain, a tool that calls a model) that need no HTTP. It is scripted like
// the Server, with the same Replies, and answers the way a transport
// talking to the Server does:
//
//   - A successful Reply becomes the Response: Text as the content
//     (verbatim; the OpenAI transports trim surrounding space), Reasoning,
//     ToolCalls (an empty ID generated as call_…, empty
//     Arguments as "{}"), the finish reason, Usage (estimated when nil) and
//     Model (else the requested one). A Refusal is returned in
//     Response.Refusal. Before it, the sink gets the deltas a stream
//     carries: reasoning and text word by word, then one DeltaToolCall per
//     call.
//   - An Error reply fails with the *llm.ProviderError a transport makes
//     of the response: llm.ClassifyHTTP of its status, Header (Retry-After)
//     and Body, which defaults to OpenAI's body for the status (see the
//     *Body constants).
//   - Empty fails as an invalid response, as the OpenAI transports do when
//     a response has no choices; so does a FinishReason that is not one of
//     the four normalised ones, with the reason in the message.
//   - LegacyFunctionCall makes its first call the only one, as Chat
//     Completions' function_call carries one.
//   - CutAfter sends that many deltas, then fails with StreamError
//     classified, or else as a dropped connection. StreamError alone fails
//     before the first delta. EndAfter sends that many deltas, then fails
//     as a stream that ended before its finish, also a connection error.
//   - Raw cannot be played without a wire format: the call fails as one
//     the script cannot answer.
//   - Hang, after CutAfter deltas, blocks until ctx ends and returns ctx's
//     error; Hanging reports when it starts.
//
// Delay, ChunkDelay and Signature are not used: a Client never waits on the
// clock. Absolute retry times in Header (an epoch X-RateLimit-Reset) are
// read against time.Now. A call whose ctx has already ended returns ctx's error and takes
// nothing from the script, as no request would leave a transport.
//
// The zero Client is ready to use. It has no test to fail, so a call the
// script cannot answer only returns an error; NewClient ties one to a
// test. A Client is safe for concurrent use: calls take the script in
// arrival order.
type Client struct {
	mu              sync.Mutex
	queue           []step
	handler         step
	requests        []*llm.Request // deep copies, in arrival order
	unexpected      []int          // indexes of calls the script could not answer
	problems        map[int]string // why, when not that the script ran out
	allowUnexpected bool
	hanging         chan *llm.Request
}

// step is one scripted answer: a Reply, a function choosing one, or a
// function answering the call itself.
type step struct {
	reply  *Reply
	choose func(*llm.Request) Reply
	fn     llm.ClientFunc
}

func (s step) set() bool { return s.reply != nil || s.choose != nil || s.fn != nil }

// clientProvider names the provider in the errors a Client returns.
const clientProvider = "llmtest"

// NewClient returns a Client. With a non-nil t, the test fails when it
// ends if a call arrived that the script could not answer (see
// Unexpected).
func NewClient(t testing.TB) *Client {
	c := &Client{}
	if t != nil {
		t.Cleanup(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.allowUnexpected {
				return
			}
			for _, i := range c.unexpected {
				why := c.problems[i]
				if why == "" {
					why = "no scripted reply left; enqueue more replies or set a handler"
				}
				t.Errorf("llmtest: client call %d %s: %s", i, describe(c.requests[i]), why)
			}
		})
	}
	return c
}

// Enqueue appends replies to the script. Each call takes the first entry
// left, in arrival order.
func (c *Client) Enqueue(replies ...Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range replies {
		c.queue = append(c.queue, step{reply: &r})
	}
}

// EnqueueFunc appends functions that answer a call themselves, for full
// control: what the sink gets, the exact Response or error, blocking. They
// share the script with Enqueue's replies, in the order both were added.
func (c *Client) EnqueueFunc(fns ...llm.ClientFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range fns {
		c.queue = append(c.queue, step{fn: f})
	}
}

// Handle sets a function choosing the reply to calls that find the script
// empty. It is called without locks held, so it may use the Client.
func (c *Client) Handle(h func(*llm.Request) Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handler = step{choose: h}
}

// HandleFunc is Handle with a function answering the calls itself.
func (c *Client) HandleFunc(h llm.ClientFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handler = step{fn: h}
}

// AllowUnexpected keeps the test from failing on calls the script could
// not answer, for tests that run it out on purpose.
func (c *Client) AllowUnexpected() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.allowUnexpected = true
}

// Requests returns a deep copy of every request received so far, in
// arrival order, as it was when the call was made.
func (c *Client) Requests() []*llm.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*llm.Request, len(c.requests))
	for i, r := range c.requests {
		out[i] = cloneRequest(r)
	}
	return out
}

// Unexpected returns the requests the script could not answer: none was
// left and no handler was set, or the reply needed a wire format (Raw).
func (c *Client) Unexpected() []*llm.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*llm.Request
	for _, i := range c.unexpected {
		out = append(out, cloneRequest(c.requests[i]))
	}
	return out
}

// Pending returns the number of enqueued entries not yet used.
func (c *Client) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// Hanging delivers each request whose Hang reply has started blocking, so
// a test can interrupt at that point without sleeping. It is buffered;
// deliveries beyond the buffer are dropped.
func (c *Client) Hanging() <-chan *llm.Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hangingLocked()
}

func (c *Client) hangingLocked() chan *llm.Request {
	if c.hanging == nil {
		c.hanging = make(chan *llm.Request, 64)
	}
	return c.hanging
}

// Complete answers req with the next entry of the script.
func (c *Client) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	index, s := c.take(req)
	switch {
	case s.fn != nil:
		return s.fn(ctx, req, sink)
	case s.choose != nil:
		r := s.choose(req)
		return c.answer(ctx, index, req, &r, sink)
	case s.reply != nil:
		return c.answer(ctx, index, req, s.reply, sink)
	}
	return nil, &llm.ProviderError{Kind: llm.ErrServer, StatusCode: http.StatusInternalServerError, Provider: clientProvider,
		Message: fmt.Sprintf("llmtest: no scripted reply left for client call %d; enqueue more replies or set a handler", index)}
}

// take records req and takes the step answering it, the zero step when
// the script cannot.
func (c *Client) take(req *llm.Request) (int, step) {
	c.mu.Lock()
	defer c.mu.Unlock()
	index := len(c.requests)
	c.requests = append(c.requests, cloneRequest(req))
	if len(c.queue) > 0 {
		s := c.queue[0]
		c.queue = c.queue[1:]
		return index, s
	}
	if !c.handler.set() {
		c.unexpected = append(c.unexpected, index)
	}
	return index, c.handler
}

// answer plays r as a transport reading the Server's response would.
func (c *Client) answer(ctx context.Context, index int, req *llm.Request, r *Reply, sink func(llm.Delta)) (*llm.Response, error) {
	if r.Hang && (r.CutAfter <= 0 || r.isError()) {
		return c.hang(ctx, req)
	}
	if r.isError() {
		body := r.Body
		if body == "" {
			body = defaultErrorBody(llm.ChatCompletions, r.Status)
		}
		return nil, llm.ClassifyHTTP(clientProvider, r.Status, r.Header, []byte(body), time.Time{})
	}
	if r.Raw != "" {
		const why = "a Raw reply needs a wire format; script it on a Server"
		c.mu.Lock()
		c.unexpected = append(c.unexpected, index)
		if c.problems == nil {
			c.problems = map[int]string{}
		}
		c.problems[index] = why
		c.mu.Unlock()
		return nil, &llm.ProviderError{Kind: llm.ErrServer, StatusCode: http.StatusInternalServerError, Provider: clientProvider,
			Message: fmt.Sprintf("llmtest: client call %d: %s", index, why)}
	}
	resp, deltas := clientTurn(index, req, r)
	broken := r.CutAfter > 0 || r.StreamError != "" || r.Hang
	ended := !broken && r.EndAfter > 0
	switch {
	case broken:
		deltas = deltas[:min(max(r.CutAfter, 0), len(deltas))]
	case ended:
		deltas = deltas[:min(r.EndAfter, len(deltas))]
	}
	if sink != nil {
		for _, d := range deltas {
			sink(d)
		}
	}
	switch {
	case r.Hang:
		return c.hang(ctx, req)
	case r.StreamError != "":
		return nil, llm.ClassifyHTTP(clientProvider, 0, nil, []byte(r.StreamError), time.Time{})
	case broken:
		return nil, &llm.ProviderError{Kind: llm.ErrConnection, Provider: clientProvider, Message: "unexpected EOF", Err: io.ErrUnexpectedEOF}
	case ended:
		return nil, &llm.ProviderError{Kind: llm.ErrConnection, Provider: clientProvider,
			Message: fmt.Sprintf("stream ended before its finish (%d deltas received)", len(deltas))}
	case resp == nil:
		return nil, &llm.ProviderError{Kind: llm.ErrInvalidResponse, Provider: clientProvider, Message: "response has no choices"}
	}
	switch resp.FinishReason {
	case llm.FinishStop, llm.FinishToolCalls, llm.FinishLength, llm.FinishContentFilter:
	default:
		return nil, &llm.ProviderError{Kind: llm.ErrInvalidResponse, Provider: clientProvider,
			Message: fmt.Sprintf("unknown finish reason %q", resp.FinishReason)}
	}
	return resp, nil
}

func (c *Client) hang(ctx context.Context, req *llm.Request) (*llm.Response, error) {
	c.mu.Lock()
	ch := c.hangingLocked()
	c.mu.Unlock()
	select {
	case ch <- cloneRequest(req):
	default:
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// clientTurn is the Response r stands for, nil for an Empty reply, and
// the deltas a stream of it carries.
func clientTurn(index int, req *llm.Request, r *Reply) (*llm.Response, []llm.Delta) {
	if r.Empty {
		return nil, nil
	}
	calls := slices.Clone(r.ToolCalls)
	if r.LegacyFunctionCall && len(calls) > 1 {
		calls = calls[:1]
	}
	for i := range calls {
		if calls[i].ID == "" {
			calls[i].ID = "call_" + token(index, "call_", i, 24)
		}
		if calls[i].Arguments == "" {
			calls[i].Arguments = "{}"
		}
	}
	finish := r.finish()
	resp := &llm.Response{
		Message:      llm.Message{Role: llm.RoleAssistant, Content: r.Text, Reasoning: r.Reasoning, ToolCalls: calls, FinishReason: finish},
		FinishReason: finish,
		Model:        r.Model,
		ID:           "resp_" + token(index, "resp", 0, 24),
		Refusal:      r.Refusal,
	}
	if resp.Model == "" {
		resp.Model = req.Model
	}
	if resp.Model == "" {
		resp.Model = DefaultModel
	}
	if r.Usage != nil {
		resp.Usage = *r.Usage
	} else {
		resp.Usage = estimateUsage(requestSize(req), r, calls)
	}
	if resp.Usage.TotalTokens == 0 {
		resp.Usage.TotalTokens = resp.Usage.InputTokens + resp.Usage.OutputTokens
	}

	var deltas []llm.Delta
	for _, w := range words(r.Reasoning) {
		deltas = append(deltas, llm.Delta{Kind: llm.DeltaReasoning, Text: w})
	}
	for _, w := range words(r.Text) {
		deltas = append(deltas, llm.Delta{Kind: llm.DeltaText, Text: w})
	}
	for i, call := range calls {
		deltas = append(deltas, llm.Delta{Kind: llm.DeltaToolCall, ToolName: call.Name, ToolIndex: i})
	}
	return resp, deltas
}

// describe names a request in a failure: its model and its last message.
func describe(r *llm.Request) string {
	s := fmt.Sprintf("(model %q, %d messages", r.Model, len(r.Messages))
	if n := len(r.Messages); n > 0 {
		s += fmt.Sprintf(", last %s %.60q", r.Messages[n-1].Role, r.Messages[n-1].Content)
	}
	return s + ")"
}

// requestSize is about the size of req on the wire, for usage estimates.
func requestSize(req *llm.Request) int {
	b, _ := json.Marshal(struct {
		Messages []llm.Message `json:"messages"`
		Tools    []llm.ToolDef `json:"tools,omitempty"`
	}{req.Messages, req.Tools})
	return len(b)
}

// cloneRequest copies r so that nothing it refers to is shared.
func cloneRequest(r *llm.Request) *llm.Request {
	c := *r
	if r.Messages != nil {
		c.Messages = make([]llm.Message, len(r.Messages))
		for i, m := range r.Messages {
			m = m.Clone()
			for j, d := range m.ReasoningDetails {
				m.ReasoningDetails[j] = slices.Clone(d)
			}
			for j, it := range m.ReasoningItems {
				m.ReasoningItems[j] = slices.Clone(it)
			}
			c.Messages[i] = m
		}
	}
	if r.Tools != nil {
		c.Tools = make([]llm.ToolDef, len(r.Tools))
		for i, d := range r.Tools {
			d.Parameters = slices.Clone(d.Parameters)
			c.Tools[i] = d
		}
	}
	if r.Temperature != nil {
		t := *r.Temperature
		c.Temperature = &t
	}
	if r.Cache != nil {
		cache := *r.Cache
		c.Cache = &cache
	}
	return &c
}
