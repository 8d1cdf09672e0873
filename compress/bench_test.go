package compress

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// BenchmarkCompress2000 measures compressing a 2,000-message history
// with a summarizer that answers at once: the compressor's own cost
// (boundaries, serialising the middle, assembling, estimating).
func BenchmarkCompress2000(b *testing.B) {
	msgs := randomHistory(rand.New(rand.NewPCG(42, 42)), 2000, false)
	instant := llm.ClientFunc(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
		return &llm.Response{Message: llm.Assistant("## Active Task\nkeep going")}, nil
	})
	c := &Compressor{Summarizer: instant}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Compress(context.Background(), msgs, ""); err != nil {
			b.Fatal(err)
		}
	}
}
