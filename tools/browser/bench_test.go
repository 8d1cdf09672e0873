package browser

import (
	"testing"
)

// BenchmarkFirstSnapshot measures a conversation's first browser call:
// Chromium started with a fresh profile, a local page loaded, its
// snapshot taken (target: under 1.5 s on two cores).
func BenchmarkFirstSnapshot(b *testing.B) {
	url := loginSite(b)
	for b.Loop() {
		br := New(Options{Found: Found{Path: chromium(b)}, Workdir: b.TempDir(), TempDir: b.TempDir(), Guard: allowAll})
		res := call(b, br, "browser_navigate", map[string]any{"url": url})
		if res.IsError {
			b.Fatal(res.Content)
		}
		b.StopTimer()
		if err := br.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
