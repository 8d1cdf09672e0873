package anthropic

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// memoryTransport answers every request with the same stream, in memory,
// so a benchmark measures the transport and not the network.
type memoryTransport struct{ body string }

func (m memoryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"text/event-stream"}},
		Body:          io.NopCloser(strings.NewReader(m.body)),
		ContentLength: -1, Request: req,
	}, nil
}

// history50 is a 50-message tool-using conversation with signed thinking
// on its assistant turns.
func history50() []llm.Message {
	msgs := []llm.Message{llm.System(strings.Repeat("You are a careful coding agent. ", 40))}
	for i := 0; len(msgs) < 50; i++ {
		id := fmt.Sprintf("toolu_%03d", i)
		msgs = append(msgs,
			llm.User(fmt.Sprintf("Step %d: look at file %d and summarise it.", i, i)),
			llm.Message{Role: llm.RoleAssistant, Content: "Reading the file.",
				ToolCalls:        []llm.ToolCall{call(id, "read_file", fmt.Sprintf(`{"path":"src/file_%d.go","limit":200}`, i))},
				Reasoning:        "I should read it first.",
				ReasoningDetails: []json.RawMessage{detail(`{"type":"thinking","thinking":"I should read it first.","signature":"` + strings.Repeat("c2ln", 100) + `"}`)}},
			llm.ToolResult(id, "read_file", strings.Repeat("package main\n\nfunc main() {}\n", 20)),
		)
	}
	return msgs[:50]
}

func benchStream() string {
	return sse(
		msgStart(`{"input_tokens":4000,"cache_read_input_tokens":3000,"output_tokens":1}`),
		blockStart(0, `{"type":"thinking","thinking":"","signature":""}`),
		blockDelta(0, `{"type":"thinking_delta","thinking":"The next file "}`),
		blockDelta(0, `{"type":"thinking_delta","thinking":"needs reading."}`),
		blockDelta(0, `{"type":"signature_delta","signature":"`+strings.Repeat("c2ln", 100)+`"}`),
		blockStop(0),
		blockStart(1, `{"type":"text","text":""}`),
		blockDelta(1, `{"type":"text_delta","text":"Reading "}`),
		blockDelta(1, `{"type":"text_delta","text":"the next file."}`),
		blockStop(1),
		blockStart(2, `{"type":"tool_use","id":"toolu_next","name":"read_file","input":{}}`),
		blockDelta(2, `{"type":"input_json_delta","partial_json":"{\"path\":"}`),
		blockDelta(2, `{"type":"input_json_delta","partial_json":"\"src/next.go\"}"}`),
		blockStop(2),
		msgDelta("tool_use", `{"input_tokens":4000,"cache_read_input_tokens":3000,"output_tokens":45}`),
		msgStop,
	)
}

// BenchmarkAnthropicConvert50 measures one call's overhead: converting a
// 50-message history (with cache markers and thinking replay), encoding
// the request, and decoding and assembling a streamed tool-call answer.
func BenchmarkAnthropicConvert50(b *testing.B) {
	c := New(llm.Options{APIKey: "k", HTTPClient: &http.Client{Transport: memoryTransport{body: benchStream()}}})
	req := &llm.Request{
		Model:    "claude-sonnet-4",
		Messages: history50(),
		Tools: []llm.ToolDef{
			{Name: "read_file", Description: "Read a file", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"]}`)},
			{Name: "write_file", Description: "Write a file", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)},
			{Name: "terminal", Description: "Run a command", Parameters: []byte(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
		},
		ReasoningEffort: "low",
		Cache:           &llm.CacheOptions{TTL: "5m"},
	}
	sink := func(llm.Delta) {}
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		resp, err := c.Complete(b.Context(), req, sink)
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Message.ToolCalls) != 1 {
			b.Fatalf("tool calls %v", resp.Message.ToolCalls)
		}
	}
	// On a shared machine wall time includes waiting for a core; the
	// process CPU time per call (GC included) is the cost itself.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the user+system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
