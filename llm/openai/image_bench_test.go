package openai

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// BenchmarkEncodeImage1MB is the cost of resending a 1 MiB screenshot on
// every call of a turn.
func BenchmarkEncodeImage1MB(b *testing.B) {
	im := llm.Image{MediaType: "image/png", Data: strings.Repeat("QUJD", 1<<18*4/3)}
	req := &llm.Request{Model: "gpt-4o", Messages: []llm.Message{llm.System("sys"), llm.UserWithImages("what is this?", im)}}
	c, r := NewChat(llm.Options{}), NewResponses(llm.Options{})
	b.Run("chat", func(b *testing.B) {
		b.SetBytes(int64(len(im.Data)))
		for b.Loop() {
			if _, err := c.encodeChat(req, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("responses", func(b *testing.B) {
		b.SetBytes(int64(len(im.Data)))
		for b.Loop() {
			if _, err := r.encodeResponses(req, true); err != nil {
				b.Fatal(err)
			}
		}
	})
}
