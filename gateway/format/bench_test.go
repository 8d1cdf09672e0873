package format

import (
	"math/rand/v2"
	"testing"
)

// A long answer (about 60 KB) rendered for Telegram.
func BenchmarkRenderLongAnswer(b *testing.B) {
	md := genDoc(rand.New(rand.NewPCG(9, 10)), 400)
	b.SetBytes(int64(len(md)))
	for b.Loop() {
		Render(FormatHTML, md, 4096)
	}
}
