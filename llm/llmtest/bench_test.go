package llmtest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// BenchmarkReply measures one scripted call over real HTTP, from the
// request to the last byte of the reply, without an SDK parsing it: the
// cost the fake adds to every call of an end-to-end test.
func BenchmarkReply(b *testing.B) {
	reply := llmtest.Reply{
		Reasoning: strings.Repeat("thinking about it ", 20),
		Text:      strings.Repeat("word ", 200),
		ToolCalls: []llm.ToolCall{{Name: "terminal", Arguments: `{"command":"ls -la /tmp && cat notes.txt"}`}},
	}
	requests := []struct {
		name, path, body string
	}{
		{"chat", "/v1/chat/completions", `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"stream":%v,"stream_options":{"include_usage":true}}`},
		{"responses", "/v1/responses", `{"model":"gpt-5","input":"hi","stream":%v}`},
		{"anthropic", "/v1/messages", `{"model":"claude-sonnet-4","max_tokens":1000,"messages":[{"role":"user","content":"hi"}],"stream":%v}`},
	}
	for _, rq := range requests {
		for _, stream := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/stream=%v", rq.name, stream), func(b *testing.B) {
				srv := llmtest.NewServer(b)
				srv.Handle(func(*llmtest.Request) llmtest.Reply { return reply })
				body := fmt.Sprintf(rq.body, stream)
				client := &http.Client{}
				b.ReportAllocs()
				for b.Loop() {
					req, _ := http.NewRequest(http.MethodPost, srv.AnthropicURL()+rq.path, strings.NewReader(body))
					req.Header.Set("Anthropic-Version", "2023-06-01")
					resp, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 || n == 0 {
						b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
					}
				}
			})
		}
	}
}
