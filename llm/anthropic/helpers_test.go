package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// reply is one scripted answer of fakeServer.
type reply struct {
	status  int
	header  map[string]string
	body    string
	hold    chan struct{} // when set, the stream stays open until it is closed
	flushed chan struct{} // closed once the body before hold was sent
}

// fakeServer is an Anthropic endpoint on 127.0.0.1: it records every
// request and answers with the scripted replies in order.
type fakeServer struct {
	*httptest.Server
	mu       sync.Mutex
	replies  []reply
	bodies   [][]byte
	headers  []http.Header
	paths    []string
	requests int
}

func newFakeServer(t *testing.T, replies ...reply) *fakeServer {
	t.Helper()
	f := &fakeServer{replies: replies}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, b)
	f.headers = append(f.headers, r.Header.Clone())
	f.paths = append(f.paths, r.URL.Path)
	n := f.requests
	f.requests++
	f.mu.Unlock()
	if n >= len(f.replies) {
		http.Error(w, `{"type":"error","error":{"type":"api_error","message":"no scripted reply"}}`, 500)
		return
	}
	rep := f.replies[n]
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		if strings.HasPrefix(rep.body, "event:") {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
	}
	status := rep.status
	if status == 0 {
		status = 200
	}
	w.WriteHeader(status)
	io.WriteString(w, rep.body)
	w.(http.Flusher).Flush()
	if rep.flushed != nil {
		close(rep.flushed)
	}
	if rep.hold != nil {
		select {
		case <-rep.hold:
		case <-r.Context().Done():
		}
	}
}

func (f *fakeServer) body(t *testing.T, i int) map[string]any {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if i >= len(f.bodies) {
		t.Fatalf("request %d was never sent (%d sent)", i, len(f.bodies))
	}
	var m map[string]any
	if err := json.Unmarshal(f.bodies[i], &m); err != nil {
		t.Fatalf("request %d body: %v", i, err)
	}
	return m
}

// sse renders events as an Anthropic stream; each event's name is its type.
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(e), &head); err != nil {
			panic(fmt.Sprintf("bad test event %s: %v", e, err))
		}
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", head.Type, e)
	}
	return b.String()
}

func msgStart(usage string) string {
	return `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":` + usage + `}}`
}

func blockStart(i int, block string) string {
	return fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, block)
}

func blockDelta(i int, delta string) string {
	return fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i, delta)
}

func blockStop(i int) string { return fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i) }

func msgDelta(stop, usage string) string {
	return `{"type":"message_delta","delta":{"stop_reason":"` + stop + `","stop_sequence":null},"usage":` + usage + `}`
}

const msgStop = `{"type":"message_stop"}`

// textStream is a complete stream answering text.
func textStream(text string) string {
	q, _ := json.Marshal(text)
	return sse(
		msgStart(`{"input_tokens":10,"output_tokens":1}`),
		blockStart(0, `{"type":"text","text":""}`),
		blockDelta(0, `{"type":"text_delta","text":`+string(q)+`}`),
		blockStop(0),
		msgDelta("end_turn", `{"output_tokens":5}`),
		msgStop,
	)
}

// Builders for the expected wire shape of messages.
func u(blocks ...any) any { return map[string]any{"role": "user", "content": blocks} }
func a(blocks ...any) any { return map[string]any{"role": "assistant", "content": blocks} }
func txt(s string) any    { return map[string]any{"type": "text", "text": s} }
func use(id, name, input string) any {
	var in any
	if err := json.Unmarshal([]byte(input), &in); err != nil {
		panic(err)
	}
	return map[string]any{"type": "tool_use", "id": id, "name": name, "input": in}
}
func res(id, text string) any {
	return map[string]any{"type": "tool_result", "tool_use_id": id, "content": []any{txt(text)}}
}
func think(sig, text string) any {
	return map[string]any{"type": "thinking", "signature": sig, "thinking": text}
}
func redacted(data string) any { return map[string]any{"type": "redacted_thinking", "data": data} }

// normalised round-trips v through JSON so it compares with decoded bodies.
func normalised(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func assertJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, w := normalised(t, got), normalised(t, want)
	if !reflect.DeepEqual(g, w) {
		gb, _ := json.MarshalIndent(g, "", "  ")
		wb, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}

// wire builds the request body the client would send for req.
func wire(t *testing.T, c *Client, req *llm.Request) map[string]any {
	t.Helper()
	r, err := c.buildRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func detail(s string) json.RawMessage { return json.RawMessage(s) }

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}
