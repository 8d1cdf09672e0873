package anthropic

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// BenchmarkEncodeImage1MB is the cost of resending a 1 MiB screenshot on
// every call of a turn.
func BenchmarkEncodeImage1MB(b *testing.B) {
	im := llm.Image{MediaType: "image/png", Data: strings.Repeat("QUJD", 1<<18*4/3)}
	req := &llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{llm.System("sys"), llm.UserWithImages("what is this?", im)}}
	c := New(llm.Options{})
	b.SetBytes(int64(len(im.Data)))
	for b.Loop() {
		r, err := c.buildRequest(req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.encode(); err != nil {
			b.Fatal(err)
		}
	}
}
