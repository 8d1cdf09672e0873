package format

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// The functions keep no state between calls: renders running at once
// give what they give one at a time (run with -race).
func TestRenderIsSafeForConcurrentUse(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var docs []string
	for range 8 {
		docs = append(docs, genDoc(r, 10))
	}
	want := make([][]string, len(docs))
	for i, d := range docs {
		want[i] = Render(FormatHTML, d, 300)
	}
	var wg sync.WaitGroup
	for i, d := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := Render(FormatHTML, d, 300); strings.Join(got, "\x00") != strings.Join(want[i], "\x00") {
				t.Errorf("doc %d rendered differently at the same time as others", i)
			}
		}()
	}
	wg.Wait()
}

// A long answer (about 60 KB) rendered for Telegram.
func BenchmarkRenderLongAnswer(b *testing.B) {
	md := genDoc(rand.New(rand.NewPCG(9, 10)), 400)
	b.SetBytes(int64(len(md)))
	for b.Loop() {
		Render(FormatHTML, md, 4096)
	}
}
